"""Where the event loop's blocking store calls run: inline on SQLite, in a thread pool on PostgreSQL.

The hot API handlers are ``async``.  On SQLite a store call is a few microseconds of work in this
process, and one thread doing them in turn beats a pool of threads contending for the GIL and for
SQLite's write lock.  On PostgreSQL a call mostly *waits* for the database server: made on the
event loop, every round trip stopped every other request of the process (one server process
managed 386 moves/s while the database could commit 3,000 times a second).  There the calls run in
a pool of threads sized to the connection pool, and the loop serves other requests meanwhile.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

#: Threads for database calls per server process (PostgreSQL); each holds at most one pooled connection.
#: A commit waits for the database's disk (1-10 ms on the development machine), and commits of
#: concurrent moves share one flush: moves in flight, not CPU, bound the rate (`docs/operations.md`).
#: ``LUDOTHEK_DB_THREADS`` overrides it.
DB_THREADS = int(os.environ.get("LUDOTHEK_DB_THREADS") or 32)


class Offload:
    """``await offload(fn, *args)``: ``fn(*args)`` on the loop (``threads=0``) or in a database thread."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ludothek-db") if threads else None

    @classmethod
    def for_database(cls, dialect: str, threads: int | None = None) -> Offload:
        return cls(0 if dialect == "sqlite" else (DB_THREADS if threads is None else threads))

    async def __call__(self, fn: Callable[..., T], *args: Any) -> T:
        if self._pool is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
