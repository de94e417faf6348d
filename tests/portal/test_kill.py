"""Kill -9 one of two server processes under load on PostgreSQL.

Every acknowledged move must be in the database afterwards, the other process must keep serving,
and the live updates must reach every seat (the seats of the dead server reconnect to the living
one, as behind a load balancer).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from ludothek.devtools.postgres import UNREACHABLE, postgres_url, reset_database
from ludothek.devtools.processes import stop
from ludothek.devtools.services import REDIS, port_open
from ludothek.storage import make_engine
from tests.conftest import needs
from tests.portal.server import free_port, wait_until_serving
from tests.portal.test_operations import _serve

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

GAMES = 6
#: Moves the doomed server must have acknowledged before it is killed (it is under load, not idle).
BEFORE_KILL = 15
AFTER_KILL = 3.0


@dataclass
class Seat:
    token: str
    server: int  # 0 or 1: which server this seat talks to (1 dies)
    acked: list[tuple[int, int, str]] = field(default_factory=list)  # (game, seq, action) answered 200
    after_kill: int = 0  # moves acknowledged after the kill
    heard: int = 0  # highest seq heard on the live socket
    updates_after_kill: int = 0


@dataclass
class World:
    bases: list[str]
    db: str
    dead: set[int] = field(default_factory=set)
    killed_at: float | None = None
    stop: bool = False

    def base(self, seat: Seat) -> str:
        if seat.server in self.dead:
            seat.server = 0  # the load balancer sends it to the living server
        return self.bases[seat.server]


FAILURES = (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.PoolTimeout)


async def _player(world: World, seat: Seat, gid: int, rng: random.Random) -> None:
    headers = {"Authorization": f"Bearer {seat.token}"}
    async with httpx.AsyncClient(timeout=10) as client:
        while not world.stop:
            base = world.base(seat)
            try:
                g = (await client.get(f"{base}/api/games/{gid}?log=false", headers=headers)).json()
                if g["status"] != "running":
                    return
                if not g["my_turn"] or not g["legal"]:
                    await asyncio.sleep(0.01)
                    continue
                await asyncio.sleep(0.02)  # think
                action = rng.choice(g["legal"])["action"]
                r = await client.post(f"{base}/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]},
                                      headers=headers)
            except FAILURES:
                await asyncio.sleep(0.05)  # the server died under us: the next try goes elsewhere
                continue
            if r.status_code == 200:
                seat.acked.append((gid, g["seq"], action))
                if world.killed_at is not None:
                    seat.after_kill += 1
            elif r.status_code not in (409,):  # 409: stale after a failover retry, or the game ended
                raise AssertionError(f"move refused: {r.status_code} {r.text}")


async def _listener(world: World, seat: Seat, gid: int) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    while True:
        url = world.base(seat).replace("http", "ws", 1) + f"/api/games/{gid}/live?token={seat.token}"
        try:
            async with connect(url, open_timeout=5) as ws:
                async for raw in ws:
                    msg = json.loads(raw)
                    seat.heard = max(seat.heard, msg["seq"])
                    if msg["type"] == "update" and world.killed_at is not None:
                        seat.updates_after_kill += 1
        except (OSError, WebSocketException, TimeoutError):  # the server died mid-handshake, or the socket
            await asyncio.sleep(0.05)


async def _run(world: World, seats: list[tuple[Seat, int]], kill: Any) -> None:
    rng = random.Random(3)
    listeners = [asyncio.create_task(_listener(world, seat, gid)) for seat, gid in seats]
    players = [asyncio.create_task(_player(world, seat, gid, random.Random(rng.random()))) for seat, gid in seats]
    doomed = [seat for seat, _ in seats if seat.server == 1]
    deadline = time.monotonic() + 60
    while sum(len(seat.acked) for seat in doomed) < BEFORE_KILL and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert sum(len(seat.acked) for seat in doomed) >= BEFORE_KILL, "the second server served no load"
    await asyncio.sleep(0.2)  # moves in flight on both servers at the moment of the kill
    kill()
    world.dead.add(1)
    world.killed_at = time.monotonic()
    await asyncio.sleep(AFTER_KILL)
    world.stop = True
    await asyncio.gather(*players)
    # Every seat hears every game up to its last stored move.
    engine = make_engine(world.db)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with engine.connect() as conn:
                final = dict(conn.execute(text("SELECT id, seq FROM games")).all())
            if all(seat.heard >= final[gid] for seat, gid in seats):
                break
            await asyncio.sleep(0.1)
    finally:
        engine.dispose()
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
    for task in listeners:  # a listener that died of anything but its cancellation is a failure of the test
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
    behind = [(gid, seat.heard, final[gid]) for seat, gid in seats if seat.heard < final[gid]]
    assert not behind, f"seats that never heard their game's last moves: {behind}"


def test_kill_one_of_two_servers_under_load(tmp_path: Any) -> None:
    url = postgres_url()
    needs(None if url else UNREACHABLE)
    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    assert url is not None
    reset_database(url)
    ports = [free_port(), free_port()]
    env = {"LUDOTHEK_RATE_LIMITS": "off"}
    procs = [_serve(url, port, env, tmp_path / f"serve-{port}.log") for port in ports]
    try:
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        for proc, base in zip(procs, bases, strict=True):
            wait_until_serving(proc, base)
        with httpx.Client(base_url=bases[0]) as c:
            a = c.post("/api/users", json={"name": "kira", "password": "password-kira"}).json()["token"]
            b = c.post("/api/users", json={"name": "kurt", "password": "password-kurt"}).json()["token"]
            gids = []
            for _ in range(GAMES):
                gid = c.post("/api/games", json={"game": "machikoro", "players": 2},
                             headers={"Authorization": f"Bearer {a}"}).json()["id"]
                assert c.post(f"/api/games/{gid}/join", headers={"Authorization": f"Bearer {b}"}).status_code == 200
                gids.append(gid)
        # Each game: one seat on each server, so every move crosses between the processes (Redis).
        seats = [(Seat(a, 0), gid) for gid in gids] + [(Seat(b, 1), gid) for gid in gids]
        world = World(bases, url)

        def kill() -> None:
            os.kill(procs[1].pid, signal.SIGKILL)
            procs[1].wait(timeout=10)

        asyncio.run(_run(world, seats, kill))

        acked = [m for seat, _ in seats for m in seat.acked]
        assert len(acked) > 20, "too little load to mean anything"
        assert sum(seat.after_kill for seat, _ in seats) > 0, "the living server served no move after the kill"
        # Every seat of the dead server got live updates again after the kill (through the living one).
        assert all(seat.updates_after_kill > 0 for seat, _ in seats if seat.token == b), \
            [(gid, seat.updates_after_kill) for seat, gid in seats]
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                stored = {(g, s): act for g, s, act in conn.execute(text("SELECT game_id, seq, action FROM actions"))}
                games = dict(conn.execute(text("SELECT id, seq FROM games")).all())
                counts = dict(conn.execute(text("SELECT game_id, count(*) FROM actions GROUP BY game_id")).all())
        finally:
            engine.dispose()
        missing = [m for m in acked if stored.get((m[0], m[1])) != m[2]]
        assert not missing, f"acknowledged moves not in the database: {missing[:10]}"
        assert all(games[g] == counts[g] for g in gids)  # every game whole: its counter and its rows agree
        assert httpx.get(bases[0] + "/readyz").status_code == 200
    finally:
        for proc in procs:
            stop(proc)
        reset_database(url)
