"""A lobby that holds with two server processes (issue 15, part 3), on SQLite and PostgreSQL.

Two real ``ludothek serve`` processes share one database.  In every round two
players send conflicting lobby requests at the same moment, one to each
process: every kind in `ludothek.devtools.lobbyraces` (a leave against the join
that fills the game, a cancel against a join, a declined invitation against an
accepted one, two joins for the last seat, ...).  Whatever order the database
picks, no game may run with an empty seat or be cancelled after it started, and
``lobby_problems`` must find nothing.  ``python -m benchmarks.probe_security``
runs the same races at the issue's scale.  The second half damages a database by
hand, as the old code could, and checks that ``ludothek admin check-lobby``
finds and mends it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import insert, select, update

from ludothek.cli import main as cli_main
from ludothek.devtools.lobbyraces import KINDS, run_races
from ludothek.storage import make_engine, migrate
from ludothek.storage.models import ActionRow, GameRow, SeatRow, utcnow
from tests.portal.server import serve_processes

#: Rounds of every kind of race (seven kinds).
ROUNDS = 17


@pytest.fixture
def two_servers(any_db: str, tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    with serve_processes(any_db, 2, tmp_path, {"LUDOTHEK_BOT_DELAY": "0", "LUDOTHEK_RATE_LIMITS": "off"}) as bases:
        yield bases[0], bases[1], any_db


def test_conflicting_lobby_requests_on_two_processes_never_corrupt_a_game(two_servers: tuple[str, str, str]) -> None:
    one, two, any_db = two_servers
    report = run_races([one, two], any_db, ROUNDS)
    assert report.inconsistent == []
    assert report.lobby_problems == []
    assert report.server_errors == []
    assert report.total == ROUNDS * len(KINDS)


def test_check_lobby_finds_and_repairs_old_damage(any_db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A database damaged the way the old code could: ``check-lobby`` reports it, ``--repair`` mends it."""
    engine = make_engine(any_db)
    migrate(engine)
    now = utcnow()
    with engine.begin() as conn:
        ids = []
        for status in ("running", "cancelled", "open"):
            gid = conn.execute(
                insert(GameRow).values(game="machikoro", rules_version="1", num_players=2, options_json="{}",
                                       status=status, created_at=now, seq=1, to_move=0, turn_since=now)
                .returning(GameRow.id)
            ).scalar_one()
            conn.execute(insert(SeatRow), [
                {"game_id": gid, "seat": 0, "kind": "bot", "user_id": None, "bot": "random"},
                {"game_id": gid, "seat": 1, "kind": "open" if status != "cancelled" else "bot", "user_id": None,
                 "bot": None if status != "cancelled" else "random"},
            ])
            if status != "open":
                conn.execute(insert(ActionRow).values(game_id=gid, seq=0, seat=-1, action="x", created_at=now))
            ids.append(gid)
    engine.dispose()
    running, cancelled, waiting = ids

    assert cli_main(["admin", "check-lobby", "--db", any_db]) == 1
    report = capsys.readouterr().out
    assert f"game {running} has started, but seat 1 is still open" in report
    assert f"game {cancelled} is cancelled, but it had started" in report
    assert f"game {waiting}" not in report

    assert cli_main(["admin", "check-lobby", "--db", any_db, "--repair"]) == 0
    assert cli_main(["admin", "check-lobby", "--db", any_db]) == 0
    assert "the lobby is sound" in capsys.readouterr().out
    engine = make_engine(any_db)
    try:
        with engine.begin() as conn:
            assert conn.execute(select(GameRow.status).where(GameRow.id == cancelled)).scalar_one() == "running"
            assert conn.execute(select(SeatRow.kind).where(SeatRow.game_id == running, SeatRow.seat == 1)).scalar_one() == "bot"
            assert conn.execute(select(GameRow.status).where(GameRow.id == waiting)).scalar_one() == "open"
            conn.execute(update(GameRow).where(GameRow.id == waiting).values(status="open"))
    finally:
        engine.dispose()
