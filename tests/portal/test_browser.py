"""Real-browser end-to-end tests: Playwright driving Debian's chromium against a live server.

Two people in two browser contexts register, set up a Machi Koro game and
play it to the end by clicking, each seeing the other's moves arrive live
(no reload ever).  Another test plays Roll Through the Ages against a bot.
Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ludothek import engine as eng
from tests.conftest import needs
from tests.portal.conftest import make_settings
from tests.portal.server import running_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    needs(None if os.path.exists(CHROMIUM) else f"{CHROMIUM} is missing (run python -m ludothek.devtools.services)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover
        needs("the playwright package is not installed")
        raise
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with running_server(make_settings(f"sqlite:///{tmp_path / 'e2e.sqlite3'}")) as url:
        yield url


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def register(browser: Any, base: str, name: str, lang: str = "en") -> Any:
    context = browser.new_context(viewport={"width": 1360, "height": 900}, locale=lang)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base}/register")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", f"password-{name}")
    page.click("form[action='/register'] button[type=submit]")
    page.wait_for_selector("#account-link")
    return page


def seq_of(page: Any) -> int:
    return int(page.get_attribute("#game", "data-seq"))


def legal_actions(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#legal [data-action]", "els => els.map(e => e.dataset.action)"))


def click_action(page: Any, action: str) -> None:
    """Click the action where it sits on the board if it is there, else in the plain list."""
    on_board = page.locator(f'#board [data-action="{action}"]')
    target = on_board.first if on_board.count() else page.locator(f'#legal [data-action="{action}"]').first
    before = seq_of(page)
    target.click()
    page.wait_for_function(
        "before => { const g = document.getElementById('game'); return g && Number(g.dataset.seq) > before; }",
        arg=before,
    )


def machikoro_choice(actions: list[str], rng: random.Random) -> str:
    """A quick player: landmarks first, then the dearest establishment, two dice when possible."""
    game = eng.load("machikoro")
    del game
    order = ["build:radio_tower", "build:amusement_park", "build:shopping_mall", "build:train_station"]
    for a in order:
        if a in actions:
            return a
    builds = [a for a in actions if a.startswith("build:")]
    if builds and rng.random() < 0.7:
        return rng.choice(builds)
    for a in ("roll:2", "keep", "notrade"):
        if a in actions:
            return a
    non_pass = [a for a in actions if a != "pass"]
    return rng.choice(non_pass) if non_pass and rng.random() < 0.5 else actions[-1] if "pass" not in actions else "pass"


def test_two_players_play_machikoro_to_the_end(browser: Any, server: str) -> None:
    rng = random.Random(11)
    anna = register(browser, server, "anna")
    ben = register(browser, server, "ben", lang="de")
    anna.goto(f"{server}/new?game=machikoro")
    shot(anna, "new-game-anna")
    anna.select_option("select[name=players]", "2")
    anna.select_option("select[name=seat1]", "open")
    anna.click("#create")
    anna.wait_for_selector("#game[data-status=open]")
    game_url = anna.url
    ben.goto(server)
    shot(ben, "lobby-ben")
    ben.click("#open-games form[action$='/join'] button")
    ben.wait_for_selector("#game[data-status=running]")
    anna.wait_for_selector("#game[data-status=running]")  # arrived live: anna never reloaded
    assert ben.url == game_url
    anna.wait_for_selector("#live-status.on")
    shot(anna, "machikoro-start-anna")
    shot(ben, "machikoro-start-ben")

    pages = {"anna": anna, "ben": ben}
    clicks = 0
    live_seen = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if anna.get_attribute("#game", "data-status") == "finished":
            break
        mover = next((n for n, p in pages.items() if p.get_attribute("#game", "data-my-turn") == "yes"), None)
        if mover is None:
            time.sleep(0.05)
            continue
        page = pages[mover]
        other = pages["ben" if mover == "anna" else "anna"]
        actions = legal_actions(page)
        if not actions:
            time.sleep(0.05)
            continue
        click_action(page, machikoro_choice(actions, rng))
        clicks += 1
        # the other player sees the move arrive without reloading
        other.wait_for_function(
            "s => Number(document.getElementById('game').dataset.seq) >= s", arg=seq_of(page)
        )
        live_seen += 1
        if clicks == 12:
            shot(anna, "machikoro-midgame-anna")
            shot(ben, "machikoro-midgame-ben")
            ben.click(".mk-city[data-seat='0'] .mk-player")  # the Yucata detail: landmarks enlarged
            shot(ben, "machikoro-landmarks-enlarged")
    for p in pages.values():
        p.wait_for_selector("#result")
    shot(anna, "machikoro-end-anna")
    shot(ben, "machikoro-end-ben")
    assert clicks > 10 and live_seen == clicks
    assert "Ergebnis" in ben.inner_text("#result") and "Result" in anna.inner_text("#result")


def rtta_choice(actions: list[str], rng: random.Random) -> str:
    """Build and buy when possible, otherwise move the turn along."""
    for prefix in ("buy:", "work:"):
        choices = [a for a in actions if a.startswith(prefix)]
        if choices:
            return max(choices, key=len) if prefix == "buy:" else choices[-1]
    if any(a.startswith("food:") for a in actions):
        return rng.choice([a for a in actions if a.startswith("food:")])
    if "done" in actions:
        return "done"
    return rng.choice(actions)


def test_play_roll_through_the_ages_against_a_bot(browser: Any, server: str) -> None:
    rng = random.Random(5)
    page = register(browser, server, "clara")
    page.goto(f"{server}/new?game=rolltheages")
    page.select_option("select[name=players]", "2")
    page.select_option("select[name=seat1]", "bot")
    page.click("#create")
    page.wait_for_selector("#game[data-status=running]")
    shot(page, "rolltheages-start")
    clicks = used_dice = 0
    choose_shot = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and page.get_attribute("#game", "data-status") != "finished":
        if page.get_attribute("#game", "data-my-turn") != "yes":
            time.sleep(0.05)
            continue
        actions = legal_actions(page)
        if not actions:
            time.sleep(0.05)
            continue
        before = seq_of(page)
        if page.locator("#rt-choose").count() and page.locator("#rt-dice .rt-die[data-face='X']").count():
            # the Yucata detail: click a two-way die to switch it between food and workers, then confirm
            page.locator("#rt-dice .rt-die[data-face='X']").first.click()
            assert page.locator("#rt-dice .rt-die.rt-as-workers").count() == 1
            if not choose_shot:
                shot(page, "rolltheages-choose-food-workers")
                choose_shot = True
            page.click("#rt-choose")
            used_dice += 1
        elif page.locator("#rt-reroll").count() and rng.random() < 0.5:
            page.locator("#rt-dice .rt-die.rt-clickable").first.click()
            if page.locator("#rt-reroll:enabled").count():
                page.click("#rt-reroll")
                used_dice += 1
            else:
                click_action(page, "done")
                clicks += 1
                continue
        else:
            click_action(page, rtta_choice(actions, rng))
            clicks += 1
            if clicks == 8:
                shot(page, "rolltheages-midgame")
            continue
        page.wait_for_function("b => Number(document.getElementById('game').dataset.seq) > b", arg=before)
        clicks += 1
    page.wait_for_selector("#result")
    shot(page, "rolltheages-end")
    assert clicks > 5 and used_dice > 0
