"""Backups: ``ludothek backup`` copies a running database; ``ludothek restore`` brings it back whole."""

from __future__ import annotations

import random
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.cli import main
from ludothek.devtools.postgres import UNREACHABLE, postgres_url, reset_database
from ludothek.portal import create_app
from ludothek.services import Site
from ludothek.storage import StaleMove
from tests.conftest import needs
from tests.portal.conftest import make_settings


def _play(site: Site, gid: int, moves: int, rng: random.Random) -> None:
    for _ in range(moves):
        with site.play.state(gid) as (info, tracked):
            if info.status != "running" or tracked is None or info.to_move < 0:
                return
            legal = tracked.state.legal_actions()
            seat, seq = info.to_move, info.seq
        if info.is_bot_seat(seat):
            return
        try:
            site.play.submit(gid, rng.choice(legal), seq, seat=seat)
        except StaleMove:  # a bot or another thread moved first
            continue


def _games(site: Site) -> dict[str, Any]:
    """Every game as the store serves it: status, sequence number, and each seat's view and record."""
    out: dict[str, Any] = {}
    for gid in _game_ids(site):
        info = site.games.game(gid)
        entry: dict[str, Any] = {"status": info.status, "seq": info.seq}
        if info.status in ("running", "finished"):
            entry["record"] = site.play.record(gid)["actions"]
            with site.play.state(gid) as (_, tracked):
                assert tracked is not None
                entry["views"] = [tracked.state.view(seat) for seat in range(info.num_players)]
        out[str(gid)] = entry
    return out


def _game_ids(site: Site) -> list[int]:
    from sqlalchemy import text

    with site.engine.connect() as conn:
        return [int(r[0]) for r in conn.execute(text("SELECT id FROM games ORDER BY id"))]


def _setup_games(site: Site) -> None:
    rng = random.Random(7)
    alice = site.accounts.register("alice", "password-alice")
    bob = site.accounts.register("bob", "password-bob")
    for length, moves in (("short", 400), ("long", 3), ("long", 9), ("long", 0)):
        gid = site.lobby.create_game(alice, "toypig", 2, {"length": length})
        site.lobby.join(gid, bob)
        _play(site, gid, moves, rng)
    site.lobby.create_game(alice, "toypig", 2, {})  # still waiting for a player
    site.lobby.create_game(bob, "toypig", 2, {}, [{"kind": "me"}, {"kind": "bot"}])  # a bot plays


def _wait_for_bots(app: Any) -> None:
    import time

    deadline = time.monotonic() + 20
    while not app.state.portal.bots.idle() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_restored_copy_serves_every_game_to_its_last_move(tmp_path: Path) -> None:
    live = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    copy = tmp_path / "backup.sqlite3"
    app = create_app(make_settings(live))
    with TestClient(app):
        site = app.state.portal.site
        _setup_games(site)
        _wait_for_bots(app)
        # The server is running: the latest moves sit in the write-ahead log, not yet in the main file.
        assert (tmp_path / "live.sqlite3-wal").stat().st_size > 0
        expected = _games(site)
        assert {g["status"] for g in expected.values()} >= {"open", "running", "finished"}
        assert main(["backup", str(copy), "--db", live]) == 0
        # Moves after the backup are not in it.
        running = next(int(gid) for gid, g in expected.items() if g["status"] == "running")
        _play(site, running, 2, random.Random(1))
        assert site.games.game(running).seq > expected[str(running)]["seq"]

    restored = f"sqlite:///{tmp_path / 'restored.sqlite3'}"
    assert main(["restore", str(copy), "--db", restored]) == 0
    app2 = create_app(make_settings(restored))
    with TestClient(app2) as client:
        assert _games(app2.state.portal.site) == expected
        # Served to the last move through the API too, and playable on from there.
        token = client.post("/api/tokens", json={"name": "alice", "password": "password-alice"}).json()["token"]
        for gid, g in expected.items():
            r = client.get(f"/api/games/{gid}", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text
            assert r.json()["seq"] == g["seq"] and r.json()["status"] == g["status"]


def test_a_backup_while_moves_are_written_is_one_moment(tmp_path: Path) -> None:
    """Every game in the copy is whole: its move counter and its stored actions agree."""
    live = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    app = create_app(make_settings(live))
    with TestClient(app):
        site = app.state.portal.site
        alice = site.accounts.register("alice", "password-alice")
        bob = site.accounts.register("bob", "password-bob")
        gids = []
        for _ in range(4):
            gid = site.lobby.create_game(alice, "toypig", 2, {"length": "long"})
            site.lobby.join(gid, bob)
            gids.append(gid)
        stop = threading.Event()

        def mover(gid: int) -> None:
            rng = random.Random(gid)
            while not stop.is_set() and site.games.game(gid).status == "running":
                _play(site, gid, 1, rng)

        threads = [threading.Thread(target=mover, args=(g,)) for g in gids]
        for t in threads:
            t.start()
        try:
            copies = [tmp_path / f"copy{i}.sqlite3" for i in range(3)]
            for c in copies:
                assert main(["backup", str(c), "--db", live]) == 0
        finally:
            stop.set()
            for t in threads:
                t.join()
    for c in copies:
        conn = sqlite3.connect(c)
        rows = conn.execute(
            "SELECT g.id, g.seq, (SELECT count(*) FROM actions a WHERE a.game_id = g.id), "
            "(SELECT coalesce(max(seq), -1) FROM actions a WHERE a.game_id = g.id) FROM games g").fetchall()
        conn.close()
        assert rows and all(seq == count == top + 1 for _, seq, count, top in rows), rows


def test_bad_backups_are_refused_and_change_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live = tmp_path / "live.sqlite3"
    url = f"sqlite:///{live}"
    assert main(["backup", str(tmp_path / "x.sqlite3"), "--db", url]) == 1
    assert "there is no database" in capsys.readouterr().err
    app = create_app(make_settings(url))
    with TestClient(app):
        app.state.portal.site.accounts.register("alice", "password-alice")
    before = live.read_bytes()
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database" * 100)
    assert main(["restore", str(junk), "--db", url]) == 1
    assert "not an SQLite database" in capsys.readouterr().err
    empty = tmp_path / "empty.sqlite3"
    sqlite3.connect(empty).execute("CREATE TABLE t (x)").connection.commit()
    assert main(["restore", str(empty), "--db", url]) == 1
    assert "not a Ludothek database" in capsys.readouterr().err
    assert main(["restore", str(tmp_path / "missing.sqlite3"), "--db", url]) == 1
    assert live.read_bytes() == before


@pytest.mark.postgres
def test_postgres_backup_and_restore(tmp_path: Path) -> None:
    any_db = postgres_url()
    needs(None if any_db else UNREACHABLE)
    assert any_db is not None
    needs(None if shutil.which("pg_dump") and shutil.which("pg_restore") else "pg_dump/pg_restore not installed")
    reset_database(any_db)
    app = create_app(make_settings(any_db))
    with TestClient(app):
        site = app.state.portal.site
        _setup_games(site)
        _wait_for_bots(app)
        expected = _games(site)
    dump = tmp_path / "ludothek.dump"
    assert main(["backup", str(dump), "--db", any_db]) == 0
    reset_database(any_db)
    assert main(["restore", str(dump), "--db", any_db]) == 0
    app2 = create_app(make_settings(any_db))
    with TestClient(app2):
        assert _games(app2.state.portal.site) == expected
    reset_database(any_db)
