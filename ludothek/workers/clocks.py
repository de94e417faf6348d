"""The clock job: reminders a day before a deadline, and every seat whose time ran out handed to a bot."""

from __future__ import annotations

from datetime import datetime

from ludothek.storage import Store


class ClockJob:
    name = "clocks"

    def __init__(self, store: Store, batch: int = 100) -> None:
        self.store = store
        self.batch = batch

    def run_once(self, now: datetime) -> int:
        """Reminders for deadlines less than a day away, then every seat whose time ran out."""
        reminded = self.store.queue_reminders(now, limit=self.batch)
        return len(reminded) + len(self.store.expire_due(now, limit=self.batch))
