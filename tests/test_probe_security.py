"""The security regression probe (``python -m benchmarks.probe_security``): its pieces can fail, and it runs.

The probe's figures are only worth keeping if its checks can see a broken lobby and its bombs are
valid records; and ``make probe`` must not rot unseen.  Timings are not asserted here.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from benchmarks import probe_security
from benchmarks.probe_floods import bomb_record
from ludothek import engine as eng
from ludothek.devtools.lobbyraces import KINDS, Stored


class FakeLobby:
    """Answers a race with chosen status codes and a chosen stored game, without any server."""

    one, two = "http://one", "http://two"
    ids = {"ann": 1, "bob": 2, "cid": 3, "dan": 4}

    def __init__(self, codes: tuple[int, int], game: Stored) -> None:
        self.codes, self.game = codes, game

    def create(self, players: int, seats: Any = None, base: str | None = None) -> int:
        return 9

    def setup(self, base: str, path: str, who: str, body: Any = None) -> httpx.Response:
        return httpx.Response(200)

    def at_once(self, *calls: Any) -> list[httpx.Response]:
        return [httpx.Response(c) for c in self.codes]

    def stored(self, gid: int) -> Stored:
        return self.game


RUNNING_WITH_EMPTY_SEAT = Stored("running", ["player", "open", "player"], [1, None, 3], 2)
CANCELLED_AFTER_START = Stored("cancelled", ["player", "player"], [1, 2], 3)


@pytest.mark.parametrize(("kind", "codes", "game"), [
    ("leave/join", (409, 200), RUNNING_WITH_EMPTY_SEAT),
    ("leave/join", (200, 200), Stored("running", ["player"] * 3, [1, 3, 3], 2)),  # one person twice
    ("cancel/join", (200, 200), CANCELLED_AFTER_START),
    ("cancel/join", (200, 409), CANCELLED_AFTER_START),
    ("decline/accept", (409, 200), RUNNING_WITH_EMPTY_SEAT),
    ("join/join", (200, 200), Stored("running", ["player", "player"], [1, 2], 2)),  # both won
    ("join/join", (200, 409), Stored("running", ["player", "player"], [1, 3], 2)),  # the loser seated
    ("double-join", (200, 200), Stored("open", ["player", "player", "open"], [1, 2, None], 0)),
    ("cancel/leave", (200, 200), CANCELLED_AFTER_START),
    ("cancel/accept", (409, 409), Stored("open", ["player", "invited"], [1, 4], 0)),
])
def test_every_kind_of_race_sees_an_inconsistent_outcome(kind: str, codes: tuple[int, int], game: Stored) -> None:
    problem, _ = KINDS[kind](FakeLobby(codes, game))  # type: ignore[arg-type]
    assert problem is not None


@pytest.mark.parametrize(("kind", "codes", "game"), [
    ("leave/join", (409, 200), Stored("running", ["player"] * 3, [2, 1, 3], 2)),
    ("cancel/join", (409, 200), Stored("running", ["player", "player"], [2, 1], 2)),
    ("join/join", (409, 200), Stored("running", ["player", "player"], [3, 1], 2)),
    ("cancel/leave", (200, 409), Stored("cancelled", ["player", "player", "open"], [1, 2, None], 0)),
])
def test_a_consistent_outcome_passes(kind: str, codes: tuple[int, int], game: Stored) -> None:
    problem, _ = KINDS[kind](FakeLobby(codes, game))  # type: ignore[arg-type]
    assert problem is None


def test_the_replay_bomb_is_a_valid_record_of_the_asked_size() -> None:
    for seed in range(7, 20):  # random games mostly end before 300 entries: the bomb must not
        record = bomb_record(300, 40, seed=seed)
        real = len(record["actions"]) - 80
        assert 300 <= real < 320 and "result" not in record
        assert record["actions"][-1]["action"] == eng.UNDO
        state = eng.replay(record)
        assert state.move_number() == real + 80 and not state.is_terminal()
    assert bomb_record(300, 2, seed=1007)["actions"] != bomb_record(300, 2)["actions"]  # each bomb its own


def test_full_sets_the_issues_scale_but_an_explicit_knob_wins() -> None:
    args = probe_security.parse(["--full", "--rounds", "3"])
    assert args.rounds == 3 and args.replay_pairs == 9850
    assert probe_security.parse([]).parts == list(probe_security.PARTS)
    with pytest.raises(SystemExit):
        probe_security.parse(["--only", "races,nonsense"])


def test_flood_targets_fail_the_run_only_when_strict() -> None:
    table = probe_security.Table(strict=False)
    table.add("floods", "sqlite", "others' p99", 900.0, "< 200", False, strict_only=True)
    assert table.broken == []
    table.add("races", "sqlite", "inconsistent games", 1, "= 0", False)
    assert [r.name for r in table.broken] == ["inconsistent games"]
    strict = probe_security.Table(strict=True)
    strict.add("floods", "sqlite", "others' p99", 900.0, "< 200", False, strict_only=True)
    assert len(strict.broken) == 1


def test_the_probe_runs_races_on_sqlite(capsys: pytest.CaptureFixture[str]) -> None:
    assert probe_security.main(["--only", "races", "--db", "sqlite", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "inconsistent games" in out and "0 bar(s) broken" in out
