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
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from . import Job

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Runner:
    """Runs ``jobs`` every ``interval`` seconds until stopped; a failing job is logged, never fatal."""

    def __init__(self, jobs: Sequence[Job], interval: float = 1.0, clock: Callable[[], datetime] = utcnow,
                 pace: float = 0.0) -> None:
        self.jobs = list(jobs)
        self.interval = interval
        #: At least this many seconds between the starts of two passes, however often woken or busy: a
        #: runner woken by every move then does one pass for the moves of ``pace`` seconds, not one each.
        self.pace = pace
        self.clock = clock
        self._stop = threading.Event()
        self._wake = threading.Event()
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
            started = time.monotonic()
            busy = self.run_once()
            # Work left over (a batch limit was reached): go again at once.
            if not busy:
                self._wake.wait(self.interval)
                self._wake.clear()
            rest = self.pace - (time.monotonic() - started)
            if rest > 0 and not self._stop.is_set():
                self._stop.wait(rest)

    def wake(self) -> None:
        """Look for work now instead of at the next tick (a reset mail that someone is waiting for)."""
        self._wake.set()

    def start(self) -> None:
        self._stop.clear()
        names = "+".join(job.name for job in self.jobs)
        self._thread = threading.Thread(target=self.run_forever, name=f"ludothek-{names}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the loop, then let each job release what it holds (a sender's lease)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        for job in self.jobs:
            release = getattr(job, "stop", None)
            if release is None:
                continue
            try:
                release()
            except Exception:
                log.exception("could not stop the %s job cleanly", job.name)
