"""A stub notification channel for the notice worker's tests and benchmark: it records each delivery
(in memory, and as a line appended to a file when given one, so that several processes can be checked),
and can be told to fail, to hang, or to hang after recording (a process killed mid-send)."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import ClassVar

from ludothek.services import Site
from ludothek.workers.channels.base import Delivery, Message, Outcome, Retry, Sent


class StubChannel:
    """Satisfies `ludothek.workers.channels.base.Channel` under any of the preference channels' names."""

    backoff: ClassVar[Sequence[timedelta]] = (timedelta(seconds=10), timedelta(seconds=20))

    def __init__(self, site: Site, name: str = "webhook", record: str | None = None, mode: str = "ok",
                 use_prefs: bool = True, needs_message: bool = False) -> None:
        self.name = name  # type: ignore[misc]  # a class variable in the protocol; each stub has its own
        self.site = site
        self.record = record
        self.mode = mode
        self.use_prefs = use_prefs
        #: False: handed an empty `Message` (these notices name no game that exists).
        self.needs_message = needs_message
        self.got: list[tuple[int, int, str, Message, float]] = []
        self.release = threading.Event()
        #: Set once a delivery has begun (in "hang" mode: the channel hangs from now on).
        self.entered = threading.Event()

    def enabled(self) -> bool:
        return True

    def targets(self, user_id: int, kind: str) -> Sequence[int]:
        if self.use_prefs and not self.site.notices.wants(user_id, self.name, kind):
            return []
        return [0]

    def deliver(self, delivery: Delivery, message: Message, now: datetime) -> Outcome:
        if self.mode == "fail":
            return Retry("the stub fails")
        if self.mode == "raise":
            raise RuntimeError("the stub raises")
        self.entered.set()
        if self.mode == "hang":
            self.release.wait(60)
        self.got.append((delivery.notice.id, delivery.target, delivery.notice.kind, message, time.time()))
        if self.record is not None:
            fd = os.open(self.record, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, f"{delivery.notice.id} {os.getpid()} {time.time():.6f}\n".encode())
                os.fsync(fd)
            finally:
                os.close(fd)
        if self.mode == "die_after_record":
            time.sleep(3600)  # the test kills this process now
        return Sent()


def main(argv: list[str]) -> int:
    """``python -m tests.portal.notice_stub DB_URL RECORD MODE PASSES``: a worker process with one stub channel."""
    from ludothek.storage import make_engine
    from ludothek.storage.models import utcnow
    from ludothek.workers.notices import NoticeJob

    url, record, mode, passes = argv[0], argv[1], argv[2], int(argv[3])
    site = Site(make_engine(url))
    job = NoticeJob(site, [StubChannel(site, "webhook", record, mode, use_prefs=False)], batch=7)
    for _ in range(passes):
        job.run_once(utcnow())
    job.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
