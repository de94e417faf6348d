"""Live updates across server processes through Redis pub/sub."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
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


def test_a_moves_answer_waits_until_its_live_messages_are_sent() -> None:
    """Publishing is queued (no Redis round trip on the event loop), but a move is answered only once
    its messages are out: an acknowledged move's update reaches the other processes even if this
    process is killed right after answering."""
    import asyncio
    import threading

    from ludothek.portal.live.hub import RedisHub
    from ludothek.storage import GameEvent

    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    hub = RedisHub(f"redis://{REDIS[0]}:{REDIS[1]}/0", deployment=f"test-{uuid.uuid4().hex}")
    gate = threading.Event()
    real = hub._pub.publish

    def held_publish(channel: str, data: str) -> Any:
        gate.wait(10)
        return real(channel, data)

    hub._pub.publish = held_publish  # type: ignore[method-assign,assignment]

    async def scenario() -> tuple[bool, bool]:
        hub.publish(GameEvent(1, 5, 0, "running", False))
        waiting = asyncio.create_task(hub.flushed())
        await asyncio.sleep(0.3)
        held = not waiting.done()  # Redis has not taken the message: the answer waits
        gate.set()
        await asyncio.wait_for(waiting, 5)
        return held, hub.wait_flushed(0.1)

    try:
        held, flushed_sync = asyncio.run(scenario())
    finally:
        gate.set()
        hub.close_publisher()
    assert held and flushed_sync


def test_messages_queued_together_travel_as_one_and_arrive_in_order(monkeypatch: Any) -> None:
    """Through the publisher thread (a bot worker's way, and a server's while its own connection is
    down): what gathered while the thread was busy goes out as one Redis message (a JSON array), and a
    listening process hands each part to its watchers in order; a malformed part is skipped alone."""
    import asyncio
    import threading

    from ludothek.portal.live import hub as live
    from ludothek.portal.live.hub import RedisHub
    from ludothek.storage import GameEvent

    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    monkeypatch.setattr(live, "supported", lambda url: False)  # as for a rediss:// URL
    hub = RedisHub(f"redis://{REDIS[0]}:{REDIS[1]}/0", deployment=f"test-{uuid.uuid4().hex}")
    gate = threading.Event()
    sent: list[str] = []
    real = hub._pub.publish

    def held_publish(channel: str, data: str) -> Any:
        gate.wait(10)
        sent.append(data)
        return real(channel, data)

    hub._pub.publish = held_publish  # type: ignore[method-assign,assignment]

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        await hub.start()
        game, user = hub.watch(7, 3), hub.watch_user(3)
        hub.publish(GameEvent(7, 1, 1, "running", False))  # taken at once, held at the gate
        await asyncio.sleep(0.2)
        hub.publish(GameEvent(7, 2, 0, "running", False))  # these two queue up meanwhile
        hub.publish_user(3, {"type": "turn", "game": 7, "seq": 2})
        hub._send('{"game": "seven"}')  # a malformed part of the next batch
        hub.publish(GameEvent(7, 3, 1, "running", False))
        gate.set()
        await hub.flushed()
        updates = [await asyncio.wait_for(game.get(), 5) for _ in range(3)]
        notices = [await asyncio.wait_for(user.get(), 5)]
        await hub.stop()
        return updates, notices

    try:
        updates, notices = asyncio.run(scenario())
    finally:
        gate.set()
        hub.close_publisher()
    assert [u["seq"] for u in updates] == [1, 2, 3]
    assert notices == [{"type": "turn", "game": 7, "seq": 2}]
    assert len(sent) == 2 and sent[1].startswith("[")  # the four queued behind the first: one message


def _redis_messages(channel: str) -> tuple[Any, list[str], threading.Event]:
    """A plain redis-py subscriber in a thread: every message published on ``channel``, as sent."""
    import redis

    client = redis.Redis(host=REDIS[0], port=REDIS[1])
    pubsub = client.pubsub()
    pubsub.subscribe(channel)
    assert pubsub.get_message(timeout=2)["type"] == "subscribe"
    got: list[str] = []
    stop = threading.Event()

    def listen() -> None:
        while not stop.is_set():
            item = pubsub.get_message(timeout=0.05)
            if item and item["type"] == "message":
                got.append(item["data"].decode())
        pubsub.close()
        client.close()

    threading.Thread(target=listen, daemon=True).start()
    return client, got, stop


def test_a_server_publishes_on_its_event_loop_without_the_thread() -> None:
    """In a server (the hub started on its loop) the loop writes the messages itself, on a connection
    Redis does not answer: no publisher thread.  Messages published in one go, on the loop or from a
    database thread, travel as one Redis message; every process's watchers get them in order."""
    import asyncio

    from ludothek.portal.live.hub import RedisHub
    from ludothek.storage import GameEvent

    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    hub = RedisHub(f"redis://{REDIS[0]}:{REDIS[1]}/0", deployment=f"test-{uuid.uuid4().hex}")
    _, sent, stop = _redis_messages(hub.channel)

    async def scenario() -> tuple[list[int], list[dict[str, Any]], bool]:
        await hub.start()
        game, user = hub.watch(7, 3), hub.watch_user(3)
        hub.publish(GameEvent(7, 1, 1, "running", False))
        hub.publish_user(3, {"type": "turn", "game": 7, "seq": 1})
        await hub.flushed()  # a move's answer: both written, as one message
        # a database thread's publishing reaches the loop by itself, without anyone waiting for it
        await asyncio.to_thread(hub.publish, GameEvent(7, 2, 0, "running", False))
        await asyncio.to_thread(hub.publish, GameEvent(7, 3, 1, "running", False))
        updates = [await asyncio.wait_for(game.get(), 5) for _ in range(3)]
        notices = [await asyncio.wait_for(user.get(), 5)]
        thread_used = hub._publisher is not None
        await hub.stop()
        return [u["seq"] for u in updates], notices, thread_used

    try:
        seqs, notices, thread_used = asyncio.run(scenario())
        deadline = time.monotonic() + 5
        while len(sent) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()
        hub.close_publisher()
    assert seqs == [1, 2, 3] and notices == [{"type": "turn", "game": 7, "seq": 1}]
    assert not thread_used
    assert sent[0].startswith("[") and len(json.loads(sent[0])) == 2  # the update and the notice together
    assert [json.loads(m)["seq"] for m in sent[1:]] == [2, 3]


