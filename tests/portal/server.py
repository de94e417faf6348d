"""Run the portal with uvicorn in a background thread on a free loopback port (browser tests).

The server subprocesses (`serve_processes`, `wait_until_serving`) live in `ludothek.devtools.servers`,
shared with ``python -m benchmarks.probe_security``; they are re-exported here for the tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ludothek.devtools.servers import PortTaken, serve_processes, server_processes, wait_until_serving
from ludothek.devtools.threaded_server import free_port, serving
from ludothek.portal import Settings, create_app

__all__ = ["PortTaken", "free_port", "running_server", "serve_processes", "server_processes", "wait_until_serving"]


@contextmanager
def running_server(settings: Settings, port: int | None = None) -> Iterator[str]:
    """The base URL of a portal serving ``settings`` until the block ends (on ``port`` if given)."""
    with serving(create_app(settings), port, start_timeout=20, stop_timeout=10) as base:
        yield base
