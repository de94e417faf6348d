"""Real-browser test: one person plays a 2-player Carpe Diem game against a bot to the end,
building every tile through the board (pick a highlighted cell, turn it through the fitting
rotations with a preview, confirm).  Every click is made once: the page never loses one.  Uses the
shared browser fixtures of ``tests.browser_support``; screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.browser_support import click, click_action, my_turns, new_game, register, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


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
    click(page, "#cd-confirm")


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
    new_game(page, server, "carpediem", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    assert page.is_visible("#cd-provisional")
    shot(page, "carpediem-start")
    builds = 0
    clicks = 0
    for clicks, actions in enumerate(my_turns(page, 400), start=1):
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
        if clicks == 60:
            shot(page, "carpediem-midgame")
    page.wait_for_selector("#result")
    shot(page, "carpediem-end")
    assert builds > 10
    assert "Result" in page.inner_text("#result")
