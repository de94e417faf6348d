"""Redis going away and coming back (issue 28, items 3 and 4).

Every test here runs against a private ``redis-server`` of its own (`tests.portal.private_redis`),
which it stops and starts; the shared Redis on 6379 is never touched.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.portal.limits import LoginBrake, RateLimits
from ludothek.storage import TooManyAttempts
from tests.portal.conftest import api_user, make_settings
from tests.portal.private_redis import PrivateRedis, private_redis
from tests.portal.server import serve_processes

__all__ = ["private_redis"]  # the fixture, for the tests of this module


@contextmanager
def portal_on(db_url: str, redis: PrivateRedis, **kw: Any) -> Iterator[TestClient]:
    settings = make_settings(db_url, redis_url=redis.url, **kw)
    settings.secret_key = f"test-{uuid.uuid4().hex}"
    with TestClient(create_app(settings)) as client:
        yield client


def test_while_redis_is_down_every_rate_limited_route_keeps_serving(any_db: str, private_redis: PrivateRedis) -> None:
    """Logins, registrations, guests, moves and chat answer as usual while Redis is stopped: the rate
    limits fall back to the process's own counters (never a 500), and a move is stored and answered
    even though its live message cannot be published."""
    with portal_on(any_db, private_redis) as client:
        ann, bob = api_user(client, "ann"), api_user(client, "bob")
        gid = client.post("/api/v1/games", json={"game": "toypig", "players": 2}, headers=ann).json()["id"]
        assert client.post(f"/api/v1/games/{gid}/join", headers=bob).json()["status"] == "running"
        private_redis.stop()
        statuses: dict[str, list[int]] = {}

        def note(kind: str, status: int) -> None:
            statuses.setdefault(kind, []).append(status)

        for i in range(4):
            note("login", client.post("/api/v1/tokens", json={"name": "ann", "password": "password-ann"}).status_code)
            note("guest", client.post("/api/v1/guests").status_code)
            note("register", client.post("/api/v1/users", json={"name": f"carl{i}", "password": "password-carl"})
                 .status_code)
        for i in range(5):
            note("chat", client.post(f"/api/v1/games/{gid}/chat", json={"text": f"hi {i}"}, headers=ann).status_code)
        for i in range(30):
            g = client.get(f"/api/v1/games/{gid}", headers=ann).json()
            if g["status"] != "running":  # toypig ends soon: the next game (creating one is limited too)
                r = client.post("/api/v1/games", json={"game": "toypig", "players": 2}, headers=ann)
                note("create", r.status_code)
                gid = r.json()["id"]
                note("join", client.post(f"/api/v1/games/{gid}/join", headers=bob).status_code)
                g = client.get(f"/api/v1/games/{gid}", headers=ann).json()
            mover = ann if g["my_turn"] else bob
            note("move", client.post(f"/api/v1/games/{gid}/actions", json={"action": "roll" if i % 2 else "hold",
                                                                           "seq": g["seq"]}, headers=mover).status_code)
        # The brakes still hold, on this process's own counts: a sixth wrong password for one name is refused.
        for _ in range(5):
            client.post("/api/v1/tokens", json={"name": "bob", "password": "wrong-wrong"})
        note("brake", client.post("/api/v1/tokens", json={"name": "bob", "password": "wrong-wrong"}).status_code)
    assert all(200 <= s < 300 for kind, ss in statuses.items() if kind != "brake" for s in ss), statuses
    assert statuses["brake"] == [429]
    assert len(statuses["move"]) == 30 and statuses["create"]


def _ready(base: str) -> tuple[int, dict[str, Any]]:
    import httpx

    r = httpx.get(base + "/readyz", timeout=10)
    return r.status_code, r.json()


def _poll(check: Any, seconds: float, what: str) -> Any:
    """``check()`` until it returns something true, for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.1)


def _move(api: Any, gid: int, heads: dict[str, dict[str, str]]) -> int:
    """One legal move by whoever is to move; the game's new sequence number."""
    for who in heads.values():
        g = api.get(f"/games/{gid}", headers=who).json()
        if g["my_turn"] and g["legal"]:
            r = api.post(f"/games/{gid}/actions", json={"action": g["legal"][0]["action"], "seq": g["seq"]},
                         headers=who)
            assert r.status_code == 200, r.text
            seq: int = r.json()["seq"]
            return seq
    raise AssertionError("nobody may move")


