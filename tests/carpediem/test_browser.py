"""Real-browser test: one person plays a 2-player Carpe Diem game against a bot to the end,
building every tile through the board (pick a highlighted cell, turn it through the fitting
rotations with a preview, confirm).  Reuses the portal's browser fixtures; screenshots go to
``test-artifacts/``."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.portal.test_browser import browser, legal_actions, register, seq_of, server, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
__all__ = ["browser", "server"]  # fixtures used below


def advanced(page: Any, before: int, timeout: float) -> bool:
    try:
        page.wait_for_function(
            "before => { const g = document.getElementById('game'); return g && Number(g.dataset.seq) > before; }",
            arg=before, timeout=timeout,
        )
    except Exception:  # playwright's TimeoutError
        return False
    return True


def click_until_applied(page: Any, selector: str, action: str) -> None:
    """Click ``selector`` until the game moves on.

    The page ignores a click that arrives while a live refresh is being swapped in, so a click
    that changed nothing is repeated while ``action`` is still legal.
    """
    before = seq_of(page)
    for _ in range(5):
        page.locator(selector).first.click()
        if advanced(page, before, 3000):
            return
        if action not in legal_actions(page):
            return
    raise AssertionError(f"{action} was never applied")


def click_action(page: Any, action: str) -> None:
    on_board = f'#board [data-action="{action}"]'
    click_until_applied(page, on_board if page.locator(on_board).count() else f'#legal [data-action="{action}"]', action)


def build_on_board(page: Any, action: str) -> None:
    """Build through the board UI: click the cell, turn until the wanted rotation shows, confirm."""
    cell = action.split(":")[1]
    page.click(f".cd-district.cd-me .cd-cell.cd-legal[data-cell='{cell}']")
    page.wait_for_selector(f".cd-district.cd-me .cd-cell.cd-picked[data-cell='{cell}'] .cd-preview-wrap svg")
    for _ in range(4):
        if page.get_attribute("#cd-confirm", "data-action") == action:
            break
        page.click("#cd-rotate")
    assert page.get_attribute("#cd-confirm", "data-action") == action
    click_until_applied(page, "#cd-confirm", action)


def choose(actions: list[str], rng: random.Random) -> str:
    builds = [a for a in actions if a.startswith("build:")]
    if builds and rng.random() < 0.95:
        return rng.choice(builds)
    for prefix in ("card:", "return:", "keep", "seal:", "disc:", "take:", "move:", "place:", "store"):
        options = [a for a in actions if a.startswith(prefix) and not a.endswith(":bread")]
        if options:
            return rng.choice(options)
    return rng.choice(actions)


def test_play_carpediem_against_a_bot(browser: Any, server: str) -> None:
    rng = random.Random(7)
    page = register(browser, server, "livia")
    page.goto(f"{server}/new?game=carpediem")
    page.select_option("select[name=players]", "2")
    page.select_option("select[name=seat1]", "bot")
    page.click("#create")
    page.wait_for_selector("#game[data-status=running]")
    assert page.is_visible("#cd-provisional")
    shot(page, "carpediem-start")
    clicks = builds = 0
    deadline = time.monotonic() + 400
    while time.monotonic() < deadline and page.get_attribute("#game", "data-status") != "finished":
        if page.get_attribute("#game", "data-my-turn") != "yes":
            time.sleep(0.05)
            continue
        actions = legal_actions(page)
        if not actions:
            time.sleep(0.05)
            continue
        action = choose(actions, rng)
        if action.startswith("build:"):
            legal_cells = set(page.eval_on_selector_all(
                ".cd-district.cd-me .cd-cell.cd-legal", "els => els.map(e => e.dataset.cell)"))
            assert legal_cells == {a.split(":")[1] for a in actions if a.startswith("build:")}
            if builds == 3:
                page.click(f".cd-district.cd-me .cd-cell.cd-legal[data-cell='{action.split(':')[1]}']")
                shot(page, "carpediem-build-preview")
            build_on_board(page, action)
            builds += 1
        else:
            click_action(page, action)
        clicks += 1
        if clicks == 60:
            shot(page, "carpediem-midgame")
    page.wait_for_selector("#result")
    shot(page, "carpediem-end")
    assert builds > 10
    assert "Result" in page.inner_text("#result")
