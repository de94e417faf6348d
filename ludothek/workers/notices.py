"""The notice worker (issue 30): outbox rows fanned out to the channels, then delivered by each channel.

Two steps, each claimed in the database so any number of processes may run them:

1. `FanOut` claims due outbox rows as the mail sender did (``pending`` → ``sending`` under a lease:
   ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, the ``mail`` lease on SQLite), asks every enabled channel
   of `ludothek.workers.channels.registry` where the player wants the notice (`Channel.targets`), and
   writes those deliveries and the row's ``dispatched`` in ONE transaction (`Deliveries.fan_out`).
2. `ChannelJob` (one per channel) claims that channel's due deliveries, builds each notice's
   `Message`, calls `Channel.deliver`, and records the outcome: ``sent``; ``skipped``; a `Retry` after
   ``Retry.after`` or the channel's back-off (``failed`` after the last); ``failed``.  A delivery still
   ``sending`` after its lease is failed, never tried twice.

Every channel has a runner (a thread) of its own in a server or worker process (`NoticeRunners`), so
a channel that fails or hangs holds back no other.  The move path stays one ``INSERT`` into
``outbox``; the fan-out runner is woken by every stored move of its process (`NoticeRunners.wake`),
so a notice reaches its channel within a fraction of a second rather than at the next tick.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from ludothek.services import Site
from ludothek.services.notices.messages import Message
from ludothek.services.outbox import KEEP_FINISHED
from ludothek.storage.deliveries import LEASE, ClaimedDelivery
from ludothek.storage.info import GameEvent

from .channels.base import Channel, Delivery, Failed, Notice, Outcome, Retry, Sent, Skipped
from .runner import Runner

log = logging.getLogger(__name__)

#: At most this many batches in one pass (then the runner goes again at once).
MAX_BATCHES = 40
#: How often finished outbox rows and deliveries older than ``keep`` are deleted.
PRUNE_EVERY = timedelta(hours=1)
#: At least this long between two passes of a runner, however many moves wake it: under load each
#: pass takes the notices of many moves at once (a pass per move would cost every move a few queries).
PACE = 0.2
#: Deliveries begun together, unless the channel says otherwise (``begin_together``; mail: 1).
BEGIN_TOGETHER = 8
#: What a channel's deliver raising (instead of returning an outcome) is recorded as.
RAISED = "the channel raised"


def owner_name() -> str:
    """A claimer's name in leases: unique per process and job."""
    return f"{os.getpid()}-{uuid.uuid4().hex[:12]}"


class FanOut:
    """Claim due outbox rows and turn each into its deliveries (one transaction per batch)."""

    name = "notices"

    def __init__(self, site: Site, channels: Sequence[Channel], *, batch: int = 200,
                 keep: timedelta = KEEP_FINISHED, on_fanned: Callable[[], None] | None = None) -> None:
        self.site = site
        self.channels = list(channels)
        self.batch = batch
        self.keep = keep
        self.owner = owner_name()
        #: Called after a pass that made deliveries (wakes the channels' runners).
        self.on_fanned = on_fanned
        self._pruned: datetime | None = None

    def run_once(self, now: datetime) -> int:
        """Fan out what is due at ``now``; returns how many outbox rows were dispatched."""
        self.site.outbox.fail_interrupted_mail(now)
        self._prune(now)
        for channel in self.channels:
            tick = getattr(channel, "tick", None)
            if tick is not None:
                try:
                    tick(now)  # the mail channel queues the digests that are due
                except Exception:
                    log.exception("the %s channel's tick failed", channel.name)
        enabled = [c for c in self.channels if c.enabled()]
        done = 0
        for _ in range(MAX_BATCHES):
            rows = self.site.outbox.claim_mail(self.owner, now, self.batch)
            if not rows:
                break
            wanted: list[list[tuple[str, int]]] = [[] for _ in rows]
            for channel in enabled:
                # One place decides what a player wants (their choices per channel and kind); the channel
                # then names its targets (a device, a hook; mail checks the address).
                asked = [k for k, row in enumerate(rows) if self.site.notices.wants(row.user_id, channel.name, row.kind)]
                for k, targets in zip(asked, self._targets(channel, [rows[k] for k in asked]), strict=True):
                    wanted[k] += [(channel.name, int(t)) for t in targets]
            plans = [(row.id, targets) for row, targets in zip(rows, wanted, strict=True)]
            self.site.deliveries.fan_out(plans, now)
            done += len(rows)
            if len(rows) < self.batch:
                break
        if done and self.on_fanned is not None:
            self.on_fanned()
        return done

    @staticmethod
    def _targets(channel: Channel, rows: Sequence[Any]) -> list[Sequence[int]]:
        """Each row's targets on ``channel``: in one call for the batch where the channel can
        (``targets_many``, one query instead of one per notice), else row by row.  A channel that cannot
        say for a row leaves that row out (logged), not the others."""
        many = getattr(channel, "targets_many", None)
        if many is not None:
            try:
                got: list[Sequence[int]] = many([(row.user_id, row.kind) for row in rows])
                return got
            except Exception:
                log.exception("the %s channel could not name its targets for a batch; asking row by row", channel.name)
        out: list[Sequence[int]] = []
        for row in rows:
            try:
                out.append(channel.targets(row.user_id, row.kind))
            except Exception:  # a channel that cannot say is left out of this notice, not the others
                log.exception("the %s channel could not name its targets for notice %s", channel.name, row.id)
                out.append([])
        return out

    def _prune(self, now: datetime) -> None:
        if self._pruned is not None and now - self._pruned < PRUNE_EVERY:
            return
        self._pruned = now
        gone = self.site.deliveries.prune(now - self.keep)
        gone += self.site.outbox.prune_mail(now - self.keep)
        if gone:
            log.info("deleted %d finished notices and deliveries older than %d days", gone, self.keep.days)

    def stop(self) -> None:
        self.site.outbox.release_lease(self.owner)


