"""Redis going away and coming back (issue 28, items 3 and 4).

Every test here runs against a private ``redis-server`` of its own (`tests.portal.private_redis`),
which it stops and starts; the shared Redis on 6379 is never touched.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from ludothek.portal import create_app
from tests.portal.conftest import api_user, make_settings
from tests.portal.private_redis import PrivateRedis, private_redis

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
