"""The deliveries of notices (issue 30): one row per outbox row, channel and target.

The fan-out turns a claimed outbox row into its deliveries and marks the row ``dispatched`` in ONE
transaction, so a notice is either wholly fanned out or not at all; ``UNIQUE(outbox_id, channel,
target)`` makes a second fan-out of the same row (its claimer was thought dead) add nothing.

Each channel then claims a batch of its own due deliveries (``pending`` → ``claimed`` under a lease),
apart from every other channel: on PostgreSQL with ``FOR UPDATE SKIP LOCKED``, on SQLite under a
lease per channel (``mail_lease`` rows named ``d:<channel>``).  Right before it tries them, a few
deliveries at a time become ``sending`` (`begin`: in the same transaction that records the outcomes
of those tried before, so it costs no extra commit; how many at a time is the channel's
``begin_together``, 1 for mail).  When a process dies, its deliveries that were claimed but
not begun go back to ``pending`` once their lease ran out (nothing was sent); one found still
``sending`` is marked ``failed``, never tried again: whether it went out is unknown, and a second
copy is worse than none.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from .database import Database
from .info import aware
from .models import DeliveryRow, MailLease, OutboxAttempt, OutboxRow, utcnow

#: How long a claimed delivery (and a channel's SQLite lease) is held before it counts as abandoned.
LEASE = timedelta(minutes=5)
FINISHED = ("sent", "skipped", "failed")
UNFINISHED = ("pending", "claimed", "sending")
INTERRUPTED = "the sender stopped while sending; not sent again so that it cannot arrive twice"


@dataclass(frozen=True)
class ClaimedDelivery:
    """A claimed delivery with its outbox row, as the notice worker hands it to a channel."""

    id: int
    channel: str
    target: int
    attempts: int
    outbox_id: int
    user_id: int
    kind: str
    game_id: int | None
    seq: int | None
    payload: dict[str, Any]
    created_at: datetime


class Deliveries:
    """Fan-out, claiming and finishing of deliveries (the notice worker's side)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # ------------------------------------------------------------------ fan-out
    def fan_out(self, plans: Sequence[tuple[int, Sequence[tuple[str, int]]]], now: datetime) -> int:
        """In one transaction: insert the deliveries of each claimed outbox row and mark it dispatched.

        ``plans``: ``(outbox id, [(channel, target), ...])``.  Returns how many deliveries were new.
        """
        if not plans:
            return 0
        values = [{"outbox_id": outbox_id, "channel": channel, "target": target, "status": "pending",
                   "attempts": 0, "next_attempt_at": now, "created_at": now, "updated_at": now}
                  for outbox_id, targets in plans for channel, target in dict.fromkeys(targets)]
        ids = [outbox_id for outbox_id, _ in plans]
        with self.db.engine.begin() as conn:
            added = 0
            if values:
                # One statement run for many rows (compiled once and cached), not one multi-row statement
                # compiled afresh for every batch.
                stmt = (sqlite_insert if self.db.sqlite else pg_insert)(DeliveryRow).on_conflict_do_nothing(
                    index_elements=["outbox_id", "channel", "target"])
                added = conn.execute(stmt, values).rowcount or 0
            conn.execute(update(OutboxRow).where(OutboxRow.id.in_(ids), OutboxRow.status == "sending")
                         .values(status="dispatched", sent_at=now, last_error=None))
        return added

    # ------------------------------------------------------------------ a channel's side
    def claim(self, channel: str, owner: str, now: datetime, limit: int = 50,
              lease: timedelta = LEASE) -> list[ClaimedDelivery]:
        """Claim up to ``limit`` due deliveries of ``channel`` for ``owner``: ``claimed`` until begun (`begin`)."""
        if self.db.sqlite and not self._take_lease(f"d:{channel}", owner, now, lease):
            return []
        due = (select(DeliveryRow.id).where(DeliveryRow.channel == channel, DeliveryRow.status == "pending",
                                            DeliveryRow.next_attempt_at <= now)
               .order_by(DeliveryRow.next_attempt_at, DeliveryRow.id).limit(limit))
        if not self.db.sqlite:
            due = due.with_for_update(skip_locked=True)
        with self.db.engine.begin() as conn:
            ids = list(conn.execute(due).scalars())
            if not ids:
                return []
            conn.execute(update(DeliveryRow).where(DeliveryRow.id.in_(ids), DeliveryRow.status == "pending")
                         .values(status="claimed", next_attempt_at=now + lease, updated_at=now))
            rows = conn.execute(
                select(DeliveryRow.id, DeliveryRow.channel, DeliveryRow.target, DeliveryRow.attempts,
                       DeliveryRow.status, OutboxRow.id.label("outbox_id"), OutboxRow.user_id, OutboxRow.kind,
                       OutboxRow.game_id, OutboxRow.seq, OutboxRow.payload_json, OutboxRow.created_at)
                .join(OutboxRow, OutboxRow.id == DeliveryRow.outbox_id)
                .where(DeliveryRow.id.in_(ids)).order_by(DeliveryRow.id)
            ).all()
        return [ClaimedDelivery(r.id, r.channel, r.target, r.attempts, r.outbox_id, r.user_id, r.kind, r.game_id,
                                r.seq, json.loads(r.payload_json), aware(r.created_at) or now)
                for r in rows if r.status == "claimed"]

    def begin(self, delivery_ids: Sequence[int], now: datetime,
              finished: Sequence[Mapping[str, Any]] = ()) -> list[int]:
        """In one transaction: record the outcomes of deliveries tried before (``finished``: `finish`'s
        arguments) and mark ``delivery_ids`` ``sending``, right before they are tried.  Returns the ids
        that were still claimed (the others are not ours any more)."""
        with self.db.engine.begin() as conn:
            self._finish_all(conn, now, finished)
            if not delivery_ids:
                return []
            mine = set(conn.execute(update(DeliveryRow).where(DeliveryRow.id.in_(list(delivery_ids)),
                                                              DeliveryRow.status == "claimed")
                                    .values(status="sending", updated_at=now).returning(DeliveryRow.id)).scalars())
        return [i for i in delivery_ids if i in mine]

    def finish_many(self, now: datetime, finished: Sequence[Mapping[str, Any]]) -> None:
        """`finish` for several deliveries in one transaction."""
        if finished:
            with self.db.engine.begin() as conn:
                self._finish_all(conn, now, finished)

    def finish(self, delivery_id: int, now: datetime, status: str, *, attempts: int, error: str | None = None,
               retry_at: datetime | None = None, outbox_id: int | None = None, channel: str | None = None) -> None:
        """Record how a claimed delivery went: ``sent``, ``skipped``, ``failed``, or ``pending`` again
        (a retry at ``retry_at``).  ``attempts`` counts this one unless it was skipped; an attempt
        (not a skip) is also kept in ``outbox_attempts`` for operators."""
        with self.db.engine.begin() as conn:
            self._finish(conn, delivery_id=delivery_id, now=now, status=status, attempts=attempts, error=error,
                         retry_at=retry_at, outbox_id=outbox_id, channel=channel)

    @staticmethod
    def _finish(conn: Connection, *, delivery_id: int, now: datetime, status: str, attempts: int,
                error: str | None = None, retry_at: datetime | None = None, outbox_id: int | None = None,
                channel: str | None = None) -> None:
        values: dict[str, Any] = {"status": status, "last_error": error, "updated_at": now,
                                  "attempts": attempts + (0 if status == "skipped" else 1)}
        if retry_at is not None:
            values["next_attempt_at"] = retry_at
        changed = conn.execute(update(DeliveryRow).where(DeliveryRow.id == delivery_id,
                                                         DeliveryRow.status == "sending").values(**values))
        if changed.rowcount == 1 and status != "skipped" and outbox_id is not None:
            conn.execute(insert(OutboxAttempt).values(outbox_id=outbox_id, at=now, ok=status == "sent",
                                                      error=error, channel=channel))

    @staticmethod
    def _finish_all(conn: Connection, now: datetime, finished: Sequence[Mapping[str, Any]]) -> None:
        """`_finish` for many deliveries, with one ``UPDATE`` per kind of outcome instead of one per delivery
        (a busy channel finishes dozens at a time, nearly all ``sent`` alike), and the attempts kept for
        operators in one ``INSERT``.  Exactly what `_finish` does for each: only a delivery still
        ``sending`` is changed, and only a changed one that was tried (not skipped) gets its attempt row."""
        if len(finished) == 1:
            Deliveries._finish(conn, now=now, **finished[0])
            return
        groups: dict[tuple[Any, ...], list[int]] = {}
        for args in finished:
            key = (args["status"], args.get("error"), args.get("retry_at"), args["attempts"])
            groups.setdefault(key, []).append(args["delivery_id"])
        changed: set[int] = set()
        for (status, error, retry_at, attempts), ids in groups.items():
            values: dict[str, Any] = {"status": status, "last_error": error, "updated_at": now,
                                      "attempts": attempts + (0 if status == "skipped" else 1)}
            if retry_at is not None:
                values["next_attempt_at"] = retry_at
            changed.update(conn.execute(update(DeliveryRow).where(DeliveryRow.id.in_(ids),
                                                                  DeliveryRow.status == "sending")
                                        .values(**values).returning(DeliveryRow.id)).scalars())
        tried = [{"outbox_id": args["outbox_id"], "at": now, "ok": args["status"] == "sent",
                  "error": args.get("error"), "channel": args.get("channel")}
                 for args in finished if args["delivery_id"] in changed and args["status"] != "skipped"
                 and args.get("outbox_id") is not None]
        if tried:
            conn.execute(insert(OutboxAttempt), tried)

    def fail_interrupted(self, channel: str, now: datetime) -> int:
        """Deliveries of ``channel`` left by a process that died, once their lease ran out: those it had
        begun are failed, never tried twice; those it had only claimed are due again.  Returns how many
        were failed."""
        with self.db.engine.begin() as conn:
            res = conn.execute(update(DeliveryRow).where(
                DeliveryRow.channel == channel, DeliveryRow.status == "sending", DeliveryRow.next_attempt_at < now,
            ).values(status="failed", last_error=INTERRUPTED, updated_at=now))
            conn.execute(update(DeliveryRow).where(
                DeliveryRow.channel == channel, DeliveryRow.status == "claimed", DeliveryRow.next_attempt_at < now,
            ).values(status="pending", next_attempt_at=now, updated_at=now))
            return res.rowcount or 0

    def _take_lease(self, name: str, owner: str, now: datetime, lease: timedelta) -> bool:
        """SQLite: hold the lease ``name`` (renewed by its holder, taken over once it ran out)."""
        with self.db.engine.begin() as conn:
            res = conn.execute(update(MailLease).where(
                MailLease.name == name, (MailLease.owner == owner) | (MailLease.until < now),
            ).values(owner=owner, until=now + lease))
            if res.rowcount == 1:
                return True
            if conn.execute(select(MailLease.name).where(MailLease.name == name)).first() is not None:
                return False
        try:
            with self.db.engine.begin() as conn:
                conn.execute(insert(MailLease).values(name=name, owner=owner, until=now + lease))
        except IntegrityError:
            return False
        return True

    def release_lease(self, channel: str, owner: str) -> None:
        """Give a channel's SQLite lease back at shutdown, so another process need not wait."""
        with self.db.engine.begin() as conn:
            conn.execute(update(MailLease).where(MailLease.name == f"d:{channel}", MailLease.owner == owner)
                         .values(until=utcnow() - LEASE))

    # ------------------------------------------------------------------ operators and tests
    def rows(self, outbox_id: int | None = None, channel: str | None = None) -> list[dict[str, Any]]:
        query = select(DeliveryRow).order_by(DeliveryRow.id)
        if outbox_id is not None:
            query = query.where(DeliveryRow.outbox_id == outbox_id)
        if channel is not None:
            query = query.where(DeliveryRow.channel == channel)
        with self.db.engine.begin() as conn:
            found = conn.execute(query).all()
        return [{"id": r.id, "outbox_id": r.outbox_id, "channel": r.channel, "target": r.target,
                 "status": r.status, "attempts": r.attempts, "last_error": r.last_error} for r in found]

    def counts(self) -> dict[tuple[str, str], int]:
        """Deliveries by channel and status."""
        with self.db.engine.begin() as conn:
            found = conn.execute(select(DeliveryRow.channel, DeliveryRow.status, func.count())
                                 .group_by(DeliveryRow.channel, DeliveryRow.status)).all()
        return {(r[0], r[1]): r[2] for r in found}

    def prune(self, before: datetime, batch: int = 5000) -> int:
        """Delete finished deliveries of outbox rows queued before ``before`` (their rows go next)."""
        total = 0
        while True:
            with self.db.engine.begin() as conn:
                ids = list(conn.execute(
                    select(DeliveryRow.id).join(OutboxRow, OutboxRow.id == DeliveryRow.outbox_id)
                    .where(and_(DeliveryRow.status.in_(FINISHED), OutboxRow.created_at < before))
                    .order_by(DeliveryRow.id).limit(batch)
                ).scalars())
                if ids:
                    conn.execute(delete(DeliveryRow).where(DeliveryRow.id.in_(ids)))
            total += len(ids)
            if len(ids) < batch:
                return total
