"""Linear replay, the parts issue 34 adds to issue 28's checks (`test_undo_linear.py`): a replay book
of move/undo pairs, a state restored from a snapshot with its rows after it, and the log of a
restored game.  Work is counted in lines run (no timing): four times the pairs may cost about four
times the lines, not sixteen."""

from __future__ import annotations

from typing import Any

from ludothek import engine as eng
from ludothek.devtools.replaybomb import bomb
from ludothek.engine import snapshots
from ludothek.services.community.history import ReplayBook
from ludothek.services.snapkeeper import apply_rows
from ludothek.services.tracked import Tracked
from tests.engine.test_undo_linear import lines_run


def _rows(rec: dict[str, Any]) -> list[tuple[int, str]]:
    return [(eng.CHANCE if a["seat"] == "chance" else a["seat"], a["action"]) for a in rec["actions"]]


def _ratio(work: Any) -> float:
    small, large = bomb(real=10, pairs=200), bomb(real=10, pairs=800)
    return lines_run(lambda: work(large)) / lines_run(lambda: work(small))


def test_a_replay_book_of_undo_pairs_is_built_linearly() -> None:
    def book(rec: dict[str, Any]) -> None:
        b = ReplayBook(rec)
        b.log(0, "all", "en")
        b.state_at(len(rec["actions"]) // 2)

    assert _ratio(book) < 5


def test_rows_after_a_snapshot_apply_linearly() -> None:
    def restore(rec: dict[str, Any]) -> None:
        start = eng.initial_state(rec)
        apply_rows(start, _rows(rec))
        assert start.move_number() == len(rec["actions"])

    assert _ratio(restore) < 5


def test_a_restored_game_writes_its_log_linearly_and_as_the_engine_does() -> None:
    def restored_log(rec: dict[str, Any]) -> None:
        state = snapshots.load(snapshots.dump(eng.replay(rec)))
        tracked = Tracked.restored(state, ["anna", "bruno"])
        assert tracked.log_for(0, "en") == eng.log(rec, 0, "en", names=["anna", "bruno"])

    assert _ratio(restored_log) < 5


def test_restoring_does_not_grow_with_the_length() -> None:
    """Loading a snapshot and wrapping it for the cache: about the same work for 4x the entries."""
    small, large = (snapshots.dump(eng.replay(bomb(real=10, pairs=n))) for n in (200, 800))
    work = [lines_run(lambda d=data: Tracked.restored(snapshots.load(d))) for data in (small, large)]  # type: ignore[misc]
    assert work[1] < 1.5 * work[0]