def test_when_the_loops_connection_breaks_the_thread_carries_on_and_the_loop_takes_over_again(
        monkeypatch: Any) -> None:
    """A broken connection loses nothing: the messages go through the publisher thread, in order, and
    the loop reconnects and publishes itself again once the thread has sent what it was given."""
    import asyncio

    from ludothek.portal.live import hub as live
    from ludothek.portal.live.hub import RedisHub
    from ludothek.storage import GameEvent

    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    monkeypatch.setattr(live, "RECONNECT_DELAY", 0.05)
    hub = RedisHub(f"redis://{REDIS[0]}:{REDIS[1]}/0", deployment=f"test-{uuid.uuid4().hex}")

    async def scenario() -> tuple[list[int], bool, bool]:
        await hub.start()
        game = hub.watch(9, 3)
        first = hub._loop_pub
        assert first is not None and first.ready
        first._writer.transport.abort()  # type: ignore[union-attr]  # the connection breaks
        await asyncio.sleep(0.05)
        for seq in (1, 2, 3):
            hub.publish(GameEvent(9, seq, 0, "running", False))
            await hub.flushed()
        via_thread = hub._publisher is not None
        deadline = time.monotonic() + 5
        while (hub._loop_pub is None or hub._loop_pub is first) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        hub.publish(GameEvent(9, 4, 0, "running", False))
        await hub.flushed()
        back = hub._loop_pub is not None and hub._loop_pub is not first
        updates = [await asyncio.wait_for(game.get(), 5) for _ in range(4)]
        await hub.stop()
        return [u["seq"] for u in updates], via_thread, back

    try:
        seqs, via_thread, back = asyncio.run(scenario())
    finally:
        hub.close_publisher()
    assert seqs == [1, 2, 3, 4] and via_thread and back


def test_the_loops_connection_reports_refused_credentials() -> None:
    """A password Redis does not accept is an error when connecting (the hub then uses its thread)."""
    import asyncio

    from ludothek.portal.live.loop_publish import LoopPublisher

    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    pub = LoopPublisher(f"redis://:not-the-password@{REDIS[0]}:{REDIS[1]}/0")
    with pytest.raises(ConnectionError, match="refused the credentials"):
        asyncio.run(pub.connect())
