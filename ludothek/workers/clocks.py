"""The clock job: every seat whose time ran out is handed to a bot (`ClockStore.expire_due`)."""

from __future__ import annotations

from datetime import datetime

from ludothek.storage import Store


class ClockJob:
    name = "clocks"

    def __init__(self, store: Store, batch: int = 100) -> None:
        self.store = store
        self.batch = batch

    def run_once(self, now: datetime) -> int:
        return len(self.store.expire_due(now, limit=self.batch))
