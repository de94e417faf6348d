"""Round starts hold with two processes and survive kill -9 (issue 31), on SQLite and PostgreSQL.

Two processes, each with its own engine, run the round job at the same moment (a barrier releases
them) for tournaments due to start and then due for their second round: every round must exist once,
every entrant be seated once per round.  Then a process is killed with SIGKILL inside a round start's
transaction, after it wrote the round's games: nothing of the round may be left, and the next run of
the job starts it exactly once.  The runs are `ludothek.devtools.tournamentraces`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ludothek.devtools.tournamentraces import kill_during_round_start, race_round_starts

pytestmark = pytest.mark.slow


def test_two_processes_start_each_round_once(any_db: str) -> None:
    report = race_round_starts(any_db, count=4, entrants=5, processes=2)
    assert report.problems == []
    assert report.tournaments == 4
    # Each phase: the two processes' changes add up to one per tournament (whoever won each claim).
    assert [sum(a) for a in report.started] == [4, 4]


def test_kill_9_during_a_round_start_loses_nothing_and_the_round_starts_once(any_db: str, tmp_path: Path) -> None:
    report = kill_during_round_start(any_db, tmp_path)
    assert report.problems == []
    assert report.killed_in == ["1 1", "1 2"]  # killed inside round 1's start, then round 2's
    assert report.left_after_kill == []
    assert report.after_restart == [1, 1]
    assert report.passed
