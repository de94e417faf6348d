"""Real ``ludothek serve`` processes for tests, benchmarks and probes, started and stopped around a block.

The multi-process tests (lobby races, chaos, kill -9) and ``python -m benchmarks.probe_security`` need
the same thing: several server processes on one database, each on a free loopback port, their standard
error in a file (a pipe nobody reads fills up and stops the server mid-request), stopped afterwards.
This is the one place that does it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ludothek.devtools.threaded_server import free_port

__all__ = ["PortTaken", "ServerProcess", "serve_processes", "server_processes", "wait_until_serving"]


class PortTaken(RuntimeError):
    """The server died because its port was taken between `free_port` and its bind (a race on a busy
    machine: any outgoing connection may get that port as its local one): start again on another."""


@dataclass(frozen=True)
class ServerProcess:
    """One running server: its process (to kill or measure) and its base URL."""

    proc: subprocess.Popen[bytes]
    base: str


def wait_until_serving(proc: subprocess.Popen[bytes], base: str, timeout: float = 60.0,
                       log: Path | None = None) -> None:
    """Wait until the server subprocess ``proc`` answers at ``base``; fail if it dies or takes too long.

    ``log``: the file the server's standard error goes to, quoted when it dies.
    """
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(base + "/api/catalog", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            if log is not None and log.exists():
                err += log.read_text(errors="replace")
            if "address already in use" in err.lower():
                raise PortTaken(f"the server's port was taken: {err[-500:]}")
            raise RuntimeError(f"the server died (exit code {proc.returncode}): {err[-2000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.2)


@contextmanager
def server_processes(db: str, count: int, log_dir: Path,
                     env: dict[str, str] | None = None) -> Iterator[list[ServerProcess]]:
    """``count`` ``ludothek serve`` processes on the database ``db`` until the block ends.

    ``env`` adds environment variables (``LUDOTHEK_REDIS`` for live updates across them).  The schema
    is migrated first, so the processes do not all create it at once.  A process the block killed
    itself is simply reaped at the end.
    """
    from ludothek.storage import make_engine, migrate

    engine = make_engine(db)
    migrate(engine)
    engine.dispose()
    # Measuring and fuzzing tools play seats in quick succession: turns are handed on at once unless the
    # caller asks otherwise (`ludothek.services.handover`).
    full_env = {"LUDOTHEK_HANDOVER_SECONDS": "0", **os.environ, **(env or {})}
    procs: list[ServerProcess] = []

    def start(i: int) -> ServerProcess:
        for _ in range(5):  # a port taken between free_port and the bind: another one
            port = free_port()
            log = log_dir / f"server-{i}-{port}.log"
            proc = subprocess.Popen(
                [sys.executable, "-m", "ludothek.cli", "serve", "--db", db, "--host", "127.0.0.1", "--port", str(port)],
                env=full_env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))
            server = ServerProcess(proc, f"http://127.0.0.1:{port}")
            procs.append(server)
            try:
                wait_until_serving(proc, server.base, log=log)
            except PortTaken:
                continue
            return server
        raise RuntimeError("no free port for a server in five tries")

    try:
        yield [start(i) for i in range(count)]
    finally:
        for server in procs:
            if server.proc.poll() is None:
                server.proc.terminate()
        for server in procs:
            try:
                server.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                server.proc.wait()


@contextmanager
def serve_processes(db: str, count: int, log_dir: Path, env: dict[str, str] | None = None) -> Iterator[list[str]]:
    """The base URLs of ``count`` ``ludothek serve`` processes on ``db`` (see `server_processes`)."""
    with server_processes(db, count, log_dir, env) as servers:
        yield [s.base for s in servers]
