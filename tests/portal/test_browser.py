"""Real-browser end-to-end tests: Playwright driving Debian's chromium against a live server.

Two people in two browser contexts register, set up a Machi Koro game and
play it to the end by clicking, each seeing the other's moves arrive live
(no reload ever).  Another test plays Roll Through the Ages against a bot.
Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from ludothek import engine as eng
from ludothek.engine.registry import GAME_MODULES
from ludothek.texts import catalogs
from tests import browser_support
from tests.browser_support import click_action, legal_actions, my_turns, new_game, register, seq_of, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_without_chromium_the_reason_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser_support, "CHROMIUM", "/nonexistent/chromium")
    problem = browser_support.browser_problem()
    assert problem is not None and "/nonexistent/chromium is missing" in problem


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
    new_game(page, server, "rolltheages", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    shot(page, "rolltheages-start")
    clicks = used_dice = 0
    choose_shot = False
    for actions in my_turns(page, 240):
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


def test_new_game_form_follows_the_player_count(browser: Any, server: str) -> None:
    page = register(browser, server, "erik")
    page.goto(f"{server}/new?game=machikoro")  # 2 to 4 players
    row = ".seat-row[data-seat='{}']".format
    assert page.is_visible(row(1)) and not page.is_visible(row(2)) and not page.is_visible(row(3))
    assert not page.is_visible(f"{row(1)} input")  # the name only for an invitation
    page.select_option("select[name=players]", "4")
    assert page.is_visible(row(2)) and page.is_visible(row(3))
    page.select_option("select[name=seat3]", "invite")
    assert page.is_visible(f"{row(3)} input")
    page.select_option("select[name=players]", "2")
    assert not page.is_visible(row(3))  # hidden and disabled: not submitted
    shot(page, "new-game-form-2-players")
    assert not page.is_visible(f"{row(1)} select[name=seat1_bot]")  # the strength only for a bot
    page.select_option("select[name=seat1]", "bot")
    assert page.is_visible(f"{row(1)} select[name=seat1_bot]")
    assert page.input_value("select[name=seat1_bot]") == "medium"
    page.select_option("select[name=seat1_bot]", "hard")
    page.click("#create")
    page.wait_for_selector("#game[data-status=running]")
    assert page.locator("ol.players .player").count() == 2
    assert "(hard)" in page.inner_text("ol.players")  # "Bot 2 (hard)"


def my_turn_or_over(page: Any, deadline: float) -> bool:
    """Wait until I can click (``True``) or the game is over (``False``).

    In this dice race a rolled 1 passes the turn, and the bot can reach the target in that one turn:
    about one game in six ends before the test gets to click.  The caller then starts another game.
    """
    while page.get_attribute("#game", "data-status") != "finished":
        if page.get_attribute("#game", "data-my-turn") == "yes" and legal_actions(page):
            return True
        assert time.monotonic() < deadline, "the bot never gave the turn back"
        time.sleep(0.05)
    return False


def test_a_click_during_a_live_refresh_is_not_lost(browser: Any, server: str) -> None:
    page = register(browser, server, "fritz")
    for _attempt in range(10):
        new_game(page, server, "toypig", ["bot"], {"length": "long"})
        page.wait_for_selector("#game[data-status]:not([data-status=open])")
        deadline = time.monotonic() + 60
        if not my_turn_or_over(page, deadline):
            continue  # the bot won before my first click: another game
        before = seq_of(page)
        # a refresh is in flight when the click arrives (same tick): the click waits for it, then is sent
        page.evaluate(
            "() => { window.ludothek.refresh(); document.querySelector('#legal [data-action=\"roll\"]').click(); }"
        )
        page.wait_for_function("b => Number(document.getElementById('game').dataset.seq) > b", arg=before)
        assert page.locator("#move-error").count() == 0
        if not my_turn_or_over(page, deadline):
            continue  # my roll was a 1 and the bot won in its turn: another game
        # a double click is applied once, without an error message
        mine = page.locator("#log li.log-seat0, #log li.log-seat1").count()
        before = seq_of(page)
        page.evaluate("() => { const b = document.querySelector('#legal [data-action=\"roll\"]'); b.click(); b.click(); }")
        page.wait_for_function("b => Number(document.getElementById('game').dataset.seq) > b", arg=before)
        page.wait_for_function("() => !document.getElementById('game').classList.contains('sending')")
        assert page.locator("#move-error").count() == 0
        assert page.locator("#log li.log-seat0, #log li.log-seat1").count() >= mine + 1
        return
    pytest.fail("the bot won ten games in a row before a click could be made")


#: Interface keys that would show if a text were missing (``t`` falls back to the key itself).
RAW_KEYS = sorted(k for k in catalogs.keys("en") if "_" in k)


def check_page(page: Any, name: str, phone: bool = True) -> None:
    """Screenshot ``name`` and check what a person would notice: sideways scrolling, raw text keys.

    With ``phone`` the page is looked at on a phone-sized window too (``<name>-phone.png``).
    """
    sizes = [(page.viewport_size, name)] + ([({"width": 390, "height": 844}, f"{name}-phone")] if phone else [])
    for size, label in sizes:
        page.set_viewport_size(size)
        shot(page, label)
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{label}: the page is {overflow}px wider than the window"
    page.set_viewport_size(sizes[0][0])
    text = page.inner_text("body")
    raw = [k for k in RAW_KEYS if k in text.split()]
    assert not raw, f"{name}: untranslated {raw}"


def api(page: Any, method: str, url: str, data: Any = None) -> Any:
    """The JSON API with the page's own session (cookie plus CSRF header)."""
    headers = {"X-CSRF-Token": page.get_attribute("meta[name=csrf-token]", "content")}
    r = page.request.fetch(url, method=method, headers=headers, data=data)
    assert r.ok, r.text()
    return r.json()


