"""The store on SQLite and PostgreSQL: migrations, concurrent moves, restarts."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest
from sqlalchemy import inspect

from ludothek import engine as eng
from ludothek.devtools.postgres import UNREACHABLE, postgres_url, reset_database
from ludothek.portal.gameview import engine_log_equivalent
from ludothek.services import Site
from ludothek.storage import (
    Conflict,
    IllegalMove,
    StaleMove,
    db,
    head_revision,
    make_engine,
    migrate,
    schema_revision,
)
from ludothek.workers.bots import bot_step
from tests.conftest import needs
from tests.portal.conftest import FAST_HASHER


def new_site(url: str) -> Site:
    engine = make_engine(url)
    migrate(engine)
    return Site(engine, hasher=FAST_HASHER)


def test_migration_from_empty_database(any_db: str) -> None:
    engine = make_engine(any_db)
    assert schema_revision(engine) is None
    migrate(engine)
    assert schema_revision(engine) == head_revision()
    tables = set(inspect(engine).get_table_names())
    assert {"users", "api_tokens", "games", "seats", "actions", "meta"} <= tables
    migrate(engine)  # running it again is harmless
    assert schema_revision(engine) == head_revision()
    engine.dispose()


def _two_player_game(site: Site) -> int:
    a = site.accounts.register("alice", "password-a")
    b = site.accounts.register("bob", "password-b")
    gid = site.lobby.create_game(a, "toypig", 2, {"length": "long"})
    site.lobby.join(gid, b)
    return gid


def test_concurrent_submissions_exactly_one_wins(any_db: str) -> None:
    """Two server processes (two stores, each with its own cache) get the same move at the same moment."""
    first = new_site(any_db)
    gid = _two_player_game(first)
    sites = [first, new_site(any_db)]
    for _ in range(8):  # several rounds, both caches warm
        info = first.games.game(gid)
        if info.status != "running":
            break
        for s in sites:
            with s.play.state(gid):
                pass
        outcomes: list[str] = []
        barrier = threading.Barrier(len(sites) * 2)

        def submit(site: Site, info: Any = info, outcomes: list[str] = outcomes,
                   barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                site.play.submit(gid, "roll", info.seq, seat=info.to_move)
                outcomes.append("ok")
            except Conflict as exc:
                outcomes.append("stale" if isinstance(exc, StaleMove) else f"conflict: {exc}")

        threads = [threading.Thread(target=submit, args=(s,)) for s in sites for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["ok", "stale", "stale", "stale"], outcomes
        after = first.games.game(gid)
        rec = first.play.record(gid)
        assert len(rec["actions"]) == after.seq
        assert [a["action"] for a in rec["actions"]].count("roll") == sum(
            1 for a in eng.replay(rec).history() if a.action == "roll"
        )
    for s in sites:
        s.engine.dispose()


def test_cached_move_checked_against_the_database(any_db: str) -> None:
    """A move against the cached position is stored without reading the game first (the fast path):
    when another server moved meanwhile, the optimistic write refuses it and the stale cache is dropped."""
    mine = new_site(any_db)
    gid = _two_player_game(mine)
    other = new_site(any_db)
    info = mine.games.game(gid)
    with mine.play.state(gid):  # warm cache at info.seq
        pass
    with pytest.raises(IllegalMove):  # refused before anything changes, cache intact
        mine.play.submit(gid, "no such action", info.seq, seat=info.to_move)
    with mine.play.state(gid) as (_, tracked):
        assert tracked is not None and tracked.state.move_number() == info.seq
    other.play.submit(gid, "roll", info.seq, seat=info.to_move)  # the other server moves first
    with pytest.raises(StaleMove):
        mine.play.submit(gid, "roll", info.seq, seat=info.to_move)
    now = other.games.game(gid)
    assert mine.games.game(gid).seq == now.seq
    with mine.play.state(gid) as (_, tracked):  # replayed from the database, not the refused move
        assert tracked is not None and tracked.state.move_number() == now.seq
        assert [e.action for e in tracked.state.history()] == [a["action"] for a in other.play.record(gid)["actions"]]
    assert len(other.play.record(gid)["actions"]) == now.seq
    for s in (mine, other):
        s.engine.dispose()


def test_restart_with_games_in_progress(any_db: str) -> None:
    site = new_site(any_db)
    gid = _two_player_game(site)
    for _ in range(6):
        info = site.games.game(gid)
        site.play.submit(gid, "roll", info.seq, seat=info.to_move)  # rolling never ends the game
    with site.play.state(gid) as (_, tracked):
        assert tracked is not None
        before = tracked.state.snapshot()
        log_before = tracked.log_for(0, "en")
    seq = site.games.game(gid).seq
    site.engine.dispose()

    again = new_site(any_db)  # a new process: empty cache, state rebuilt by replay
    with again.play.state(gid) as (info, tracked):
        assert tracked is not None
        assert info.seq == seq and info.status == "running"
        assert tracked.state.snapshot() == before
        assert tracked.log_for(0, "en") == log_before
        for viewer in (0, 1, None):
            for lang in ("de", "en"):
                assert tracked.log_for(viewer, lang) == engine_log_equivalent(tracked, viewer, lang)
    info = again.games.game(gid)
    again.play.submit(gid, "hold", info.seq, seat=info.to_move)
    assert again.games.game(gid).seq > seq
    again.engine.dispose()


def test_bots_only_game_plays_to_the_end(any_db: str) -> None:
    site = new_site(any_db)
    a = site.accounts.register("alice", "password-a")
    b = site.accounts.register("bob", "password-b")
    gid = site.lobby.create_game(a, "toypig", 3, {}, [{"kind": "me"}, {"kind": "bot"}, {"kind": "bot"}])
    info = site.games.game(gid)
    assert info.status == "running"
    for _ in range(2000):
        info = site.games.game(gid)
        if info.status == "finished":
            break
        if info.is_bot_seat(info.to_move):
            assert bot_step(site, gid)
        else:
            site.play.submit(gid, "hold", info.seq, seat=info.to_move)
    assert site.games.game(gid).status == "finished"
    assert site.lobby.next_waiting(a.id) is None
    assert site.lobby.my_games(a.id)["finished"][0].id == gid
    assert site.lobby.my_games(b.id)["finished"] == []
    site.engine.dispose()


def test_bots_resume_after_a_restart(tmp_path: Any) -> None:
    """A bot whose turn it was when the server stopped moves as soon as the server is back."""
    import time

    from fastapi.testclient import TestClient

    from ludothek.portal import create_app
    from tests.portal.conftest import api_user, make_settings

    db = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    stopped = TestClient(create_app(make_settings(db)))  # no lifespan: its bot runner never starts
    h = api_user(stopped, "alice")
    seats = [{"kind": "me"}, {"kind": "bot"}, {"kind": "bot"}]
    gid = stopped.post("/api/games", json={"game": "toypig", "players": 3, "seats": seats}, headers=h).json()["id"]
    g = stopped.get(f"/api/games/{gid}", headers=h).json()
    # Alice hands the turn on to a bot.  The dice are real: after her move both bots' first die can show
    # a 1 and pass the turn straight back to her (1 in 36), so she rolls until it has passed; a roll of 1
    # passes it, and rolling never ends the game (holding twice could).
    for _ in range(1000):
        if not g["my_turn"]:
            break
        g = stopped.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": g["seq"]}, headers=h).json()
    assert not g["my_turn"] and g["status"] == "running"
    with TestClient(create_app(make_settings(db))) as restarted:
        for _ in range(200):
            now = restarted.get(f"/api/games/{gid}", headers=h).json()
            if now["my_turn"] or now["status"] == "finished":
                break
            time.sleep(0.02)
    assert now["seq"] > g["seq"] and (now["my_turn"] or now["status"] == "finished")


@pytest.mark.postgres
def test_direct_connections_replace_a_cut_one_and_close_on_dispose(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hot single statements run on autocommit connections outside the pool (PostgreSQL): a
    connection the server cut is pinged and replaced before use, and ``dispose`` closes them all."""
    url = postgres_url()
    needs(None if url else UNREACHABLE)
    assert url is not None
    reset_database(url)
    site = new_site(url)
    gid = _two_player_game(site)
    pid = site.db.read_one("SELECT pg_backend_pid()", ())[0]
    assert site.db.read_one("SELECT pg_backend_pid()", ())[0] == pid  # the same connection, reused
    assert site.db.read_one("SHOW transaction_isolation", ()) is not None
    with site.engine.begin() as conn:  # the server cuts it (a restart, an administrator)
        conn.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 0.0)  # as if it had been idle a while: pinged first
    assert site.db.read_one("SELECT pg_backend_pid()", ())[0] != pid
    info = site.games.game(gid)
    site.play.submit(gid, "roll", info.seq, seat=info.to_move)  # the one-statement move on a direct connection
    assert site.games.game(gid).seq > info.seq
    direct = site.db.direct
    assert direct is not None and len(direct._idle) == 1  # one connection, and it keeps its one cursor
    pid, cur = site.db.read_one("SELECT pg_backend_pid()", ())[0], direct._idle[0][1]
    with pytest.raises(psycopg.IntegrityError):  # a statement the database refuses: the connection stays
        site.db.single("INSERT INTO actions (game_id, seq, seat, action, created_at) "
                      "SELECT game_id, seq, seat, action, created_at FROM actions WHERE game_id = %s LIMIT 1",
                      (gid,))
    assert direct._idle[0][1] is cur and site.db.read_one("SELECT pg_backend_pid()", ())[0] == pid
    with pytest.raises(psycopg.errors.DivisionByZero):  # any other failure: that connection is closed
        site.db.read_one("SELECT 1 / 0", ())
    assert cur.connection.closed and not direct._idle and site.db.read_one("SELECT pg_backend_pid()", ())[0] != pid
    assert direct is not None and direct._idle
    conns = [c for c, _cur, _since in direct._idle]
    site.engine.dispose()
    assert not direct._idle and all(c.closed for c in conns)
    reset_database(url)
