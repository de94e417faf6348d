"""Undo that a player can use, in a real browser against a bot, per game and per Snowdonia map (issue 29).

The player chooses 30 seconds to take back a turn on the account page, plays until a decision ends their
turn (the "Confirm turn" button and the countdown appear, the bot waits), takes it back, makes another
decision and confirms: the undone decision is gone from the board (struck through in the log, taken back
in the record) and the game goes on.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from ludothek import engine as eng
from ludothek.engine.records import taken_back
from tests.browser_support import click, click_action, legal_actions, new_game, register, seq_of, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _choose_grace(page: Any, server: str, seconds: int) -> None:
    page.goto(f"{server}/account")
    page.select_option("#handover-seconds", str(seconds))
    page.click("#handover-form button")
    page.wait_for_selector("#handover-seconds")
    assert page.eval_on_selector("#handover-seconds", "e => e.value") == str(seconds)


def _play_until_my_turn_waits(page: Any, avoid: str | None = None, seconds: float = 120) -> tuple[str, str]:
    """Play (the first legal action, not ``avoid`` when there is another) until my turn waits for my
    confirmation; the board before the decision that ended it, and that decision."""
    deadline = time.monotonic() + seconds
    board, action = "", ""
    while time.monotonic() < deadline:
        if page.locator("#confirm-turn").count():
            return board, action
        if page.get_attribute("#game", "data-my-turn") == "yes":
            actions = legal_actions(page)
            if actions:
                board = page.inner_html("#board")
                action = next((a for a in actions if a != avoid), actions[0])
                click_action(page, action)
                continue
        time.sleep(0.05)
    raise AssertionError("my turn never waited for my confirmation")


@pytest.mark.parametrize(("game", "options", "lang"), [
    ("machikoro", {}, "en"),
    ("rolltheages", {}, "en"),
    ("snowdonia", {"map": "mount_snowdon"}, "en"),
    ("snowdonia", {"map": "blaenau_ffestiniog"}, "de"),
    ("carpediem", {}, "de"),
])
def test_decide_undo_decide_again_confirm(browser: Any, server: str, game: str, options: dict[str, str],
                                          lang: str) -> None:
    name = f"hana{game[:4]}{options.get('map', '')[:2]}"
    page = register(browser, server, name, lang=lang)
    _choose_grace(page, server, 30)
    new_game(page, server, game, ["bot"], options)
    page.wait_for_selector("#game[data-status=running]")
    gid = int(page.get_attribute("#game", "data-game"))
    tag = f"handover-{game}-{options.get('map', 'base')}"

    board_before, undone = _play_until_my_turn_waits(page)
    confirm = page.inner_text("#confirm-turn")
    assert ("Zug bestätigen" if lang == "de" else "Confirm turn") in confirm
    assert page.locator("#handover [data-countdown]").count() == 1
    seq = seq_of(page)
    time.sleep(0.6)  # the bot would have moved by now (no delay in tests): it waits for my confirmation
    assert seq_of(page) == seq and page.locator("#confirm-turn").count() == 1
    shot(page, f"{tag}-waiting")
    # On a phone the waiting turn's controls fit the width (whatever the board below does).
    page.set_viewport_size({"width": 390, "height": 844})
    right = page.evaluate("() => Math.max(...[...document.querySelectorAll('#handover, #handover *')]"
                          ".map(e => e.getBoundingClientRect().right))")
    assert right <= 390, f"the hand-over controls reach {right}px on a 390px phone"
    assert page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('#handover small')).fontSize)") >= 11
    shot(page, f"{tag}-waiting-phone")
    page.set_viewport_size({"width": 1360, "height": 900})

    click(page, "#undo")
    # The decision is gone from the board.  The undo's answer and the live update of the same move may
    # arrive in either order on a loaded machine; the board settles on the position before the decision.
    deadline = time.monotonic() + 5
    while page.inner_html("#board") != board_before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert page.inner_html("#board") == board_before
    struck = page.locator(".log-list del")
    assert struck.count() >= 1 and page.locator("#confirm-turn").count() == 0
    shot(page, f"{tag}-undone")

    _, kept = _play_until_my_turn_waits(page, avoid=undone)
    shot(page, f"{tag}-again")
    page.locator("#confirm-turn").click()
    page.wait_for_selector("#confirm-turn", state="detached")
    page.wait_for_function("() => !document.getElementById('handover')")
    shot(page, f"{tag}-confirmed")

    # The record: the undone decision is followed by its undo and taken back; it replays to the board.
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    record = httpx.get(f"{server}/api/games/{gid}/record", cookies=cookies).json()
    actions = record["actions"]
    seat = httpx.get(f"{server}/api/games/{gid}?log=false", cookies=cookies).json()["my_seat"]
    undo_at = max(i for i, a in enumerate(actions) if a["action"] == eng.UNDO)
    gone = taken_back(actions)
    mine = [i for i in gone if actions[i]["seat"] == seat]
    assert mine and actions[max(mine)]["action"] == undone and max(mine) < undo_at
    if kept != undone:
        assert any(a["action"] == kept for a in actions[undo_at + 1:])
    page.context.close()
