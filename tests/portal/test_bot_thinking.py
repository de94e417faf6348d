"""A bot that is thinking says so on its panel (issue 29): the marker is the bot worker's claim in the
database, it reaches open pages through the live hub (in one process, through Redis, or seen in the
database without Redis) and the API state, and it ends with the move, a claim given back, or the lease."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from ludothek.devtools.services import REDIS, port_open
from ludothek.portal import create_app
from ludothek.portal.live.hub import RedisHub
from ludothek.storage.botturns import LEASE, BotTurn
from ludothek.storage.models import utcnow
from ludothek.workers.bots import BotWorker, play_bot_turn
from tests.conftest import needs
from tests.portal.conftest import api_user, make_settings
from tests.portal.test_bot_workers import T0, bot_games, new_site


def test_the_thinking_marker_follows_the_claim(any_db: str) -> None:
    """Set by the claim; cleared by the stored move, by the claim given back and by the lease running out,
    on SQLite and on PostgreSQL; every claim and every claim given back is told to the listeners."""
    site = new_site(any_db)
    heard: list[BotTurn] = []
    site.bots.thinking_listeners.append(heard.append)
    (gid,) = bot_games(site, 1)
    info = site.games.game(gid)
    bot = info.to_move
    assert info.thinking_seat(T0) is None

    turn = site.bots.claim_bot_turn("w1", T0)
    assert turn is not None and turn.game_id == gid and turn.seat == bot and turn.until == T0 + LEASE
    assert heard == [turn]
    assert site.games.game(gid).thinking_seat(T0) == bot
    assert site.games.full(gid).thinking_seat(T0) == bot  # the whole row says the same
    assert site.games.infos([gid])[0].thinking_seat(T0) == bot
    # The lease ran out (a worker that died): nobody is thinking any more.
    assert site.games.game(gid).thinking_seat(T0 + LEASE) is None

    site.bots.release_bot_turn("w1", turn)  # given back: at once
    assert heard[-1] == BotTurn(gid, turn.seq, bot, None)
    assert site.games.game(gid).thinking_seat(T0) is None

    turn = site.bots.claim_bot_turn("w2", T0)
    assert turn is not None and site.games.game(gid).thinking_seat(T0) == bot
    assert play_bot_turn(site, turn)  # the move is stored: the claim names an earlier move now
    after = site.games.game(gid)
    assert after.seq > turn.seq and after.thinking_seat(T0) is None
    site.engine.dispose()


def test_the_api_state_names_the_thinking_bot(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'api.sqlite3'}"
    with TestClient(create_app(make_settings(db, bots_in_process=False, db_watch_interval=0))) as client:
        h = api_user(client, "lena")
        gid = client.post("/api/games", json={"game": "toypig", "players": 2, "options": {"length": "long"},
                                               "seats": [{"kind": "me"}, {"kind": "bot", "bot": "easy"}]},
                          headers=h).json()["id"]
        g = client.get(f"/api/games/{gid}", headers=h).json()
        while g["my_turn"]:
            g = client.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": g["seq"]}, headers=h).json()
        assert g["thinking"] is None
        site = client.app.state.portal.site  # type: ignore[attr-defined]
        turn = site.bots.claim_bot_turn("elsewhere", utcnow())
        assert turn is not None and turn.game_id == gid
        g = client.get(f"/api/games/{gid}", headers=h).json()
        assert g["thinking"] == g["to_move"] == turn.seat
        page = client.get(f"/games/{gid}").text
        assert 'class="thinking"' in page and "thinking…" in page and 'aria-live="polite"' in page
        site.bots.release_bot_turn("elsewhere", turn)
        assert client.get(f"/api/games/{gid}", headers=h).json()["thinking"] is None
        assert "thinking…</small>" not in client.get(f"/games/{gid}").text


def _waiting_game(client: TestClient, h: dict[str, str]) -> int:
    """A toypig game against a bot whose turn it is (the person held)."""
    gid = client.post("/api/games", json={"game": "toypig", "players": 2, "options": {"length": "long"},
                                           "seats": [{"kind": "me"}, {"kind": "bot", "bot": "easy"}]},
                      headers=h).json()["id"]
    g = client.get(f"/api/games/{gid}", headers=h).json()
    while g["my_turn"]:
        g = client.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": g["seq"]}, headers=h).json()
    return int(gid)


def _next_of_type(ws: Any, kind: str) -> dict[str, Any]:
    for _ in range(20):
        message: dict[str, Any] = ws.receive_json()
        if message.get("type") == kind:
            return message
    raise AssertionError(f"no {kind} message")


def test_a_claim_in_the_servers_process_reaches_the_live_socket(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'local.sqlite3'}"
    with TestClient(create_app(make_settings(db, bots_in_process=False, db_watch_interval=0))) as client:
        h = api_user(client, "lena")
        gid = _waiting_game(client, h)
        site = client.app.state.portal.site  # type: ignore[attr-defined]
        seq = site.games.game(gid).seq
        with client.websocket_connect(f"/games/{gid}/live", headers=h) as ws:
            assert ws.receive_json()["type"] == "hello"
            turn = site.bots.claim_bot_turn("here", utcnow())
            assert turn is not None
            message = _next_of_type(ws, "thinking")
            assert message == {"type": "thinking", "game": gid, "seq": seq, "seat": turn.seat,
                               "seconds": message["seconds"]}
            assert 0 < message["seconds"] <= LEASE.total_seconds()
            site.bots.release_bot_turn("here", turn)
            stopped = _next_of_type(ws, "thinking")
            assert stopped["seat"] is None and stopped["seq"] == seq


def test_a_claim_by_a_worker_in_another_process_is_seen_in_the_database(tmp_path: Path) -> None:
    """Without Redis: the server's database watch sees another process's claim and tells the socket once."""
    db = f"sqlite:///{tmp_path / 'watch.sqlite3'}"
    with TestClient(create_app(make_settings(db, bots_in_process=False, db_watch_interval=0.05))) as client:
        h = api_user(client, "lena")
        gid = _waiting_game(client, h)
        worker_site = new_site(db)  # the bot worker's own Site: nothing it does reaches the server's hub
        try:
            seq = worker_site.games.game(gid).seq
            with client.websocket_connect(f"/games/{gid}/live", headers=h) as ws:
                assert ws.receive_json()["type"] == "hello"
                worker = BotWorker(worker_site, delay=0.0, owner="other-process")
                turn = worker_site.bots.claim_bot_turn(worker.owner, utcnow())
                assert turn is not None
                message = _next_of_type(ws, "thinking")
                assert message["seat"] == turn.seat and message["seq"] == seq and message["seconds"] > 0
                assert play_bot_turn(worker_site, turn)
                update = _next_of_type(ws, "update")  # the move ends it: the page fetches its board
                assert update["seq"] > seq
        finally:
            worker_site.engine.dispose()


def test_a_claim_by_a_worker_reaches_another_server_through_redis(tmp_path: Path) -> None:
    """Several processes: the worker publishes the claim through Redis, the server hands it to its socket."""
    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    db = f"sqlite:///{tmp_path / 'redis.sqlite3'}"
    redis_url = f"redis://{REDIS[0]}:{REDIS[1]}/0"
    secret = f"test-{uuid.uuid4().hex}"
    settings = make_settings(db, redis_url=redis_url, bots_in_process=False)
    settings.secret_key = secret
    with TestClient(create_app(settings)) as client:
        h = api_user(client, "lena")
        gid = _waiting_game(client, h)
        worker_site = new_site(db)
        hub = RedisHub(redis_url, deployment=secret)  # as `ludothek bots` sets it up (botprocs.py)
        worker_site.bots.thinking_listeners.append(hub.publish_thinking)
        try:
            with client.websocket_connect(f"/games/{gid}/live", headers=h) as ws:
                assert ws.receive_json()["type"] == "hello"
                turn = worker_site.bots.claim_bot_turn("redis-worker", utcnow())
                assert turn is not None
                message = _next_of_type(ws, "thinking")
                assert message["game"] == gid and message["seat"] == turn.seat and message["seq"] == turn.seq
        finally:
            hub.close_publisher()
            worker_site.engine.dispose()
