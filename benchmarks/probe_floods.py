"""The flood parts of ``python -m benchmarks.probe_security``: a login flood and a replay-bomb flood.

Both run against one real server subprocess (the real argon2 hasher, no bot workers, per-address
rate limits off: a real flood comes from many addresses) while pairs of other players play Machi
Koro against each other and time every move they send: the others' p50/p99 is measured on the same
run as the flood.

- **Login flood** (`login_flood_figures`): `benchmarks.bench_limits.login_flood`, many clients
  registering and logging in as fast as answers come.  Figures: the server's peak resident memory
  (``VmHWM``), the others' move latency, the hashing requests served and refused.
- **Replay-bomb flood** (`replay_flood_figures`): a few clients (4 by default), each logged in as a
  guest, POST at once a large valid record to ``/api/records/replay`` (each a different one):
  ``moves`` real entries of a random game, then ``pairs`` times the same move and its undo (`bomb_record`).  Figures: each
  request's answer and time, the server's CPU seconds and peak memory over the flood, and the
  others' move latency while it lasted.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks.bench_limits import login_flood, player_pair, start_server, status_mb
from benchmarks.bench_portal import _pct
from ludothek import engine as eng
from ludothek.devtools.processes import stop


@dataclass
class Latency:
    """Others' move latencies in ms, and their p50/p99."""

    ms: list[float] = field(default_factory=list)

    @property
    def p50(self) -> float:
        return _pct(self.ms, 50)

    @property
    def p99(self) -> float:
        return _pct(self.ms, 99)


@dataclass
class LoginFlood:
    peak_mb: float
    start_mb: float
    others: Latency
    calm: Latency
    served: int  # registrations and logins answered 201
    refused: int  # answered 429 (the hash gate is busy)
    sent: int
    server_errors: int


@dataclass
class ReplayFlood:
    entries: int  # entries in the record
    kilobytes: float
    statuses: list[int]  # the bombs' answers (0: no answer within the timeout)
    seconds: list[float]  # the bombs' times
    cpu_seconds: float  # the server's CPU time over the flood
    peak_mb: float
    start_mb: float
    end_mb: float  # resident memory after the flood (what the replay cache kept)
    others: Latency
    calm: Latency

    @property
    def server_errors(self) -> int:
        return sum(1 for s in self.statuses if s >= 500)


def login_flood_figures(db_url: str, window: float, flooders: int, games: int, log: Path | None = None) -> LoginFlood:
    """Run `login_flood` against a fresh server on ``db_url`` (see the module's doc); its log to ``log``."""
    proc, base = start_server(db_url, log=log, rate_limits=False, bot_workers=0)
    try:
        f = asyncio.run(login_flood(base, proc.pid, window, flooders, games))
    finally:
        stop(proc)
    answers = f["codes"]["register"] + f["codes"]["login"]
    return LoginFlood(peak_mb=f["peak"], start_mb=f["rss_start"], others=Latency(f["move_ms"]),
                      calm=Latency(f["calm_ms"]), served=answers.count(201), refused=answers.count(429),
                      sent=len(answers), server_errors=sum(1 for s in answers if s >= 500))


def bomb_record(moves: int, pairs: int, game: str = "machikoro", players: int = 2, seed: int = 7) -> dict[str, Any]:
    """A valid record: at least ``moves`` random entries (chance outcomes included; moves that would
    end the game are avoided), then ``pairs`` times one move and its undo by the seat to move.  Built
    without replaying the undos (the same pair applies again after each undo), so it costs the client
    nothing."""
    rng = random.Random(seed)
    state = eng.load(game).new_state(players, {})
    for _ in range(10 * moves + 1000):
        seat = state.current_player()
        if seat == eng.CHANCE:
            state.apply_action(state.sample_outcome(rng))
            continue
        options = state.legal_actions()
        rng.shuffle(options)
        lasting = [a for a in options if not _after(state, a).is_terminal()]
        if state.move_number() >= moves:
            taken_back = [a for a in lasting if _after(state, a).can_undo(seat)]
            if taken_back:
                rec = eng.record(state)
                rec["actions"] += [{"seat": seat, "action": taken_back[0]}, {"seat": seat, "action": eng.UNDO}] * pairs
                return rec
        if not lasting:
            break
        state.apply_action(lasting[0])
    raise RuntimeError(f"no position after {moves} random entries of {game} where a move can be taken back")


