"""Serve an ASGI app with uvicorn in a background thread on a free loopback port.

The browser tests, the API fuzzer (`ludothek.devtools.apifuzz`) and other tools need a real HTTP
server in their own process, started and stopped around a block of work; this is the one way to do it.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serving(app: Any, port: int | None = None, start_timeout: float = 30.0,
            stop_timeout: float = 15.0) -> Iterator[str]:
    """The base URL of ``app`` served on ``port`` (a free one if not given) until the block ends."""
    port = port or free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="websockets-sansio")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the portal did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=stop_timeout)
