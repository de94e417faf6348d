"""A Redis server of the test's own, on a free port, that the test may stop and start again.

The shared Redis on 6379 serves every test (and other work) on the machine: a test that needs Redis
to go away starts its own here instead and stops only that one.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator

import pytest

from ludothek.devtools.services import port_open
from ludothek.devtools.threaded_server import free_port
from tests.conftest import needs


class PrivateRedis:
    """``redis-server`` on a free loopback port, without persistence; `stop` and `start` at will."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        assert self.proc is None, "already running"
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while not port_open(("127.0.0.1", self.port), timeout=0.2):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the private redis-server on port {self.port} did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    """A running private Redis, stopped at the end of the test (whatever state the test left it in)."""
    needs(None if shutil.which("redis-server") else "redis-server is not installed")
    server = PrivateRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()