def _after(state: eng.State, action: str) -> eng.State:
    after = state.clone()
    after.apply_action(action)
    return after


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _guest(base: str) -> str:
    async with httpx.AsyncClient(timeout=30) as c:
        r = await c.post(base + "/api/v1/guests")
        r.raise_for_status()
        token: str = r.json()["token"]
        return token


async def _bombs(base: str, pid: int, records: list[dict[str, Any]], bombs: int, games: int, calm: float,
                 timeout: float) -> dict[str, Any]:
    tokens = [await _guest(base) for _ in range(bombs)]
    stop_players = asyncio.Event()
    calm_ms: list[float] = []
    players = [asyncio.create_task(player_pair(base, stop_players, calm_ms, 0.1)) for _ in range(games)]
    await asyncio.sleep(calm)  # the players alone, for comparison
    move_ms: list[float] = []
    calm_ms_final = list(calm_ms)
    stop_players.set()
    await asyncio.gather(*players)
    stop_players = asyncio.Event()
    players = [asyncio.create_task(player_pair(base, stop_players, move_ms, 0.1)) for _ in range(games)]
    await asyncio.sleep(1.0)  # the new games under way before the bombs land
    move_ms.clear()
    start_mb, cpu_before = status_mb(pid, "VmRSS"), _cpu_seconds(pid)
    statuses: list[int] = [0] * bombs
    seconds: list[float] = [0.0] * bombs

    async def bomb(i: int) -> None:
        sent = time.perf_counter()
        async with httpx.AsyncClient(timeout=timeout, headers={"Authorization": f"Bearer {tokens[i]}"}) as c:
            try:
                statuses[i] = (await c.post(base + "/api/v1/records/replay", json={"record": records[i % len(records)], "log": 10})).status_code
            except httpx.HTTPError:
                statuses[i] = 0
        seconds[i] = time.perf_counter() - sent

    await asyncio.gather(*(bomb(i) for i in range(bombs)))
    cpu = _cpu_seconds(pid) - cpu_before
    stop_players.set()
    await asyncio.gather(*players)
    return {"statuses": statuses, "seconds": seconds, "cpu": cpu, "start_mb": start_mb,
            "peak_mb": status_mb(pid, "VmHWM"), "end_mb": status_mb(pid, "VmRSS"),
            "move_ms": move_ms, "calm_ms": calm_ms_final}


def replay_flood_figures(db_url: str, moves: int, pairs: int, bombs: int, games: int, timeout: float,
                         calm: float = 3.0, log: Path | None = None, same: bool = False) -> ReplayFlood:
    """``bombs`` concurrent replays of `bomb_record` against a fresh server on ``db_url``; its log to ``log``.

    Each bomb is a different record (another random game), so no cache spares the server any of them;
    ``same``: all send one record (what concurrent requests for one record do).
    """
    import json

    records = [bomb_record(moves, pairs, seed=7 + 1000 * i) for i in range(1 if same else bombs)]
    proc, base = start_server(db_url, log=log, rate_limits=False, bot_workers=0)
    try:
        f = asyncio.run(_bombs(base, proc.pid, records, bombs, games, calm, timeout))
    finally:
        stop(proc)
    return ReplayFlood(entries=len(records[0]["actions"]), kilobytes=len(json.dumps(records[0])) / 1024,
                       statuses=f["statuses"], seconds=f["seconds"], cpu_seconds=f["cpu"], peak_mb=f["peak_mb"],
                       start_mb=f["start_mb"], end_mb=f["end_mb"], others=Latency(f["move_ms"]),
                       calm=Latency(f["calm_ms"]))
