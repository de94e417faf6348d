"""The nightly statistics rebuild (issue 32): once a day, from `REBUILD_HOUR` UTC on, by one worker.

It runs beside the open-data job, in the same thread of its own (never on a server's event loop, never in
the clock job's thread).  The day's row in ``statistics_builds`` is the claim (`Statistics.claim_night`).
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import datetime, timedelta

from ludothek.services import Site

log = logging.getLogger(__name__)

#: The rebuild starts at this hour (UTC), when the site is quiet.
REBUILD_HOUR = 3
LOOK_EVERY = timedelta(minutes=5)


class StatisticsJob:
    name = "statistics"

    def __init__(self, site: Site, owner: str | None = None, hour: int = REBUILD_HOUR) -> None:
        self.site = site
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.hour = hour
        self._next_look: datetime | None = None

    def run_once(self, now: datetime) -> int:
        """Rebuild if tonight's rebuild is due and this worker claims it; 1 if it rebuilt."""
        if self._next_look is not None and now < self._next_look:
            return 0
        self._next_look = now + LOOK_EVERY
        if now.hour < self.hour or not self.site.statistics.claim_night(now, self.owner):
            return 0
        games = self.site.statistics.rebuild(now)
        self.site.statistics.finish_night(now, self.owner)
        log.info("statistics rebuilt from %d finished games", games)
        return 1
