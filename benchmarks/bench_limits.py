"""Limits benchmark (issue 15, part 4): floods of password hashing, and idle connections.

Against a real server subprocess on loopback (SQLite, the real argon2 hasher):

- **Flood**: 40 clients register new accounts (then log in) as fast as they can
  for a fixed window, while 10 other players play Machi Koro with a short think
  time.  Measured: the server's peak resident memory (``VmHWM``) and the other
  players' move latency (POST of a move) p50/p99, plus how many hashing requests
  were served and how many were refused with 429 by the hash gate.  The
  per-address rate limits are switched off for this run (a real flood comes from
  many addresses), so the hash gate alone bounds memory and CPU.
- **Connections**: the server is started under a 1,024-file soft limit (the
  common default) and raises it; 1,000 idle sockets from this address are opened,
  then other players' requests are made.  Measured: how many idle sockets the
  server held, how many other requests succeeded, and their p99.

Targets from the issue: memory under 500 MB, others' move p99 under 100 ms.
Run alone: ``python -m benchmarks limits`` (``BENCH_LIMITS_SECONDS`` sets the window).
"""

from __future__ import annotations

import asyncio
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.bench_portal import Http, _free_port, _pct
from ludothek.devtools.processes import stop

Row = tuple[str, float, str, str]

WINDOW = float(os.environ.get("BENCH_LIMITS_SECONDS", "10"))
FLOODERS = 40
PLAYER_GAMES = 5
IDLE_SOCKETS = 1000
OTHER_REQUESTS = 200


def status_mb(pid: int, field: str) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def start_server(db_url: str, low_file_limit: bool = False, log: Path | None = None,
                 **overrides: Any) -> tuple[subprocess.Popen[bytes], str]:
    """A server subprocess on ``db_url`` with the settings ``overrides``; its output goes to ``log``
    (a file) if given, else its log lines to this process's standard error."""
    port = _free_port()
    args = "".join(f", {k}={v!r}" for k, v in overrides.items())
    code = f"from ludothek.portal import serve; serve({db_url!r}, '127.0.0.1', {port}, bot_delay=0.0{args})"
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))

    out = log.open("ab") if log is not None else None
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=out or subprocess.DEVNULL, stderr=out,
                            preexec_fn=lower if low_file_limit else None)
    if out is not None:
        out.close()  # the child has its own copy
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/api/v1/catalog", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


async def _token(base: str, path: str, body: Any = None) -> str:
    client = Http(base)
    status, answer = await client.request("POST", path, body)
    await client.close()
    if status != 201:
        raise RuntimeError(f"{path} refused: {status} {answer}")
    token: str = answer["token"]
    return token


async def player_pair(base: str, stop: asyncio.Event, move_ms: list[float], think: float) -> None:
    """Two players who keep playing games against each other, timing each move's POST."""
    a, b = await _token(base, "/api/v1/guests"), await _token(base, "/api/v1/guests")
    owner = Http(base, {"Authorization": f"Bearer {a}"})
    joiner = Http(base, {"Authorization": f"Bearer {b}"})
    try:
        while not stop.is_set():
            _, game = await owner.request("POST", "/api/v1/games", {"game": "machikoro", "players": 2})
            gid = game["id"]
            await joiner.request("POST", f"/api/v1/games/{gid}/join")
            running = True
            while running and not stop.is_set():
                for client in (owner, joiner):
                    g = await client.get(f"/api/v1/games/{gid}?log=false")
                    if g["status"] != "running":
                        running = False
                        break
                    if g["my_turn"]:
                        sent = time.perf_counter()
                        await client.request("POST", f"/api/v1/games/{gid}/actions",
                                             {"action": g["legal"][0]["action"], "seq": g["seq"]})
                        move_ms.append((time.perf_counter() - sent) * 1000)
                await asyncio.sleep(think)
    finally:
        await owner.close()
        await joiner.close()


async def _flooder(base: str, k: int, stop: asyncio.Event, codes: dict[str, list[int]]) -> None:
    """Register new accounts, then log in to one, as fast as answers come."""
    client = Http(base)
    try:
        i = 0
        while not stop.is_set():
            name = f"fl{k:02d}x{i:05d}"
            status, _ = await client.request("POST", "/api/v1/users", {"name": name, "password": "password-flood"})
            codes["register"].append(status)
            status, _ = await client.request("POST", "/api/v1/tokens", {"name": f"fl{k:02d}x00000",
                                                                     "password": "password-flood"})
            codes["login"].append(status)
            i += 1
    finally:
        await client.close()


