"""Run the portal with uvicorn in a background thread on a free loopback port (browser tests)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ludothek.devtools.threaded_server import free_port, serving
from ludothek.portal import Settings, create_app

__all__ = ["PortTaken", "free_port", "running_server", "serve_processes", "wait_until_serving"]


class PortTaken(RuntimeError):
    """The server died because its port was taken between `free_port` and its bind (a race on a busy
    machine: any outgoing connection may get that port as its local one): start again on another."""


@contextmanager
def running_server(settings: Settings, port: int | None = None) -> Iterator[str]:
    """The base URL of a portal serving ``settings`` until the block ends (on ``port`` if given)."""
    with serving(create_app(settings), port, start_timeout=20, stop_timeout=10) as base:
        yield base


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
def serve_processes(db: str, count: int, log_dir: Path, env: dict[str, str] | None = None) -> Iterator[list[str]]:
    """The base URLs of ``count`` ``ludothek serve`` processes on the database ``db`` until the block ends.

    Each server's standard error goes to a file in ``log_dir`` (quoted if it dies at start): a pipe
    that nobody reads fills up after some hundred log lines and stops the server in the middle of a
    request.  ``env`` adds environment variables.  The schema is migrated first, so the processes do
    not all create it at once.
    """
    from ludothek.storage import make_engine, migrate

    engine = make_engine(db)
    migrate(engine)
    engine.dispose()
    full_env = {**os.environ, **(env or {})}
    procs: list[tuple[subprocess.Popen[bytes], str]] = []

    def start(i: int) -> tuple[subprocess.Popen[bytes], str]:
        for _ in range(5):  # a port taken between free_port and the bind: another one
            port = free_port()
            log = log_dir / f"server-{i}-{port}.log"
            proc = subprocess.Popen(
                [sys.executable, "-m", "ludothek.cli", "serve", "--db", db, "--host", "127.0.0.1", "--port", str(port)],
                env=full_env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))
            base = f"http://127.0.0.1:{port}"
            procs.append((proc, base))
            try:
                wait_until_serving(proc, base, log=log)
            except PortTaken:
                continue
            return proc, base
        raise RuntimeError("no free port for a server in five tries")

    try:
        yield [start(i)[1] for i in range(count)]
    finally:
        for proc, _ in procs:
            proc.terminate()
        for proc, _ in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
