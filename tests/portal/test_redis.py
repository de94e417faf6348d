"""Live updates across server processes through Redis pub/sub."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from ludothek.devtools.services import REDIS, port_open
from ludothek.portal import create_app
from tests.conftest import needs
from tests.portal.conftest import api_user, make_settings


@contextmanager
def two_servers(tmp_path: Any) -> Iterator[tuple[TestClient, TestClient]]:
    """Two portals on one database whose live messages (and rate limits) go through Redis."""
    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    redis_url = f"redis://{REDIS[0]}:{REDIS[1]}/0"
    # A secret of this test's own: the deployment's channel, so tests running at the same time on this
    # machine (whose games and users have the same ids) never hear each other.
    settings = [make_settings(db, redis_url=redis_url) for _ in range(2)]
    secret = f"test-{uuid.uuid4().hex}"
    for s in settings:
        s.secret_key = secret
    with TestClient(create_app(settings[0])) as a, TestClient(create_app(settings[1])) as b:
        yield a, b


def test_a_move_on_one_server_reaches_watchers_of_another(tmp_path: Any) -> None:
    with two_servers(tmp_path) as (a, b):
        h1, h2 = api_user(a, "alice"), api_user(a, "bob")
        gid = a.post("/api/games", json={"game": "toypig", "players": 2}, headers=h1).json()["id"]
        token = h2["Authorization"].split()[1]
        with b.websocket_connect(f"/api/games/{gid}/live?token={token}") as ws:
            assert ws.receive_json()["type"] == "hello"
            assert a.post(f"/api/games/{gid}/join", headers=h2).json()["status"] == "running"
            update = ws.receive_json()  # published by server one, delivered by server two
            assert update["type"] == "update" and update["game"] == gid and update["status"] == "running"
            g = b.get(f"/api/games/{gid}", headers=h2).json()
            assert g["seq"] == update["seq"]
