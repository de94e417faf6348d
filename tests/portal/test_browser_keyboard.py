"""Machi Koro and Roll Through the Ages played with the keyboard alone (issue 10, part 8).

A person who uses no mouse moves the focus with Tab / Shift+Tab, picks in a radio group with the
arrow keys and presses Enter.  Here a player does exactly that against a bot: every one of their
actions is reached by key presses only (no click, no `focus()` from the test), several turns long,
including buying an establishment in Machi Koro and rolling dice again, placing workers and buying a
development (through the picker) in Roll Through the Ages.  After each move the focus must come back
to the board, so the next decision is a few key presses away.  Waits are for conditions, never for
times; screenshots go to ``test-artifacts/keyboard-*.png``.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.browser_support import new_game, register, seq_of, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Where is the element for the wanted action, seen from the focus?  "here", "before", "after", "none".
LOCATE = """([sel]) => {
  const want = [...document.querySelectorAll(sel)].find((e) => e.getClientRects().length > 0);
  if (!want) return "none";
  const now = document.activeElement;
  if (now === want) return "here";
  if (!now || now === document.body) return "after";
  return (now.compareDocumentPosition(want) & Node.DOCUMENT_POSITION_PRECEDING) ? "before" : "after";
}"""


def tab_to(page: Any, selector: str, presses: int = 400) -> bool:
    """Move the focus onto the first visible ``selector`` with Tab / Shift+Tab only."""
    for _ in range(presses):
        where = page.evaluate(LOCATE, [selector])
        if where == "here":
            return True
        if where == "none":
            return False
        page.keyboard.press("Shift+Tab" if where == "before" else "Tab")
    return False


def my_turn(page: Any, seconds: float = 60) -> bool:
    """Wait until it is my turn (True) or the game is over (False)."""
    page.wait_for_function(
        "() => { const g = document.getElementById('game'); return g && !g.classList.contains('sending')"
        " && (g.dataset.myTurn === 'yes' || g.dataset.status !== 'running'); }", timeout=seconds * 1000)
    return bool(page.get_attribute("#game", "data-status") == "running")


def press(page: Any, selector: str, key: str = "Enter") -> None:
    """Reach ``selector`` by keyboard and press ``key``; wait until the game moved on."""
    before = seq_of(page)
    assert tab_to(page, selector), f"cannot reach {selector} with the keyboard"
    page.keyboard.press(key)
    page.wait_for_function(
        "b => { const g = document.getElementById('game'); return g && Number(g.dataset.seq) > b; }", arg=before)


def press_listed(page: Any, action: str) -> None:
    """An action from the plain list; open the folded "all actions" list with the keyboard first."""
    listed = f'#legal [data-action="{action}"]'
    if page.evaluate(LOCATE, [listed]) == "none" and page.locator("#legal details.all-actions:not([open])").count():
        assert tab_to(page, "#legal details.all-actions > summary")
        page.keyboard.press("Enter")
        page.wait_for_selector("#legal details.all-actions[open]")
    press(page, listed)


def legal(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#legal [data-action]", "els => els.map(e => e.dataset.action)"))


def on_board(action: str) -> str:
    return f'#board [data-action="{action}"]'


def test_machikoro_with_the_keyboard_alone(browser: Any, server: str) -> None:
    page = register(browser, server, "kira")
    new_game(page, server, "machikoro", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    rng = random.Random(2)
    built = rolled = 0
    deadline = time.monotonic() + 240
    while (built < 2 or rolled < 3) and time.monotonic() < deadline and my_turn(page):
        actions = legal(page)
        if not actions:
            continue
        rolls = [a for a in actions if a.startswith("roll:")]
        builds = [a for a in actions if a.startswith("build:")]
        if rolls:
            press(page, on_board(rolls[0]))
            rolled += 1
        elif builds:
            # the Train Station first once affordable: only with it does a turn offer "roll:" (one die or two),
            # so a purely random buyer could end a game without ever rolling by keyboard (it did, once)
            pick = "build:train_station" if "build:train_station" in builds else rng.choice(builds)
            press(page, on_board(pick))  # a card in the market or a landmark: a div, reached by Tab
            built += 1
        else:
            choice = next((a for a in ("keep", "pass", "notrade") if a in actions), None)
            if choice and page.locator(on_board(choice)).count():
                press(page, on_board(choice))
            else:
                press_listed(page, rng.choice(actions))
        if page.get_attribute("#game", "data-my-turn") == "yes" and legal(page):
            page.wait_for_function("() => !!document.activeElement && !!document.activeElement.closest('#game')")
    shot(page, "keyboard-machikoro")
    assert built >= 2 and rolled >= 3, (built, rolled)


def test_roll_through_the_ages_with_the_keyboard_alone(browser: Any, server: str) -> None:
    page = register(browser, server, "lina")
    new_game(page, server, "rolltheages", ["bot"])
    page.wait_for_selector("#game[data-status=running]")
    seen: set[str] = set()
    deadline = time.monotonic() + 300
    while not {"reroll", "work", "buy"} <= seen and time.monotonic() < deadline and my_turn(page):
        actions = legal(page)
        phase = page.get_attribute(".rt", "data-phase")
        if not actions:
            continue
        if phase == "reroll" and "reroll" not in seen:
            # pick one die with Enter (dice are buttons), then "roll selected again"
            assert tab_to(page, "#rt-dice .rt-die.rt-clickable")
            page.keyboard.press("Enter")
            page.wait_for_selector("#rt-reroll:not([disabled])")
            press(page, "#rt-reroll")
            seen.add("reroll")
        elif phase == "build" and any(a.startswith("work:") for a in actions) and "work" not in seen:
            work = next(a for a in actions if a.startswith("work:"))
            press(page, f'#board [data-action="{work}"]')  # a "+1" on the sheet
            seen.add("work")
        elif phase == "buy" and page.locator("#picker-buy").count():
            # the picker: arrow keys in the radio group pick a development (cheapest payment preset)
            if page.locator("#picker-buy .picker-bases input").count() > 1:
                assert tab_to(page, "#picker-buy .picker-bases input")
                page.keyboard.press("ArrowDown")
                page.keyboard.press("ArrowUp")
            page.wait_for_selector("#picker-buy .picker-ok:not([disabled])")
            shot(page, "keyboard-rolltheages-buy")
            press(page, "#picker-buy .picker-ok")
            seen.add("buy")
        elif "done" in actions and page.locator(on_board("done")).count():
            press(page, on_board("done"))
        elif phase == "choose" and page.locator("#rt-choose:not([disabled])").count():
            press(page, "#rt-choose")
        else:
            target = next((a for a in actions if page.locator(on_board(a)).count()), None)
            if target:
                press(page, on_board(target))
            else:
                press_listed(page, actions[0])
    shot(page, "keyboard-rolltheages")
    assert {"reroll", "work", "buy"} <= seen, seen
