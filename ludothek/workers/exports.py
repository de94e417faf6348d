"""The open-data job: each month's export written once, by whichever worker claims it first.

It runs in every ``ludothek worker`` and, in a thread of its own, in every server process (unless
``LUDOTHEK_EXPORTS=off``); the claim in the database (`OpenData.claim`) makes each month's export
happen exactly once however many run.  Writing a month takes seconds to minutes of one core, so it
never runs on a server's event loop nor in the clock job's thread (a turn's deadline must not wait
for it).  Between passes it looks for due months at most every `LOOK_EVERY`: a month becomes due
once a month, so looking every second would only cost queries.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ludothek.services import Site
from ludothek.services.opendata import LostClaim

log = logging.getLogger(__name__)

#: The least time between two looks for due months (the first look is at once).
LOOK_EVERY = timedelta(minutes=5)


class ExportJob:
    name = "exports"

    def __init__(self, site: Site, folder: Path, owner: str | None = None,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.site = site
        self.folder = Path(folder)
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        #: The clock the lease is measured by while writing (the runner's ``now`` starts each pass).
        self.clock = clock
        self._next_look: datetime | None = None

    def run_once(self, now: datetime) -> int:
        """Write the oldest due month this worker can claim; 1 if it wrote one (the runner goes again)."""
        if self._next_look is not None and now < self._next_look:
            return 0
        for month in self.site.opendata.due_months(now):
            try:
                done = self.site.opendata.run_month(month, self.folder, self.owner, self.clock)
            except LostClaim:
                log.warning("open data: the export of %s was taken over by another worker", month)
                continue
            if done is not None:
                log.info("open data: published %s: %d games, %d bytes, sha256 %s", month, done.games, done.bytes,
                         done.sha256)
                return 1
        self._next_look = now + LOOK_EVERY
        return 0
