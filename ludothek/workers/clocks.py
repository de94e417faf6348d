"""The clock job: turns whose grace period ended handed on, reminders a day before a deadline, and every
seat whose time ran out handed to a bot."""

from __future__ import annotations

from datetime import datetime

from ludothek.services import Site


class ClockJob:
    name = "clocks"

    def __init__(self, site: Site, batch: int = 100) -> None:
        self.site = site
        self.batch = batch

    def run_once(self, now: datetime) -> int:
        """Turns due to be handed on (`ludothek.services.handover`), reminders for deadlines less than a
        day away, then every seat whose time ran out."""
        handed = self.site.play.hand_on_due(now, limit=self.batch)
        reminded = self.site.clocks.queue_reminders(now, limit=self.batch)
        return len(handed) + len(reminded) + len(self.site.clocks.expire_due(now, limit=self.batch))
