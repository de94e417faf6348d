"""A lobby that holds with two server processes (issue 15, part 3), on SQLite and PostgreSQL.

Two real ``ludothek serve`` processes share one database.  In every round two
players send conflicting lobby requests at the same moment, one to each
process: a leave against the join that fills the game, a cancel against a join,
a declined invitation against an accepted one.  Whatever order the database
picks, no game may run with an empty seat or be cancelled after it started, and
``lobby_problems`` must find nothing.  The second half damages a database by
hand, as the old code could, and checks that ``ludothek admin check-lobby``
finds and mends it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import insert, select, update

from ludothek.cli import main as cli_main
from ludothek.storage import make_engine, migrate
from ludothek.storage.lobby_check import lobby_problems
from ludothek.storage.models import ActionRow, GameRow, SeatRow, utcnow
from tests.portal.server import serve_processes

ROUNDS = 40


@pytest.fixture
def two_servers(any_db: str, tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    with serve_processes(any_db, 2, tmp_path, {"LUDOTHEK_BOT_DELAY": "0", "LUDOTHEK_RATE_LIMITS": "off"}) as bases:
        yield bases[0], bases[1], any_db


def _user(base: str, name: str) -> dict[str, str]:
    r = httpx.post(base + "/api/users", json={"name": name, "password": "password-" + name}, timeout=30)
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _at_once(*calls: Callable[[], httpx.Response]) -> list[httpx.Response]:
    """Send the calls from separate threads released together."""
    barrier = threading.Barrier(len(calls))
    out: list[httpx.Response | None] = [None] * len(calls)

    def run(i: int, call: Callable[[], httpx.Response]) -> None:
        barrier.wait()
        out[i] = call()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r is not None for r in out)
    return [r for r in out if r is not None]


def _game(any_db: str, gid: int) -> tuple[str, list[str]]:
    engine = make_engine(any_db)
    try:
        with engine.begin() as conn:
            status = conn.execute(select(GameRow.status).where(GameRow.id == gid)).scalar_one()
            kinds = list(conn.execute(select(SeatRow.kind).where(SeatRow.game_id == gid).order_by(SeatRow.seat)).scalars())
    finally:
        engine.dispose()
    return status, kinds


def test_conflicting_lobby_requests_on_two_processes_never_corrupt_a_game(two_servers: tuple[str, str, str]) -> None:
    one, two, any_db = two_servers
    ann, bob, cid, dan = (_user(one, n) for n in ("ann", "bob", "cid", "dan"))
    client = httpx.Client(timeout=30)
    outcomes: dict[str, set[str]] = {"leave/join": set(), "cancel/join": set(), "decline/accept": set()}
    for _ in range(ROUNDS):
        # A leave against the join that fills the game.
        gid = client.post(one + "/api/games", json={"game": "machikoro", "players": 3}, headers=ann).json()["id"]
        assert client.post(f"{one}/api/games/{gid}/join", headers=bob).status_code == 200
        leave, join = _at_once(
            lambda gid=gid: client.post(f"{one}/api/games/{gid}/leave", headers=bob),
            lambda gid=gid: client.post(f"{two}/api/games/{gid}/join", headers=cid),
        )
        assert leave.status_code in (200, 409) and join.status_code in (200, 409), (leave.text, join.text)
        status, kinds = _game(any_db, gid)
        if status == "running":
            assert kinds.count("player") == 3 and leave.status_code == 409
        else:
            assert status == "open" and kinds.count("open") == 1
            assert client.post(f"{two}/api/games/{gid}/cancel", headers=ann).status_code == 200
        outcomes["leave/join"].add(status)

        # A cancel against a join.
        gid = client.post(two + "/api/games", json={"game": "machikoro", "players": 2}, headers=ann).json()["id"]
        cancel, join = _at_once(
            lambda gid=gid: client.post(f"{one}/api/games/{gid}/cancel", headers=ann),
            lambda gid=gid: client.post(f"{two}/api/games/{gid}/join", headers=bob),
        )
        status, kinds = _game(any_db, gid)
        assert (status, cancel.status_code, join.status_code) in (("cancelled", 200, 409), ("running", 409, 200))
        outcomes["cancel/join"].add(status)

        # A declined invitation against the accepted one that would complete the game.
        seats = [{"kind": "me"}, {"kind": "invite", "user": "cid"}, {"kind": "invite", "user": "dan"}]
        gid = client.post(one + "/api/games", json={"game": "machikoro", "players": 3, "seats": seats},
                          headers=ann).json()["id"]
        assert client.post(f"{two}/api/games/{gid}/join", headers=cid).status_code == 200
        decline, accept = _at_once(
            lambda gid=gid: client.post(f"{one}/api/games/{gid}/leave", headers=cid),
            lambda gid=gid: client.post(f"{two}/api/games/{gid}/join", headers=dan),
        )
        status, kinds = _game(any_db, gid)
        if status == "running":
            assert kinds.count("player") == 3 and decline.status_code == 409
        else:
            assert status == "open" and "open" in kinds and accept.status_code == 200
            assert client.post(f"{one}/api/games/{gid}/cancel", headers=ann).status_code == 200
        outcomes["decline/accept"].add(status)
    engine = make_engine(any_db)
    try:
        assert lobby_problems(engine) == []
    finally:
        engine.dispose()
    client.close()


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
