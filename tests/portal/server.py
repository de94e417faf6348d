"""Run the portal with uvicorn in a background thread on a free loopback port (browser tests)."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from ludothek.portal import Settings, create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def running_server(settings: Settings, port: int | None = None) -> Iterator[str]:
    """The base URL of a portal serving ``settings`` until the block ends (on ``port`` if given)."""
    app = create_app(settings)
    port = port or free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="websockets-sansio")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the portal did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def wait_until_serving(proc: subprocess.Popen[bytes], base: str, timeout: float = 60.0) -> None:
    """Wait until the server subprocess ``proc`` answers at ``base``; fail if it dies or takes too long."""
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
            raise RuntimeError(f"the server died: {err[-2000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.2)
