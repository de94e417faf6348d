"""A fresh server process: how long until it is ready, and what its first page costs (issue 34, cold start).

Starts ``ludothek serve`` on a new SQLite database, with the start-up warm-up (`ludothek.portal.warmup`)
and without it, in turns, and measures:

- *ready*: wall time from starting the process until ``/readyz`` answers 200;
- *first page*: wall time and the server's CPU time (``/proc/<pid>/stat``) of the first ``GET /``
  after it is ready, and of the second (the warm figure).

``python -m benchmarks.bench_cold_start [rounds]``; targets (issue 34): ready in < 3 s, the first page
< 1 s after ready.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from ludothek.devtools.servers import PortTaken
from ludothek.devtools.threaded_server import free_port

Row = tuple[str, float, str, str]
TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """The process's user + system CPU seconds so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _start(folder: str, warm: bool) -> tuple[float, float, float, float]:
    """One fresh process: (seconds until ready, first page's wall ms, its server CPU ms, second page's CPU ms)."""
    db = f"sqlite:///{folder}/cold-{time.monotonic_ns()}.sqlite3"
    env = {**os.environ, "LUDOTHEK_WARM_UP": "on" if warm else "off", "LUDOTHEK_BOT_WORKERS": "0"}
    for _ in range(5):
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "ludothek.cli", "serve", "--db", db, "--host", "127.0.0.1",
                                 "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            while True:
                try:
                    if httpx.get(base + "/readyz", timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None:
                    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                    if "address already in use" in err.lower():
                        raise PortTaken(err[-300:])
                    raise RuntimeError(f"the server died: {err[-1000:]}")
                time.sleep(0.02)
            ready = time.monotonic() - started
            cpu = _cpu(proc.pid)
            t0 = time.perf_counter()
            assert httpx.get(base + "/", timeout=30).status_code == 200
            first_wall = (time.perf_counter() - t0) * 1000
            first_cpu = (_cpu(proc.pid) - cpu) * 1000
            cpu = _cpu(proc.pid)
            httpx.get(base + "/", timeout=30)
            second_cpu = (_cpu(proc.pid) - cpu) * 1000
            return ready, first_wall, first_cpu, second_cpu
        except PortTaken:
            continue
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    raise RuntimeError("no free port in five tries")


def run(rounds: int = 3) -> list[Row]:
    rows: list[Row] = []
    results: dict[bool, list[tuple[float, float, float, float]]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(rounds):  # interleaved, so that the machine's mood falls on both alike
            for warm in (False, True):
                results[warm].append(_start(folder, warm))
    for warm in (False, True):
        label = "with warm-up" if warm else "without warm-up"
        got = results[warm]
        rows += [
            (f"cold start {label}: ready", statistics.median(r[0] for r in got), "s", "process start to /readyz 200; target < 3"),
            (f"cold start {label}: first GET /", statistics.median(r[1] for r in got), "ms", "wall, after ready; target < 1000"),
            (f"cold start {label}: first GET / server CPU", statistics.median(r[2] for r in got), "ms",
             f"second GET /: {statistics.median(r[3] for r in got):.0f} ms"),
        ]
    return rows


if __name__ == "__main__":
    for name, value, unit, note in run(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        print(f"{name:55} {value:10.2f} {unit:4} {note}")
