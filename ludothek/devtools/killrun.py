"""Kill -9 one of two server processes under load, and count what was lost.

Two ``ludothek serve`` processes share one database and a Redis.  Pairs of players play Machi Koro
with one seat on each process, so every move crosses between the processes; each seat also listens on
the game's live socket.  Once the doomed process has acknowledged some moves it is killed with
SIGKILL in the middle of the traffic; its seats go on with the living process (as behind a load
balancer) for a while.  Then the database is compared with every move any process answered 200:

- ``lost``: acknowledged moves that are not in the database (the bar: none);
- ``broken``: games whose move counter and stored rows disagree;
- ``behind``: seats whose live socket never heard their game's last stored move.

Used by ``tests/portal/test_kill.py`` (PostgreSQL) and ``python -m benchmarks.probe_security``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlalchemy import text

from ludothek.devtools.servers import server_processes
from ludothek.storage import make_engine

FAILURES = (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.PoolTimeout)


@dataclass
class Seat:
    token: str
    server: int  # 0 or 1: which server this seat talks to (1 dies)
    acked: list[tuple[int, int, str]] = field(default_factory=list)  # (game, seq, action) answered 200
    after_kill: int = 0  # moves acknowledged after the kill
    heard: int = 0  # highest seq heard on the live socket
    updates_after_kill: int = 0
    refused: list[str] = field(default_factory=list)  # answers other than 200 and 409


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


@dataclass
class KillReport:
    """What one kill -9 run saw; `passed` is the regression bar."""

    acked: int = 0
    before_kill_on_doomed: int = 0
    after_kill: int = 0
    lost: list[tuple[int, int, str]] = field(default_factory=list)
    broken: list[int] = field(default_factory=list)
    behind: list[tuple[int, int, int]] = field(default_factory=list)
    deaf_seats: int = 0  # seats of the dead server that heard no update after the kill
    refused: list[str] = field(default_factory=list)
    ready_after: int = 0  # the living server's /readyz status at the end

    @property
    def passed(self) -> bool:
        return (not self.lost and not self.broken and not self.behind and not self.refused
                and self.after_kill > 0 and self.deaf_seats == 0 and self.ready_after == 200)


async def _player(world: World, seat: Seat, gid: int, rng: random.Random, think: float) -> None:
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
                await asyncio.sleep(think)
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
            elif r.status_code != 409:  # 409: stale after a failover retry, or the game ended
                seat.refused.append(f"game {gid}: {r.status_code} {r.text[:200]}")
                return


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


def _stored(db: str) -> tuple[dict[tuple[int, int], str], dict[int, int], dict[int, int]]:
    """Every stored action by (game, seq), each game's move counter, and its count of action rows."""
    engine = make_engine(db)
    try:
        with engine.connect() as conn:
            stored = {(g, s): a for g, s, a in conn.execute(text("SELECT game_id, seq, action FROM actions"))}
            games = {g: s for g, s in conn.execute(text("SELECT id, seq FROM games"))}
            counts = {g: c for g, c in conn.execute(text("SELECT game_id, count(*) FROM actions GROUP BY game_id"))}
    finally:
        engine.dispose()
    return stored, games, counts


async def _run(world: World, seats: list[tuple[Seat, int]], kill: object, before_kill: int, after_kill: float,
               think: float, report: KillReport) -> None:
    rng = random.Random(3)
    listeners = [asyncio.create_task(_listener(world, seat, gid)) for seat, gid in seats]
    players = [asyncio.create_task(_player(world, seat, gid, random.Random(rng.random()), think)) for seat, gid in seats]
    doomed = [seat for seat, _ in seats if seat.server == 1]
    deadline = time.monotonic() + 60
    while sum(len(seat.acked) for seat in doomed) < before_kill and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    report.before_kill_on_doomed = sum(len(seat.acked) for seat in doomed)
    await asyncio.sleep(0.2)  # moves in flight on both servers at the moment of the kill
    kill()  # type: ignore[operator]
    world.dead.add(1)
    world.killed_at = time.monotonic()
    await asyncio.sleep(after_kill)
    world.stop = True
    await asyncio.gather(*players)
    # Every seat hears every game up to its last stored move.
    try:
        deadline = time.monotonic() + 15
        while True:
            _, final, _ = _stored(world.db)
            report.behind = [(gid, seat.heard, final[gid]) for seat, gid in seats if seat.heard < final[gid]]
            if not report.behind or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
    finally:
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
    for task in listeners:  # a listener that died of anything but its cancellation is a failure of the run
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


def kill_under_load(db: str, redis_url: str, log_dir: Path, games: int = 6, before_kill: int = 15,
                    after_kill: float = 3.0, think: float = 0.02, prefix: str = "") -> KillReport:
    """One run on the (empty or not) database ``db``; see the module's doc.  ``prefix`` names the people."""
    env = {"LUDOTHEK_REDIS": redis_url, "LUDOTHEK_SECRET": "kill-run-secret", "LUDOTHEK_BOT_DELAY": "0",
           "LUDOTHEK_BOT_WORKERS": "0", "LUDOTHEK_RATE_LIMITS": "off"}
    report = KillReport()
    with server_processes(db, 2, log_dir, env) as servers:
        bases = [s.base for s in servers]
        with httpx.Client(base_url=bases[0], timeout=30) as c:
            tokens = []
            for name in ("kira", "kurt"):
                r = c.post("/api/users", json={"name": prefix + name, "password": "password-" + name})
                if r.status_code != 201:
                    raise RuntimeError(f"registering {name}: {r.status_code} {r.text}")
                tokens.append(r.json()["token"])
            a, b = tokens
            gids = []
            for _ in range(games):
                gid = c.post("/api/games", json={"game": "machikoro", "players": 2},
                             headers={"Authorization": f"Bearer {a}"}).json()["id"]
                if c.post(f"/api/games/{gid}/join", headers={"Authorization": f"Bearer {b}"}).status_code != 200:
                    raise RuntimeError(f"joining game {gid} failed")
                gids.append(gid)
        # Each game: one seat on each server, so every move crosses between the processes (Redis).
        seats = [(Seat(a, 0), gid) for gid in gids] + [(Seat(b, 1), gid) for gid in gids]
        world = World(bases, db)

        def kill() -> None:
            os.kill(servers[1].proc.pid, signal.SIGKILL)
            servers[1].proc.wait(timeout=10)

        asyncio.run(_run(world, seats, kill, before_kill, after_kill, think, report))
        acked = [m for seat, _ in seats for m in seat.acked]
        stored, final, counts = _stored(db)
        report.acked = len(acked)
        report.after_kill = sum(seat.after_kill for seat, _ in seats)
        report.lost = [m for m in acked if stored.get((m[0], m[1])) != m[2]]
        report.broken = [g for g in gids if final[g] != counts.get(g, 0)]
        report.deaf_seats = sum(1 for seat, _ in seats if seat.token == b and seat.updates_after_kill == 0)
        report.refused = [r for seat, _ in seats for r in seat.refused]
        report.ready_after = httpx.get(bases[0] + "/readyz", timeout=10).status_code
    return report
