"""The notice fan-out asks a channel for a whole batch's targets at once where it can (issue 34: a
move's CPU), and finishes a batch of deliveries in grouped statements: the same deliveries, the same
attempt rows, and one channel's failure still leaves the other notices and channels alone."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update

from ludothek.services import Site
from ludothek.services.webhooks import WebhookPolicy
from ludothek.storage.models import OutboxAttempt, Webhook, utcnow
from ludothek.workers.channels.webhook import KINDS, WebhookChannel
from ludothek.workers.notices import NoticeJob
from tests.portal.notice_stub import StubChannel
from tests.portal.test_notices import queue, users
from tests.portal.test_storage import new_site


@pytest.fixture
def site(any_db: str) -> Iterator[Site]:
    s = new_site(any_db)
    yield s
    s.engine.dispose()


def test_webhook_targets_for_a_batch_are_each_rows_own(site: Site) -> None:
    anna, bert, cleo = users(site, "anna", "bert", "cleo")
    site.webhooks.policy = WebhookPolicy(allow_loopback=True)
    first = site.webhooks.add(anna, "http://127.0.0.1:9/a").id
    second = site.webhooks.add(anna, "http://127.0.0.1:9/b").id
    off = site.webhooks.add(cleo, "http://127.0.0.1:9/c").id
    with site.engine.begin() as conn:
        conn.execute(update(Webhook).where(Webhook.id == off).values(enabled=False))
    channel = WebhookChannel(site.webhooks, "http://127.0.0.1:8000")
    kind = sorted(KINDS)[0]
    wanted = [(anna, kind), (bert, kind), (cleo, kind), (anna, "reset"), (anna, kind)]
    assert channel.targets_many(wanted) == [channel.targets(u, k) for u, k in wanted]
    assert channel.targets_many(wanted)[0] == [first, second]
    assert channel.targets_many([]) == []


class Batched(StubChannel):
    """A stub that answers a batch in one call, or (``mode="batch-raise"``) fails to: then each row is asked."""

    def __init__(self, site: Site, name: str, mode: str = "ok", bad_user: int | None = None) -> None:
        super().__init__(site, name)
        self.batch_mode, self.bad_user, self.batches = mode, bad_user, 0

    def targets(self, user_id: int, kind: str) -> Sequence[int]:
        if user_id == self.bad_user:
            raise RuntimeError("cannot say")
        return super().targets(user_id, kind)

    def targets_many(self, wanted: Sequence[tuple[int, str]]) -> list[Sequence[int]]:
        self.batches += 1
        if self.batch_mode == "batch-raise":
            raise RuntimeError("cannot say for the batch")
        return [self.targets(u, k) for u, k in wanted]


def _attempts(site: Site) -> list[Any]:
    with site.engine.begin() as conn:
        return list(conn.execute(OutboxAttempt.__table__.select()).all())


def test_a_batch_that_fails_is_asked_row_by_row_and_a_failing_row_is_left_out_alone(site: Site) -> None:
    anna, bert = users(site, "anna", "bert")
    push = Batched(site, "push", mode="batch-raise", bad_user=bert)
    hook = Batched(site, "webhook")
    ids = [queue(site, anna, "turn"), queue(site, bert, "turn"), queue(site, anna, "ended")]
    NoticeJob(site, [push, hook]).run_once(utcnow())
    assert push.batches == 1 and hook.batches == 1
    assert sorted(n for n, *_ in push.got) == [ids[0], ids[2]]  # bert's row left out of push only
    assert sorted(n for n, *_ in hook.got) == ids
    rows = site.deliveries.rows()
    assert len(rows) == 5 and {r["status"] for r in rows} == {"sent"} and {r["attempts"] for r in rows} == {1}
    assert len(_attempts(site)) == 5 and all(a.ok for a in _attempts(site))


def test_grouped_finishing_records_each_outcome_as_one_at_a_time_would(site: Site) -> None:
    (anna,) = users(site, "anna")
    ok, failing = StubChannel(site, "push"), StubChannel(site, "webhook", mode="fail")
    ids = [queue(site, anna, "turn") for _ in range(12)]
    job = NoticeJob(site, [ok, failing])
    now = utcnow()
    job.run_once(now)
    rows = site.deliveries.rows()
    assert sorted(n for n, *_ in ok.got) == ids
    assert {(r["channel"], r["status"], r["attempts"]) for r in rows} == {("push", "sent", 1), ("webhook", "pending", 1)}
    attempts = _attempts(site)
    assert len(attempts) == 24 and sorted(a.ok for a in attempts) == [False] * 12 + [True] * 12
    # the retries come due after the back-off, and are counted again
    job.run_once(now + timedelta(seconds=11))
    assert {r["attempts"] for r in site.deliveries.rows() if r["channel"] == "webhook"} == {2}
    assert len(_attempts(site)) == 36
