"""The runner: calls every job's `run_once` in a loop, outside any event loop.

One runner runs in a thread of every server process (``ludothek serve``,
``make run``) and in every ``ludothek worker`` process.  Jobs claim their work
in the database, so any number of runners may share one database: each
deadline fires once, each mail goes out once.  The clock is injectable, so
tests step through days in milliseconds by calling `run_once` themselves.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from . import Job

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Runner:
    """Runs ``jobs`` every ``interval`` seconds until stopped; a failing job is logged, never fatal."""

    def __init__(self, jobs: Sequence[Job], interval: float = 1.0, clock: Callable[[], datetime] = utcnow) -> None:
        self.jobs = list(jobs)
        self.interval = interval
        self.clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> int:
        """One pass over every job at the clock's current time; how many items were done."""
        now = self.clock()
        done = 0
        for job in self.jobs:
            try:
                done += job.run_once(now)
            except Exception:
                log.exception("background job %s failed", job.name)
        return done

    def run_forever(self) -> None:
        while not self._stop.is_set():
            busy = self.run_once()
            # Work left over (a batch limit was reached): go again at once.
            if not busy:
                self._stop.wait(self.interval)

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self.run_forever, name="ludothek-jobs", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