async def login_flood(base: str, pid: int, window: float = WINDOW, flooders: int = FLOODERS,
                      games: int = PLAYER_GAMES) -> dict[str, Any]:
    """``flooders`` clients register and log in for ``window`` seconds while ``games`` pairs play.

    Before the flood the players play alone for half the window (``calm_ms``, for comparison).
    Returns the others' move latencies (``move_ms``), the flooders' answers by route (``codes``),
    and the server's resident memory before (``rss_start``) and at its peak (``peak``), in MB.
    ``benchmarks.probe_security`` runs this too.
    """
    stop = asyncio.Event()
    calm_ms: list[float] = []
    players = [asyncio.create_task(player_pair(base, stop, calm_ms, 0.1)) for _ in range(games)]
    await asyncio.sleep(window / 2)  # the players alone, for comparison
    stop.set()
    await asyncio.gather(*players)
    rss_start = status_mb(pid, "VmRSS")

    stop = asyncio.Event()
    move_ms: list[float] = []
    codes: dict[str, list[int]] = {"register": [], "login": []}
    players = [asyncio.create_task(player_pair(base, stop, move_ms, 0.1)) for _ in range(games)]
    flood = [asyncio.create_task(_flooder(base, k, stop, codes)) for k in range(flooders)]
    await asyncio.sleep(window)
    stop.set()
    await asyncio.gather(*players, *flood)
    return {"calm_ms": calm_ms, "move_ms": move_ms, "codes": codes, "rss_start": rss_start,
            "peak": status_mb(pid, "VmHWM")}


async def _others(base: str, n: int) -> tuple[int, list[float]]:
    token = await _token(base, "/api/v1/guests")
    client = Http(base, {"Authorization": f"Bearer {token}"})
    ok, ms = 0, []
    try:
        for _ in range(n):
            sent = time.perf_counter()
            try:
                status, _ = await asyncio.wait_for(client.request("GET", "/api/v1/games"), timeout=10)
            except (TimeoutError, OSError):
                await client.close()
                continue
            ms.append((time.perf_counter() - sent) * 1000)
            ok += status == 200
    finally:
        await client.close()
    return ok, ms


def _connections(db_url: str) -> list[Row]:
    proc, base = start_server(db_url, low_file_limit=True)
    port = int(base.rsplit(":", 1)[1])
    idle: list[socket.socket] = []
    try:
        for _ in range(IDLE_SOCKETS):
            try:
                idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except OSError:
                break
        time.sleep(0.5)
        ok, ms = asyncio.run(_others(base, OTHER_REQUESTS))
        held = 0
        for s in idle:  # still open from the server's side (it closes them after the request deadline)
            s.setblocking(False)
            try:
                held += s.recv(1) != b""
            except BlockingIOError:
                held += 1
            except OSError:
                pass
        files = len(os.listdir(f"/proc/{proc.pid}/fd"))
    finally:
        for s in idle:
            s.close()
        stop(proc)
    note = f"server started under a 1,024-file soft limit; {files} files open in the server"
    return [
        ("limits: idle sockets held", held, "sockets", f"{len(idle)} opened from one address; {note}"),
        ("limits: others' requests OK beside them", ok, "requests", f"of {OTHER_REQUESTS} GET /api/games"),
        ("limits: others' request p99 beside them", _pct(ms, 99), "ms", f"p50 {_pct(ms, 50):.1f} ms"),
    ]


def run() -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(f"sqlite:///{tmp}/flood.sqlite3", rate_limits=False)
        try:
            f = asyncio.run(login_flood(base, proc.pid))
        finally:
            stop(proc)
        codes = f["codes"]
        reg, log = codes["register"], codes["login"]
        load = f"{FLOODERS} clients registering + logging in for {WINDOW:.0f} s (per-address limits off), real argon2"
        rows += [
            ("limits: server memory peak under flood", f["peak"], "MB",
             f"VmHWM; {f['rss_start']:.0f} MB before; {load}; target < 500 MB"),
            ("limits: others' move p50 under flood", _pct(f["move_ms"], 50), "ms",
             f"{PLAYER_GAMES} games, 100 ms think; {len(f['move_ms'])} moves"),
            ("limits: others' move p99 under flood", _pct(f["move_ms"], 99), "ms",
             f"target < 100 ms; without the flood p99 {_pct(f['calm_ms'], 99):.1f} ms"),
            ("limits: registrations served in flood", reg.count(201), "requests",
             f"{reg.count(429)} refused with 429 (hash gate busy), {len(reg)} sent"),
            ("limits: logins served in flood", log.count(201), "requests",
             f"{log.count(429)} refused with 429, {log.count(401)} 401 (account not made yet), {len(log)} sent"),
        ]
        rows += _connections(f"sqlite:///{tmp}/conn.sqlite3")
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
