"""Real-browser test: one person plays a 2-player Carpe Diem game against a bot to the end,
building every tile through the board (pick a highlighted cell, turn it through the fitting
rotations with a preview, confirm).  Every click is made once: the page never loses one.  Uses the
shared browser fixtures of ``tests.browser_support``; screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.browser_support import click, click_action, my_turns, new_game, register, seq_of, shot

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


#: True once a re-rendered board shows its districts again (htmx has settled and the tabs re-applied).
SETTLED_DISTRICTS = ("() => !document.querySelector('.htmx-settling, .htmx-swapping') && "
                     "[...document.querySelectorAll('.cd-district')].some(e => e.getClientRects().length)")


def settled_districts(page: Any, tries: int = 20) -> list[str]:
    """The districts shown once the board has settled, read twice alike 0.1 s apart (live updates go on)."""
    last: list[str] | None = None
    for _ in range(tries):
        page.wait_for_function(SETTLED_DISTRICTS)
        now = sorted(shown_districts(page))
        if now == last:
            return now
        last = now
        page.wait_for_timeout(100)
    return last or []


def shown_districts(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(
        ".cd-district", "els => els.filter(e => e.getClientRects().length).map(e => e.dataset.seat)"))


def test_district_tabs_show_one_other_district_by_keyboard_and_keep_it(browser: Any, server: str) -> None:
    """Four players: my district and one other show; the tabs (keyboard too) pick another or all of them,
    and the choice stays while the game goes on (live updates re-render the board)."""
    page = register(browser, server, "tabea")
    new_game(page, server, "carpediem", ["bot", "bot", "bot"])
    page.wait_for_selector("#game[data-status=running]")
    page.wait_for_selector("#cd-tabs")
    mine = page.get_attribute(".cd-district.cd-me", "data-seat")
    shown = shown_districts(page)
    assert mine in shown and len(shown) == 2, shown
    tabs = page.eval_on_selector_all("#cd-tabs [data-cd-show]", "els => els.map(e => e.dataset.cdShow)")
    assert tabs[-1] == "all" and len(tabs) == 4 and mine not in tabs
    other = next(s for s in tabs[:-1] if s not in shown)
    page.focus(f"#cd-tabs [data-cd-show='{other}']")
    page.keyboard.press("Enter")
    assert sorted(shown_districts(page)) == sorted([mine, other])
    assert page.get_attribute(f"#cd-tabs [data-cd-show='{other}']", "aria-pressed") == "true"
    before = seq_of(page)
    actions = next(my_turns(page, 60))
    click_action(page, actions[0])
    page.wait_for_function("b => Number(document.getElementById('game').dataset.seq) > b", arg=before)
    # The new seq is in the page as soon as htmx swaps; the tab choice is applied once the swap settles,
    # and the bots' moves bring more swaps: read the districts of a settled board.
    assert settled_districts(page) == sorted([mine, other]), "the choice survives a live update"
    page.click("#cd-tabs [data-cd-show='all']")
    assert len(shown_districts(page)) == 4
    shot(page, "carpediem-districts-all")
