"""Idle and slow connections time out; requests and live sockets that behave are untouched (issue 15, part 4).

A real ``serve`` process with a one-second request deadline: a connection that
sends nothing, and one that sends its request a byte at a time, are closed by
the server; a normal request on a kept-alive connection and a WebSocket that
stays open past the deadline go on working.  The waits below only bound how
long the test waits for the server to act; nothing here measures speed.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.portal.server import free_port, wait_until_serving

DEADLINE = 1.0


@pytest.fixture
def server(tmp_path: object) -> Iterator[tuple[str, int]]:
    port = free_port()
    db = f"sqlite:///{tmp_path}/conn.sqlite3"
    code = f"from ludothek.portal import serve; serve({db!r}, '127.0.0.1', {port}, request_deadline={DEADLINE})"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(proc, base)
        yield base, port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def closed_by_server(sock: socket.socket, within: float, trickle: bytes = b"") -> bool:
    """Whether the server closes ``sock`` within ``within`` seconds (sending ``trickle`` a byte at a time)."""
    sock.settimeout(0.2)
    end = time.monotonic() + within
    sent = 0
    while time.monotonic() < end:
        if sent < len(trickle):
            try:
                sock.sendall(trickle[sent:sent + 1])
            except OSError:
                return True
            sent += 1
        try:
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


def test_a_connection_that_sends_nothing_is_closed(server: tuple[str, int]) -> None:
    _, port = server
    with socket.create_connection(("127.0.0.1", port)) as idle:
        assert closed_by_server(idle, within=10 * DEADLINE)


def test_a_request_sent_a_byte_at_a_time_is_cut_off(server: tuple[str, int]) -> None:
    _, port = server
    slow = b"GET /api/catalog HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"y" * 500 + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port)) as sock:
        assert closed_by_server(sock, within=10 * DEADLINE, trickle=slow)


def test_well_behaved_requests_and_live_sockets_are_untouched(server: tuple[str, int]) -> None:
    base, port = server
    with httpx.Client(base_url=base, timeout=10) as client:
        r = client.post("/api/users", json={"name": "alice", "password": "password-alice"})
        token = r.json()["token"]
        h = {"Authorization": f"Bearer {token}"}
        gid = client.post("/api/games", json={"game": "machikoro", "players": 2}, headers=h).json()["id"]
        # A live socket outlives the request deadline: it is the WebSocket protocol's from the upgrade on.
        with connect(f"ws://127.0.0.1:{port}/api/games/{gid}/live?token={token}") as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "hello"
            time.sleep(3 * DEADLINE)
            other = client.post("/api/games", json={"game": "machikoro", "players": 2}, headers=h).json()["id"]
            assert client.post(f"/api/games/{gid}/cancel", headers=h).status_code == 200
            assert json.loads(ws.recv(timeout=10))["status"] == "cancelled"
        # Requests on one kept-alive connection, slower than the deadline between them, each succeed.
        for _ in range(2):
            assert client.get(f"/api/games/{other}", headers=h).status_code == 200


def test_a_live_message_over_64_kb_closes_the_socket(server: tuple[str, int]) -> None:
    base, port = server
    with httpx.Client(base_url=base, timeout=10) as client:
        token = client.post("/api/users", json={"name": "bob", "password": "password-bob"}).json()["token"]
        h = {"Authorization": f"Bearer {token}"}
        gid = client.post("/api/games", json={"game": "machikoro", "players": 2}, headers=h).json()["id"]
    url = f"ws://127.0.0.1:{port}/api/games/{gid}/live?token={token}"
    with connect(url) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "hello"
        ws.send("x" * 1000)  # small messages are fine
        ws.send("x" * (65 * 1024))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


class _Transport:
    """A transport that records what is written to it."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


def _cycle(method: str = "GET") -> tuple[object, _Transport]:
    import asyncio
    import logging

    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

    from ludothek.portal.connections import _HeldHeaders, _OneWriteCycle

    class Flow:
        write_paused = False

    transport = _Transport()
    scope = {"type": "http", "method": method, "http_version": "1.1", "path": "/", "headers": []}
    cycle = RequestResponseCycle(scope=scope, transport=_HeldHeaders(transport),  # type: ignore[arg-type]
                                 flow=Flow(), logger=logging.getLogger("t"),  # type: ignore[arg-type]
                                 access_logger=logging.getLogger("t"), access_log=False, default_headers=[],
                                 message_event=asyncio.Event(), expect_100_continue=False, keep_alive=True,
                                 on_response=lambda: None)
    cycle.__class__ = _OneWriteCycle
    return cycle, transport


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_headers_and_body_leave_in_one_write(method: str) -> None:
    import asyncio

    async def answer() -> list[bytes]:
        cycle, transport = _cycle(method)
        await cycle.send({"type": "http.response.start", "status": 200,  # type: ignore[attr-defined]
                          "headers": [(b"content-length", b"2"), (b"content-type", b"text/plain")]})
        assert transport.writes == []  # held until the body
        await cycle.send({"type": "http.response.body", "body": b"ok"})  # type: ignore[attr-defined]
        return transport.writes

    writes = asyncio.run(answer())
    assert len(writes) == 1
    assert writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and b"content-length: 2\r\n" in writes[0]
    assert writes[0].endswith(b"\r\n\r\nok" if method == "GET" else b"\r\n\r\n")


def test_a_streamed_body_follows_its_first_part() -> None:
    import asyncio

    async def answer() -> list[bytes]:
        cycle, transport = _cycle()
        await cycle.send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[attr-defined]
        await cycle.send({"type": "http.response.body", "body": b"a", "more_body": True})  # type: ignore[attr-defined]
        await cycle.send({"type": "http.response.body", "body": b"b"})  # type: ignore[attr-defined]
        return transport.writes

    first, second = asyncio.run(answer())
    assert first.startswith(b"HTTP/1.1 200 OK\r\n") and first.endswith(b"transfer-encoding: chunked\r\n\r\n1\r\na\r\n")
    assert second == b"1\r\nb\r\n0\r\n\r\n"
