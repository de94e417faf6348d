"""How many open files a server process uses besides its live sockets (the reserves of docs/operations.md,
"Open files"): at rest, and at the peak of 300 concurrent HTTP connections that list games and ask for
guest accounts, on SQLite and on PostgreSQL, both with Redis (counted in ``/proc/PID/fd``).

``python -m benchmarks open_files``.  Needs Redis on 127.0.0.1:6379 (only connected to); PostgreSQL is
skipped when it is not reachable.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile

import httpx

from benchmarks.bench_portal import _free_port
from ludothek.devtools.postgres import postgres_url, reset_database
from ludothek.devtools.processes import stop
from ludothek.devtools.servers import wait_until_serving
from ludothek.devtools.services import REDIS, port_open

Row = tuple[str, float, str, str]
CONNECTIONS = 300


def _files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _measure(db_url: str) -> tuple[int, int]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ, LUDOTHEK_BOT_WORKERS="0", LUDOTHEK_ACCESS_LOG="off",
               LUDOTHEK_REDIS=f"redis://{REDIS[0]}:{REDIS[1]}/0")
    proc = subprocess.Popen([sys.executable, "-m", "ludothek.cli", "serve", "--db", db_url, "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(proc, base)
        rest = _files(proc.pid)
        peak = [rest]
        errors: list[str] = []

        async def load() -> None:
            limits = httpx.Limits(max_connections=CONNECTIONS)
            async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
                async def one() -> None:
                    try:
                        await client.get("/api/v1/games?limit=5")
                        await client.post("/api/v1/guests")
                    except httpx.HTTPError as exc:
                        errors.append(type(exc).__name__)

                async def watch() -> None:
                    for _ in range(60):
                        peak.append(_files(proc.pid))
                        await asyncio.sleep(0.05)

                await asyncio.gather(watch(), *(one() for _ in range(CONNECTIONS)))

        asyncio.run(load())
        if errors:
            print(f"open files: {len(errors)} requests failed ({', '.join(sorted(set(errors)))})", file=sys.stderr)
        return rest, max(peak)
    finally:
        stop(proc)


def run() -> list[Row]:
    if not port_open(REDIS):
        return [("open files", float("nan"), "files", "Redis is not reachable on 127.0.0.1:6379")]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as folder:
        rest, peak = _measure(f"sqlite:///{folder}/files.sqlite3")
    rows += [("open files at rest, SQLite + Redis", rest, "files", "one server process"),
             ("open files, SQLite + Redis, peak", peak, "files", f"{CONNECTIONS} concurrent HTTP connections")]
    url = postgres_url()
    if url is not None:
        reset_database(url)
        try:
            rest, peak = _measure(url)
        finally:
            reset_database(url)
        rows += [("open files at rest, PostgreSQL + Redis", rest, "files", "one server process"),
                 ("open files, PostgreSQL + Redis, peak", peak, "files", f"{CONNECTIONS} concurrent HTTP connections")]
    return rows