class ChannelJob:
    """Claim one channel's due deliveries, deliver each, record the outcome."""

    def __init__(self, site: Site, channel: Channel, *, batch: int = 50) -> None:
        self.site = site
        self.channel = channel
        self.name = f"notices-{channel.name}"
        self.batch = batch
        self.owner = owner_name()
        self.lease: timedelta = getattr(channel, "lease", LEASE)
        #: How many deliveries are begun in one transaction: if the process dies, the untried ones of
        #: its group are failed with the one being tried (never sent twice; at most this many lost).
        self.together = max(1, int(getattr(channel, "begin_together", BEGIN_TOGETHER)))

    def run_once(self, now: datetime) -> int:
        """Deliver what is due at ``now``; returns how many were sent."""
        deliveries = self.site.deliveries
        name = self.channel.name
        deliveries.fail_interrupted(name, now)
        sent = 0
        try:
            for _ in range(MAX_BATCHES):
                claimed = deliveries.claim(name, self.owner, now, self.batch, self.lease)
                # The outcomes of one group are recorded in the transaction that begins the next group.
                done: list[dict[str, Any]] = []
                for at in range(0, len(claimed), self.together):
                    group = claimed[at:at + self.together]
                    mine = set(deliveries.begin([item.id for item in group], now, done))
                    done = []
                    for item in group:
                        if item.id not in mine:
                            continue
                        outcome = self._deliver(item, now)
                        done.append(self._finish_args(item, outcome, now))
                        sent += isinstance(outcome, Sent)
                deliveries.finish_many(now, done)
                if len(claimed) < self.batch:
                    break
        finally:
            close = getattr(self.channel, "close", None)
            if close is not None:
                close()
        return sent

    def _deliver(self, item: ClaimedDelivery, now: datetime) -> Outcome:
        notice = Notice(item.outbox_id, item.user_id, item.kind, item.game_id, item.seq, item.payload,
                        item.created_at)
        delivery = Delivery(item.id, item.channel, item.target, notice, item.attempts)
        try:
            message: Message | None
            if getattr(self.channel, "needs_message", True):
                message = self.site.messages.message(item.user_id, item.kind, item.game_id, item.seq,
                                                     item.payload, now)
                if message is None:
                    return Skipped("nothing left to tell: the user or the game is gone")
            else:
                message = Message("", "", "", "")
            return self.channel.deliver(delivery, message, now)
        except Exception as exc:  # a channel must not raise; if it does, it is an attempt that failed
            log.exception("the %s channel raised on delivery %s", self.channel.name, item.id)
            return Retry(f"{RAISED}: {type(exc).__name__}: {exc}"[:500])

    def _finish_args(self, item: ClaimedDelivery, outcome: Outcome, now: datetime) -> dict[str, Any]:
        """How `Deliveries.finish` records ``outcome`` (a retry after ``Retry.after`` or the back-off)."""
        common: dict[str, Any] = {"delivery_id": item.id, "attempts": item.attempts, "outbox_id": item.outbox_id,
                                  "channel": item.channel}
        if isinstance(outcome, Sent):
            return {**common, "status": "sent"}
        if isinstance(outcome, Skipped):
            return {**common, "status": "skipped", "error": outcome.reason[:500]}
        if isinstance(outcome, Failed):
            log.warning("%s delivery %s (%s) failed for good", item.channel, item.id, item.kind)
            return {**common, "status": "failed", "error": outcome.error[:500]}
        backoff = self.channel.backoff
        if item.attempts + 1 > len(backoff):
            log.warning("%s delivery %s (%s) failed after %d attempts", item.channel, item.id, item.kind,
                        item.attempts + 1)
            return {**common, "status": "failed", "error": outcome.error[:500]}
        wait = outcome.after if outcome.after is not None else backoff[item.attempts]
        return {**common, "status": "pending", "error": outcome.error[:500], "retry_at": now + wait}

    def stop(self) -> None:
        self.site.deliveries.release_lease(self.channel.name, self.owner)
        release = getattr(self.channel, "stop", None)
        if release is not None:
            release()