def test_live_updates_resume_after_a_redis_restart(private_redis: PrivateRedis, tmp_path: Path) -> None:
    """Two server processes on a private Redis: while Redis is away both say 503 in /readyz (the live
    hub is not listening) and a move is still stored; once Redis is back they resubscribe, a socket on
    the other process hears of that move within 5 s (from the database: its message was lost), both say
    200, and the next move travels through Redis as before.  (SQLite only: the servers' database plays
    no part in this; the outage test above runs on both.)"""
    import httpx
    from websockets.sync.client import connect

    env = {"LUDOTHEK_REDIS": private_redis.url, "LUDOTHEK_BOT_WORKERS": "0", "LUDOTHEK_BOT_DELAY": "0"}
    with serve_processes(f"sqlite:///{tmp_path / 'live.sqlite3'}", 2, tmp_path, env) as (a, b), \
            httpx.Client(base_url=a + "/api/v1", timeout=30) as api:
        heads = {}
        for name in ("ann", "bob"):
            r = api.post("/users", json={"name": name, "password": "password-" + name})
            assert r.status_code == 201, r.text
            heads[name] = {"Authorization": f"Bearer {r.json()['token']}"}
        r = api.post("/games", json={"game": "machikoro", "players": 2}, headers=heads["ann"])
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        assert api.post(f"/games/{gid}/join", headers=heads["bob"]).json()["status"] == "running"
        token = heads["bob"]["Authorization"].split()[1]
        with connect(f"{b.replace('http', 'ws')}/api/v1/games/{gid}/live?token={token}") as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "hello"
            assert all(_ready(base)[0] == 200 for base in (a, b))
            private_redis.stop()
            for base in (a, b):
                _, body = _poll(lambda base=base: (r := _ready(base))[0] == 503 and r, 15, "503 while down")
                assert body["checks"].get("live", "ok") != "ok", body
            # A move while Redis is away, on the other process: stored and answered; its live message is lost.
            moved = _move(api, gid, heads)
            private_redis.start()
            # The watching process resubscribes and catches up from the database: the socket hears of it.
            deadline = time.monotonic() + 5
            while True:
                left = deadline - time.monotonic()
                assert left > 0, "no update within 5 s of Redis being back"
                message = json.loads(ws.recv(timeout=left))
                if message["type"] == "update" and message["seq"] >= moved:
                    break
            for base in (a, b):
                _poll(lambda base=base: _ready(base)[0] == 200, 15, "200 once Redis is back")
            # And the next move travels through Redis as before.
            moved = _move(api, gid, heads)
            message = json.loads(ws.recv(timeout=10))
            while message["type"] != "update" or message["seq"] < moved:  # late news of the first move
                message = json.loads(ws.recv(timeout=10))
            assert message["seq"] == moved


def test_rate_limits_count_locally_while_redis_fails_and_share_again_after(
        private_redis: PrivateRedis, caplog: pytest.LogCaptureFixture) -> None:
    """The fallback in `RateLimits` itself: one warning per outage, the process's own counts meanwhile
    (a limit still refuses), Redis tried again after ``redis_retry``, and shared counts once it answers."""
    rules = {"register": "3/hour", "login_addr": "30/15minutes", "login_pair": "5/15minutes"}
    ns = f"test-{uuid.uuid4().hex}"
    one = RateLimits(private_redis.url, rules, namespace=ns, redis_retry=0.2)
    two = RateLimits(private_redis.url, rules, namespace=ns, redis_retry=0.2)
    one.hit("register", "10.0.0.1")
    assert not one.redis_down
    private_redis.stop()
    with caplog.at_level(logging.WARNING, logger="ludothek.portal.limits"):
        one.hit("register", "10.0.0.2")
        one.hit("register", "10.0.0.2")
        one.hit("register", "10.0.0.2")
        with pytest.raises(TooManyAttempts):  # the brake holds on this process's own count
            one.hit("register", "10.0.0.2")
        brake = LoginBrake(one)
        brake.attempt("ann", "10.0.0.3")
        brake.succeeded("ann", "10.0.0.3")  # refund and clear fall back as well
        assert one.redis_down
        time.sleep(0.3)
        one.hit("register", "10.0.0.4")  # tried again: still down, counted here
    failures = [r for r in caplog.records if "Redis failed" in r.getMessage()]
    assert len(failures) == 1, [r.getMessage() for r in caplog.records]
    private_redis.start()
    time.sleep(0.3)
    one.hit("register", "10.0.0.5")
    assert not one.redis_down
    two.hit("register", "10.0.0.5")
    one.hit("register", "10.0.0.5")
    with pytest.raises(TooManyAttempts):  # shared again: the two processes' counts add up
        two.hit("register", "10.0.0.5")


def test_a_server_started_while_redis_is_down_serves_and_subscribes_once_it_is_there(
        any_db: str, private_redis: PrivateRedis) -> None:
    private_redis.stop()
    with portal_on(any_db, private_redis) as client:
        ann = api_user(client, "ann")
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["checks"]["live"] != "ok"
        private_redis.start()
        _poll(lambda: client.get("/readyz").status_code == 200, 15, "ready once Redis is there")
        gid = client.post("/api/v1/games", json={"game": "toypig", "players": 2}, headers=ann).json()["id"]
        bob = api_user(client, "bob")
        token = bob["Authorization"].split()[1]
        with client.websocket_connect(f"/api/v1/games/{gid}/live?token={token}") as ws:
            assert ws.receive_json()["type"] == "hello"
            assert client.post(f"/api/v1/games/{gid}/join", headers=bob).json()["status"] == "running"
            update = ws.receive_json()  # through Redis: published, heard, delivered
            assert update["type"] == "update" and update["status"] == "running"
