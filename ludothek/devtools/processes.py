"""Stopping the server subprocesses that tests and benchmarks start."""

from __future__ import annotations

import subprocess
from typing import Any


def stop(proc: subprocess.Popen[Any], timeout: float = 20.0) -> None:
    """Ask ``proc`` to end (SIGTERM, a graceful shutdown), and kill it if it has not within ``timeout``."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