class NoticeJob:
    """Fan-out and every channel, one after the other, in one job: for tests (which step the clock)
    and for embedders that run everything in one thread.  Servers and workers use `NoticeRunners`."""

    name = "notices"

    def __init__(self, site: Site, channels: Sequence[Channel], *, batch: int = 50,
                 keep: timedelta = KEEP_FINISHED) -> None:
        self.site = site
        self.channels = list(channels)
        self.fan_out = FanOut(site, self.channels, batch=max(batch, 1), keep=keep)
        self.jobs = [ChannelJob(site, channel, batch=batch) for channel in self.channels]
        self.owner = self.fan_out.owner

    def channel(self, name: str) -> Channel | None:
        return next((c for c in self.channels if c.name == name), None)

    def run_once(self, now: datetime) -> int:
        """One pass: fan out, then let every channel deliver; returns how many deliveries were sent."""
        self.fan_out.run_once(now)
        sent = 0
        for job in self.jobs:
            try:
                sent += job.run_once(now)
            except Exception:
                log.exception("the %s channel's pass failed", job.channel.name)
        return sent

    def stop(self) -> None:
        self.fan_out.stop()
        for job in self.jobs:
            job.stop()


def wake_on_redis(url: str, channel: str, wake: Callable[[], None], stop: threading.Event) -> threading.Thread:
    """A thread that calls ``wake`` for every message on the Redis pub/sub ``channel``: the servers' live
    events (`ludothek.portal.live.hub.RedisHub` publishes one for every stored move), so that a notice
    worker in a process of its own (``ludothek worker``) looks at once, as a server's own worker does."""
    import redis

    def listen() -> None:
        pause = 0.5
        while not stop.is_set():
            try:
                client = redis.Redis.from_url(url, socket_keepalive=True, health_check_interval=15)
                pubsub = client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(channel)
                pause = 0.5
                while not stop.is_set():
                    if pubsub.get_message(timeout=1.0) is not None:
                        wake()
            except redis.RedisError:
                log.warning("the notice worker's Redis wake-up is lost; polling until it is back")
                stop.wait(pause)
                pause = min(pause * 2, 30.0)

    thread = threading.Thread(target=listen, name="ludothek-notices-wake", daemon=True)
    thread.start()
    return thread


class NoticeRunners:
    """A runner (thread) for the fan-out and one for each channel of a `NoticeJob`.

    `wake` makes the fan-out look at once (a stored move, a reset mail someone waits for); the
    fan-out wakes the channels once it made deliveries.  ``interval`` is how often each looks anyway.
    """

    def __init__(self, job: NoticeJob, interval: float, pace: float = PACE) -> None:
        self.job = job
        self.channel_runners = [Runner([j], interval=interval, pace=pace) for j in job.jobs]
        job.fan_out.on_fanned = self._wake_channels
        self.fan_out = Runner([job.fan_out], interval=interval, pace=pace)
        self.runners = [self.fan_out, *self.channel_runners]

    def _wake_channels(self) -> None:
        for runner in self.channel_runners:
            runner.wake()

    def wake(self) -> None:
        self.fan_out.wake()

    def on_event(self, event: GameEvent) -> None:
        """Store listener: a stored move may have queued a notice; look now."""
        self.fan_out.wake()

    def start(self) -> None:
        for runner in self.runners:
            runner.start()

    def stop(self) -> None:
        for runner in self.runners:
            runner.stop()

    def run_forever(self) -> None:
        """The channels in threads, the fan-out in the calling thread (``ludothek worker``)."""
        for runner in self.channel_runners:
            runner.start()
        try:
            self.fan_out.run_forever()
        finally:
            for runner in self.channel_runners:
                runner.stop()
