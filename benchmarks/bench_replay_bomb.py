"""Replay bombs (issue 28, item 1): what one imported record may cost, and others' latency beside four.

- **One bomb, in this process**: `History.imported_book` (the work behind ``POST /api/records/replay``)
  for the probe's record (100 real moves and their chance outcomes plus 9,850 move/undo pairs, about 20,000
  entries: refused now) and for the costliest record the bounds let through (1,000 undo pairs, the
  most undos accepted).  Measured: CPU seconds (``time.process_time``) and the peak of
  ``tracemalloc`` during the request's work, and the bytes its book holds in the cache.
- **Four at once, against a real server** (SQLite, rate limits off: a real flood comes from many
  addresses): four clients send distinct bombs of the second kind as fast as they are answered
  while five pairs of players play Machi Koro.  Measured: the players' move p50/p99, the bombs
  served and refused (429 from the replay gate), and the server's peak memory (``VmHWM``).

Targets from the issue: no request costs more than 2 s of CPU or 50 MB; others' p99 < 200 ms.
Run alone: ``python -m benchmarks replay_bomb`` (``BENCH_REPLAY_SECONDS`` sets the window).
"""

from __future__ import annotations

import asyncio
import gc
import os
import tempfile
import time
import tracemalloc
from typing import Any

from benchmarks.bench_limits import _token, player_pair, start_server, status_mb
from benchmarks.bench_portal import Http, _pct
from ludothek.devtools.processes import stop
from ludothek.devtools.replaybomb import bomb
from ludothek.storage import StoreError

Row = tuple[str, float, str, str]

WINDOW = float(os.environ.get("BENCH_REPLAY_SECONDS", "8"))
BOMBERS = 4
PLAYER_GAMES = 5
#: The probe's record, and the costliest one within the default bounds (1,000 undos).
PROBE = {"real": 100, "pairs": 9_850}
WITHIN = {"real": 100, "pairs": 1_000}


def _import(record: dict[str, Any], traced: bool) -> tuple[float, float, int, str]:
    """CPU seconds, peak MB (with ``traced``) and cached bytes of one import of ``record`` in a fresh `History`."""
    from ludothek.services.community.history import History

    history = History(None, None, None, None)  # type: ignore[arg-type]  # imports touch no database
    gc.collect()
    if traced:
        tracemalloc.start()
    cpu = time.process_time()
    outcome = "replayed"
    try:
        history.imported_book(record)
    except StoreError as exc:
        outcome = f"refused {exc.status} ({exc.message[:60]})"
    cpu = time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] / 2**20 if traced else float("nan")
    if traced:
        tracemalloc.stop()
    return cpu, peak, history._imported.bytes, outcome


def _one(record: dict[str, Any]) -> tuple[float, float, int, str]:
    """CPU (untraced: tracemalloc slows Python down) and peak memory (traced) of one import."""
    cpu, _, kept, outcome = _import(record, traced=False)
    _, peak, _, _ = _import(record, traced=True)
    return cpu, peak, kept, outcome


async def _bomber(base: str, k: int, stop_at: asyncio.Event, codes: list[int], ms: list[float]) -> None:
    token = await _token(base, "/api/v1/guests")
    client = Http(base, {"Authorization": f"Bearer {token}"})
    i = 0
    try:
        while not stop_at.is_set():
            record = bomb(salt=k * 100_000 + i, **WITHIN)
            sent = time.perf_counter()
            status, _ = await client.request("POST", "/api/v1/records/replay", {"record": record, "log": 0})
            ms.append((time.perf_counter() - sent) * 1000)
            codes.append(status)
            i += 1
            if status == 429:
                await asyncio.sleep(0.5)
    finally:
        await client.close()


async def _load(base: str, pid: int) -> dict[str, Any]:
    stop_at = asyncio.Event()
    calm: list[float] = []
    players = [asyncio.create_task(player_pair(base, stop_at, calm, 0.1)) for _ in range(PLAYER_GAMES)]
    await asyncio.sleep(WINDOW / 2)
    stop_at.set()
    await asyncio.gather(*players)
    cpu_before = _cpu_seconds(pid)
    stop_at = asyncio.Event()
    moves: list[float] = []
    codes: list[int] = []
    bomb_ms: list[float] = []
    players = [asyncio.create_task(player_pair(base, stop_at, moves, 0.1)) for _ in range(PLAYER_GAMES)]
    bombers = [asyncio.create_task(_bomber(base, k, stop_at, codes, bomb_ms)) for k in range(BOMBERS)]
    await asyncio.sleep(WINDOW)
    stop_at.set()
    await asyncio.gather(*players, *bombers)
    return {"calm": calm, "moves": moves, "codes": codes, "bomb_ms": bomb_ms, "peak": status_mb(pid, "VmHWM"),
            "cpu": _cpu_seconds(pid) - cpu_before}


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run() -> list[Row]:
    rows: list[Row] = []
    for name, shape in (("probe's record (20,000 entries)", PROBE), ("costliest accepted (1,000 undo pairs)", WITHIN)):
        record = bomb(**shape)
        _one(record)  # the game's tables and caches, loaded once
        cpu, peak, kept, outcome = _one(record)
        note = f"{len(record['actions'])} entries, {outcome}; target < 2 s"
        rows += [
            (f"replay bomb: CPU of one, {name}", cpu * 1000, "ms", note),
            (f"replay bomb: peak memory of one, {name}", peak, "MB", f"tracemalloc; book kept {kept / 2**20:.1f} MB"
                                                                     "; target < 50 MB"),
        ]
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start_server(f"sqlite:///{tmp}/bomb.sqlite3", rate_limits=False)
        try:
            f = asyncio.run(_load(base, proc.pid))
        finally:
            stop(proc)
    codes = f["codes"]
    load = f"{BOMBERS} clients sending distinct accepted bombs for {WINDOW:.0f} s (rate limits off)"
    rows += [
        ("replay bomb: others' move p50 beside 4 bombs", _pct(f["moves"], 50), "ms",
         f"{PLAYER_GAMES} games, 100 ms think; {len(f['moves'])} moves; {load}"),
        ("replay bomb: others' move p99 beside 4 bombs", _pct(f["moves"], 99), "ms",
         f"target < 200 ms; without the bombs p99 {_pct(f['calm'], 99):.1f} ms"),
        ("replay bomb: bombs served", codes.count(200), "requests",
         f"{codes.count(429)} refused with 429 (gate full), {len(codes)} sent; bomb p50 {_pct(f['bomb_ms'], 50):.0f} ms"),
        ("replay bomb: server memory peak", f["peak"], "MB", f"VmHWM; server CPU in the window {f['cpu']:.1f} s"),
    ]
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
