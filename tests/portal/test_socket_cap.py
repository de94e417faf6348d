"""The per-process cap on live sockets, derived from the open-file limit (issue 28, item 2).

Under a 1,024-file limit, 1,005 sockets of 79 accounts from 50 addresses stayed within the per-user and
per-address caps and took every descriptor: no HTTP request was answered any more.  Now a process holds
at most its limit less two reserves (HTTP; database, Redis and files) and refuses further sockets with
1013 and a reason, while HTTP goes on.
"""

from __future__ import annotations

import asyncio
import os
import resource
import subprocess
import sys
from pathlib import Path

import httpx

from ludothek.portal.limits import SocketCounter, socket_cap
from tests.portal.server import free_port, wait_until_serving

LIMIT = 200
RESERVE_HTTP = 60
RESERVE_SERVICES = 40
CAP = LIMIT - RESERVE_HTTP - RESERVE_SERVICES


def test_the_cap_is_the_limit_less_the_reserves() -> None:
    assert socket_cap(1024, 256, 128) == 640
    assert socket_cap(1024, 256, 128, fixed=100) == 100
    assert socket_cap(1024, 256, 128, fixed=5000) == 640  # never above what the descriptors allow
    assert socket_cap(200, 256, 128) == 1  # a limit below the reserves: one socket, not none or a negative
    counter = SocketCounter(per_user=10, per_address=10, per_process=3)
    assert counter.open(1, "a") and counter.open(2, "b") and counter.open(3, "c")
    assert counter.full() and not counter.open(4, "d")
    counter.close(2, "b")
    assert not counter.full() and counter.open(4, "d") and counter.total() == 3


def test_sockets_past_the_process_cap_are_refused_and_http_goes_on(tmp_path: Path) -> None:
    """A server under a 200-file limit it cannot raise (soft = hard) holds 100 live sockets of one user
    (the per-user and per-address caps set high, as if they came from many): the next 120 (more than the
    process has descriptors) are closed with 1013 and a reason, and ordinary requests, a login among
    them, are answered meanwhile.  Before the cap, the 180th or so socket found no descriptor left."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ, LUDOTHEK_BOT_WORKERS="0", LUDOTHEK_FD_RESERVE_HTTP=str(RESERVE_HTTP),
               LUDOTHEK_FD_RESERVE_SERVICES=str(RESERVE_SERVICES), LUDOTHEK_SOCKETS_PER_USER="1000",
               LUDOTHEK_SOCKETS_PER_ADDRESS="1000", LUDOTHEK_RATE_LIMITS="off")
    log = tmp_path / "server.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ludothek.cli", "serve", "--db", f"sqlite:///{tmp_path / 'cap.sqlite3'}",
         "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"), preexec_fn=low_limit)
    try:
        wait_until_serving(proc, base, log=log)
        with httpx.Client(base_url=base, timeout=10) as c:
            r = c.post("/api/v1/users", json={"name": "ann", "password": "password-ann"})
            assert r.status_code == 201, r.text
            token = r.json()["token"]
            gid = c.post("/api/v1/games", json={"game": "machikoro", "players": 2},
                         headers={"Authorization": f"Bearer {token}"}).json()["id"]
        url = f"ws://127.0.0.1:{port}/api/v1/games/{gid}/live?token={token}"

        async def scenario() -> tuple[int, list[tuple[int, str]], list[int]]:
            held = []
            refused: list[tuple[int, str]] = []
            # A socket without credentials hears why (it used to get a bare 403 before the handshake).
            anonymous = await connect(url.split("?")[0], open_timeout=10)
            try:
                await asyncio.wait_for(anonymous.recv(), 10)
            except ConnectionClosed as closed:
                assert closed.rcvd is not None
                refused.append((closed.rcvd.code, closed.rcvd.reason))
            try:
                for _ in range(LIMIT + 20):  # more than the process has descriptors
                    ws = await connect(url, open_timeout=10)
                    try:
                        hello = await asyncio.wait_for(ws.recv(), 10)
                        assert '"hello"' in str(hello)
                        held.append(ws)
                    except ConnectionClosed as closed:
                        assert closed.rcvd is not None
                        refused.append((closed.rcvd.code, closed.rcvd.reason))
                # Beside the full server, ordinary requests are answered.
                async with httpx.AsyncClient(base_url=base, timeout=10) as c:
                    statuses = [(await c.get("/api/v1/catalog")).status_code for _ in range(20)]
                    statuses.append((await c.post("/api/v1/tokens", json={"name": "ann", "password": "password-ann"}))
                                    .status_code)
                    statuses.append((await c.get(f"/api/v1/games/{gid}")).status_code)
                return len(held), refused, statuses
            finally:
                for ws in held:
                    await ws.close()

        held, refused, statuses = asyncio.run(scenario())
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert held == CAP
    assert refused[0] == (1008, "log in to follow games live")
    assert len(refused) == 1 + LIMIT + 20 - CAP
    assert {code for code, _ in refused[1:]} == {1013}
    assert all("try again later" in reason for _, reason in refused[1:])
    assert statuses == [200] * 20 + [201, 200], statuses
    assert f"at most {CAP} live sockets" in log.read_text()