def test_every_page_in_both_languages(browser: Any, server: str) -> None:
    """The tour: every kind of page, in German and English, screenshotted and checked."""
    for lang in ("de", "en"):
        visitor = browser.new_context(viewport={"width": 1360, "height": 900}, locale=lang).new_page()
        visitor.goto(server)
        check_page(visitor, f"tour-{lang}-welcome")
        visitor.goto(f"{server}/register")
        visitor.fill("input[name=name]", "x")
        visitor.fill("input[name=password]", "short")
        visitor.click("form[action='/register'] button[type=submit]")
        check_page(visitor, f"tour-{lang}-register-error")
        visitor.goto(f"{server}/login")
        check_page(visitor, f"tour-{lang}-login")
        visitor.context.close()

        page = register(browser, server, f"tina-{lang}", lang=lang)
        for game in eng.games():
            page.goto(f"{server}/new?game={game}")
            check_page(page, f"tour-{lang}-new-{game}")
        new_game(page, server, "machikoro", ["open", "bot"])
        check_page(page, f"tour-{lang}-waiting")
        for game in GAME_MODULES:
            new_game(page, server, game, ["bot"])
            page.wait_for_selector("#game[data-status=running]")
            page.wait_for_selector("#game[data-my-turn=yes]")
            check_page(page, f"tour-{lang}-running-{game}")
        new_game(page, server, "toypig", ["bot"])
        gid = int(page.get_attribute("#game", "data-game"))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = api(page, "GET", f"{server}/api/games/{gid}?log=false")
            if state["status"] == "finished":
                break
            legal = [a["action"] for a in state["legal"]]
            if not legal:
                time.sleep(0.02)
                continue
            pot = state["view"].get("pot", 0)
            api(page, "POST", f"{server}/api/games/{gid}/actions",
                {"action": "roll" if "roll" in legal and pot < 8 else "hold", "seq": state["seq"]})
        page.goto(f"{server}/games/{gid}")
        page.wait_for_selector("#result")
        check_page(page, f"tour-{lang}-finished")
        page.goto(server)
        check_page(page, f"tour-{lang}-home")
        page.goto(f"{server}/account")
        check_page(page, f"tour-{lang}-account")
        page.goto(f"{server}/games/424242")
        check_page(page, f"tour-{lang}-not-found")
        page.context.close()


def test_waiting_game_page_shows_who_joined(browser: Any, server: str) -> None:
    gina = register(browser, server, "gina")
    hugo = register(browser, server, "hugo", lang="de")
    new_game(gina, server, "machikoro", ["open", "open"])
    gina.wait_for_selector("#game[data-status=open] #seat-table")
    game_url = gina.url
    hugo.goto(game_url)
    hugo.click("#seat-table #join")
    hugo.wait_for_selector("#seat-table #leave")
    shot(hugo, "waiting-joined-hugo")
    # gina never reloads: her page picks up the new seat by itself
    gina.wait_for_function("() => document.getElementById('seat-table').innerText.includes('hugo')")
    shot(gina, "waiting-joined-gina")
    hugo.click("#seat-table #leave")
    hugo.wait_for_url(f"{server}/")
    gina.wait_for_function("() => !document.getElementById('seat-table').innerText.includes('hugo')")
