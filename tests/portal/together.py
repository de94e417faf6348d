"""Run test work from several threads at once (the chaos tests: every person on every process)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any


def run_threads(target: Callable[..., None], arg_lists: Iterable[tuple[Any, ...]]) -> None:
    """``target(*args)`` for every ``args`` in ``arg_lists``, each in its own thread; returns when all end."""
    threads = [threading.Thread(target=target, args=args) for args in arg_lists]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
