"""Replaying move/undo pairs is linear in the record's length (issue 28: 9,850 pairs cost a minute).

The work is counted, not timed: the Python lines run in the engine and the game while a record
replays (``sys.settrace``).  Four times the pairs may cost about four times the lines, not sixteen.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from ludothek import engine as eng
from ludothek.devtools.replaybomb import bomb
from ludothek.services.tracked import Tracked


def lines_run(work: Callable[[], Any]) -> int:
    """How many lines of Ludothek's own code ``work`` runs."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if "ludothek" not in frame.f_code.co_filename:
            return None
        if event == "line":
            count += 1
        return trace

    sys.settrace(trace)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


def _ratio(work: Callable[[dict[str, Any]], Any]) -> float:
    small, large = bomb(real=10, pairs=200), bomb(real=10, pairs=800)
    assert eng.replay(small).snapshot() == eng.replay(large).snapshot()
    ratio = lines_run(lambda: work(large)) / lines_run(lambda: work(small))
    return ratio


def test_replaying_undo_pairs_is_linear() -> None:
    assert _ratio(eng.replay) < 5


def test_the_log_of_undo_pairs_is_linear() -> None:
    assert _ratio(lambda rec: eng.log(rec, "all", "en")) < 5


def test_a_cached_game_and_its_log_writer_undo_linearly() -> None:
    def tracked(rec: dict[str, Any]) -> None:
        game = Tracked(eng.initial_state(rec))
        for entry in rec["actions"]:
            game.apply(eng.CHANCE if entry["seat"] == "chance" else entry["seat"], entry["action"])
        assert len(game.log) == len(rec["actions"])

    assert _ratio(tracked) < 5


def test_undo_with_a_kept_position_restores_it_and_keeps_the_bookkeeping() -> None:
    rec = bomb(real=30, pairs=5)
    state = eng.replay(rec)
    plain = eng.initial_state(rec)
    for entry in rec["actions"]:  # the old way: every undo replays the game
        if entry["action"] == eng.UNDO:
            plain.undo(entry["seat"])
        else:
            plain.apply_action(entry["action"])
    assert state.snapshot() == plain.snapshot()
    assert state.history() == plain.history()
    assert state._in_force() == plain._in_force() and state.undone() == plain.undone()
    seat = state.current_player()
    assert state.undo_refusal(seat) == plain.undo_refusal(seat)
    assert state.undo_refusal(1 - seat) == plain.undo_refusal(1 - seat)
