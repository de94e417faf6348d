"""A gate for costly work: at most a few at once per process, a few waiting, the rest refused at once.

Costly work (an argon2 hash of 64 MiB, replaying a record in pure Python under the GIL) run by many
requests at once slows every other request and piles up worker threads and memory.  Past the queue a
request gets 429 with ``Retry-After`` instead of waiting; the password hashes
(`ludothek.portal.limits.HashGate`) and replays (`ludothek.services.community.replaylimits`) both use it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ludothek.storage.errors import TooManyAttempts


class WorkGate:
    """At most ``concurrency`` holders of a slot at once, at most ``queue`` waiting; past that `TooManyAttempts`."""

    def __init__(self, concurrency: int, queue: int, *, message: str, code_key: str | None = None,
                 retry_after: int = 2) -> None:
        self.concurrency = concurrency
        self.queue = queue
        self.message = message
        self.code_key = code_key
        self.retry_after = retry_after
        self._slots = threading.BoundedSemaphore(concurrency)
        self._lock = threading.Lock()
        self._inside = 0  # working or waiting

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one slot for the work inside; refused at once when the queue is full."""
        with self._lock:
            if self._inside >= self.concurrency + self.queue:
                busy = TooManyAttempts(self.message, retry_after=self.retry_after)
                if self.code_key:
                    busy.params["code_key"] = self.code_key
                raise busy
            self._inside += 1
        try:
            with self._slots:
                yield
        finally:
            with self._lock:
                self._inside -= 1
