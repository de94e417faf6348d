"""Background work that must never run on the web server's event loop.

Mail delivery, correspondence clocks and bot turns are *jobs*: each one finds
its due work in the database, claims it there (so several worker processes and
servers can share the work and nothing is done twice), does it, and records the
outcome.  A runner (``ludothek.workers.runner``) calls every job's `run_once`
in a loop, in its own process (``ludothek worker``) or in a thread of a
single-process deployment (``make run``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class Job(Protocol):
    """One kind of background work, driven by a runner."""

    #: A short stable name, used in logs and metrics ("mail", "clocks", "bots").
    name: str

    def run_once(self, now: datetime) -> int:
        """Claim and do the work that is due at ``now``; return how many items were done.

        ``now`` is injected so tests can move through days in milliseconds.  Must be
        safe to call concurrently from several processes: claim in the database.
        """
        ...
