"""The transactional outbox, the senders' side (`Outbox`): notices are queued in the transaction of what
caused them, fanned out to the channels later (issue 30: `ludothek.workers.notices`, docs/notifications.md).

Queuing is one ``INSERT`` into ``outbox`` inside the caller's transaction, so
a crash can neither lose a notification nor send one for a move that was not
stored.  Whether anybody wants the mail (a verified address, the settings) is
decided by the sender, not here: the move path stays one cheap statement.

Other code queues mail (`ludothek.storage.outbox`) with::

    from ludothek.storage.outbox import queue_mail
    with site.engine.begin() as conn:
        ...                                    # the change that causes the mail
        queue_mail(conn, user_id, "reminder", {"deadline": "..."}, game_id=gid)

``kind`` names the mail: ``turn``, ``digest``, ``invite``, ``ended``,
``verify``, ``reset``, ``email_changed`` (to the replaced address, payload
``{"change": id}``), or ``reminder`` (time runs out: pass ``game_id``, the
game's current ``seq`` and ``{"deadline": <ISO 8601 time>}``; it is skipped
if the player has moved meanwhile or wants no turn mails).  A new kind needs
a branch in `ludothek.workers.mail_compose.Composer`.  ``payload`` is small
JSON the composer reads.

Since issue 30 a claimed row is not sent but fanned out: its deliveries, one per channel and target,
are written with its ``dispatched`` in one transaction (`ludothek.storage.deliveries`), and it is
each delivery that is sent at most once, as described there.  What follows is how rows were sent
before, and how each delivery is still sent.

Sending at most once: the sender claims a row by switching it from
``pending`` to ``sending`` (a conditional ``UPDATE``, committed before the
SMTP conversation).  A row found still ``sending`` after its lease ran out
(the process died mid-send) is marked ``failed``, never sent again: whether
it went out is unknown, and a second copy is worse than none.  On PostgreSQL
several senders claim disjoint rows with ``FOR UPDATE SKIP LOCKED``; on SQLite
one sender at a time holds the ``mail_lease`` row.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ludothek.storage.database import Database
from ludothek.storage.info import aware
from ludothek.storage.models import (
    ActionRow,
    DeliveryRow,
    MailLease,
    OutboxAttempt,
    OutboxRow,
    TurnMail,
    utcnow,
)

#: Waits before the 2nd, 3rd ... attempt; after the last one the mail is marked failed.
BACKOFF = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2),
           timedelta(hours=6))
#: How long a claimed batch (and the SQLite sender lease) is held before it counts as abandoned.
LEASE = timedelta(minutes=5)
#: Outbox rows that are done with (sent, failed, skipped), kept this long for operators, then deleted.
KEEP_FINISHED = timedelta(days=30)
FINISHED = ("sent", "failed", "skipped", "dispatched")


@dataclass(frozen=True)
class QueuedMail:
    """A claimed outbox row, as the sender sees it."""

    id: int
    user_id: int
    kind: str
    game_id: int | None
    seq: int | None
    payload: dict[str, Any]
    attempts: int
    created_at: datetime


class _ClaimEachAlone(Exception):
    """Some of the selected mails were claimed by someone else meanwhile."""


class Outbox:
    """Claiming, finishing and inspecting outbox rows (the sender's side)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        #: SQLite: no outbox row before this id is pending (see `_low_mark`); ``None`` until first looked up.
        self._outbox_low: int | None = None
        self._outbox_rescan: datetime | None = None

    def claim_mail(self, owner: str, now: datetime, limit: int = 50) -> list[QueuedMail]:
        """Claim up to ``limit`` due mails for ``owner``: they are ``sending`` until finished."""
        due = select(OutboxRow).where(OutboxRow.status == "pending", OutboxRow.next_attempt_at <= now)
        if self.db.sqlite:
            if not self._take_lease(owner, now):
                return []
            due = due.where(OutboxRow.id >= self._low_mark(now))
        due = due.order_by(OutboxRow.id).limit(limit)
        if not self.db.sqlite:
            due = due.with_for_update(skip_locked=True)
        try:
            with self.db.engine.begin() as conn:
                rows = conn.execute(due).all()
                if not rows:
                    return []
                # One statement claims them all (a move queues a mail: one UPDATE per row cost every move
                # one).  Every row is still pending under the lock the select took (PostgreSQL) or the
                # lease (SQLite's single sender); should one not be, each is claimed alone instead.
                res = conn.execute(
                    update(OutboxRow)
                    .where(OutboxRow.id.in_([row.id for row in rows]), OutboxRow.status == "pending")
                    .values(status="sending", next_attempt_at=now + LEASE)
                )
                if res.rowcount != len(rows):
                    raise _ClaimEachAlone  # rolls the statement back
        except _ClaimEachAlone:
            return self._claim_one_by_one(rows, now)
        return [QueuedMail(row.id, row.user_id, row.kind, row.game_id, row.seq, json.loads(row.payload_json),
                           row.attempts, aware(row.created_at) or now) for row in rows]

    def _claim_one_by_one(self, rows: Sequence[Any], now: datetime) -> list[QueuedMail]:
        claimed: list[QueuedMail] = []
        with self.db.engine.begin() as conn:
            for row in rows:
                res = conn.execute(
                    update(OutboxRow)
                    .where(OutboxRow.id == row.id, OutboxRow.status == "pending")
                    .values(status="sending", next_attempt_at=now + LEASE)
                )
                if res.rowcount == 1:
                    claimed.append(QueuedMail(row.id, row.user_id, row.kind, row.game_id, row.seq,
                                              json.loads(row.payload_json), row.attempts,
                                              aware(row.created_at) or now))
        return claimed

    def _low_mark(self, now: datetime) -> int:
        """SQLite: the lowest id that may still be pending, found by a range scan of row ids.

        The outbox has no index on its status there (it would cost every move a page
        write).  SQLite has one writer at a time, so ids are committed in order and
        nothing can appear below the mark later; every ten minutes it is found afresh.
        """
        low = self._outbox_low
        if low is None or self._outbox_rescan is None or now - self._outbox_rescan > timedelta(minutes=10):
            low, self._outbox_rescan = 0, now
        with self.db.engine.begin() as conn:
            first = conn.execute(
                select(func.min(OutboxRow.id)).where(OutboxRow.id >= low,
                                                     OutboxRow.status.in_(("pending", "sending")))
            ).scalar()
            if first is None:
                first = (conn.execute(select(func.max(OutboxRow.id))).scalar() or 0) + 1
        self._outbox_low = int(first)
        return int(first)

    def _take_lease(self, owner: str, now: datetime) -> bool:
        """SQLite: hold the single sender lease (renewed by its holder, taken over once it ran out)."""
        with self.db.engine.begin() as conn:
            res = conn.execute(
                update(MailLease)
                .where(MailLease.name == "mail", (MailLease.owner == owner) | (MailLease.until < now))
                .values(owner=owner, until=now + LEASE)
            )
            if res.rowcount == 1:
                return True
            if conn.execute(select(MailLease.name).where(MailLease.name == "mail")).first() is not None:
                return False
        try:
            with self.db.engine.begin() as conn:
                conn.execute(insert(MailLease).values(name="mail", owner=owner, until=now + LEASE))
        except IntegrityError:
            return False
        return True

    def release_lease(self, owner: str) -> None:
        """Give the SQLite sender lease back at shutdown, so another sender need not wait."""
        with self.db.engine.begin() as conn:
            conn.execute(update(MailLease).where(MailLease.name == "mail", MailLease.owner == owner)
                         .values(until=utcnow() - LEASE))

    def finish_mail(self, mail_id: int, now: datetime, *, sent: bool = False, skipped: str | None = None,
                    error: str | None = None, attempts: int = 0, turn: tuple[int, int, int] | None = None) -> str:
        """Record how a claimed mail went; returns its new status.

        ``sent``: delivered.  ``skipped``: nobody wants it (the reason is kept).
        ``error``: this attempt failed; retried after `BACKOFF`, or ``failed`` after the last.
        ``turn``: ``(user, game, seq)`` of a sent "your turn" mail, remembered for `turn_mail_since`.
        """
        values: dict[str, Any]
        if sent:
            status, values = "sent", {"sent_at": now, "last_error": None}
        elif skipped is not None:
            status, values = "skipped", {"last_error": skipped}
        elif attempts + 1 > len(BACKOFF):
            status, values = "failed", {"last_error": error}
        else:
            status, values = "pending", {"last_error": error, "next_attempt_at": now + BACKOFF[attempts]}
        with self.db.engine.begin() as conn:
            if skipped is None:
                conn.execute(insert(OutboxAttempt).values(outbox_id=mail_id, at=now, ok=sent, error=error))
            conn.execute(
                update(OutboxRow).where(OutboxRow.id == mail_id, OutboxRow.status == "sending")
                .values(status=status, attempts=attempts + (0 if skipped is not None else 1), **values)
            )
            if sent and turn is not None:
                user_id, game_id, seq = turn
                conn.execute(self.db.upsert(TurnMail, [TurnMail.user_id, TurnMail.game_id],
                                          {"user_id": user_id, "game_id": game_id, "seq": seq}, {"seq": seq}))
        return status

    def skip_mails(self, skipped: Sequence[tuple[int, str]]) -> None:
        """`finish_mail` with ``skipped`` for many claimed mails at once: one statement per reason."""
        by_reason: dict[str, list[int]] = {}
        for mail_id, reason in skipped:
            by_reason.setdefault(reason, []).append(mail_id)
        if not by_reason:
            return
        with self.db.engine.begin() as conn:
            for reason, ids in by_reason.items():
                conn.execute(
                    update(OutboxRow).where(OutboxRow.id.in_(ids), OutboxRow.status == "sending")
                    .values(status="skipped", last_error=reason)
                )

    def fail_interrupted_mail(self, now: datetime) -> int:
        """Outbox rows left ``sending`` by a fan-out that died: ``pending`` again.

        Fanning a row out is one transaction (`ludothek.storage.deliveries.Deliveries.fan_out`) that
        sends nothing, so a row still ``sending`` had no delivery made; and should its first claimer
        still finish, ``UNIQUE(outbox_id, channel, target)`` keeps the deliveries single.  Whatever can
        be sent twice is a delivery, and those are failed, never retried, when interrupted.
        """
        where = [OutboxRow.status == "sending", OutboxRow.next_attempt_at < now]
        if self.db.sqlite and self._outbox_low is not None:
            # No status index on SQLite: look only from the low mark on (no row below it is sending).
            where.append(OutboxRow.id >= self._outbox_low)
        with self.db.engine.begin() as conn:
            res = conn.execute(update(OutboxRow).where(*where).values(status="pending", next_attempt_at=now))
            return res.rowcount or 0

    def remember_turn_mail(self, user_id: int, game_id: int, seq: int) -> None:
        """A "your turn" mail went out after the user's move ``seq``: none again until they move (`turn_mail_since`)."""
        with self.db.engine.begin() as conn:
            conn.execute(self.db.upsert(TurnMail, [TurnMail.user_id, TurnMail.game_id],
                                      {"user_id": user_id, "game_id": game_id, "seq": seq}, {"seq": seq}))

    def prune_mail(self, before: datetime, batch: int = 5000) -> int:
        """Delete finished mails (sent, failed, skipped) queued before ``before``, with their attempts.

        Every move queues a row (most are skipped: guests, settings), so without this the outbox
        grows by one row per move for ever.  Deleted a batch per short transaction, oldest first,
        so a large backlog never holds SQLite's one writer for long.  Pending and claimed rows are
        never touched, however old.  The newest row always stays: SQLite gives a new row the
        highest id plus one, and ids must never go back below the sender's low mark.
        Returns how many rows went.
        """
        total = 0
        while True:
            with self.db.engine.begin() as conn:
                top = conn.execute(select(func.max(OutboxRow.id))).scalar() or 0
                unfinished = select(DeliveryRow.id).where(DeliveryRow.outbox_id == OutboxRow.id,
                                                          DeliveryRow.status.in_(("pending", "claimed", "sending")))
                ids = list(conn.execute(
                    select(OutboxRow.id)
                    .where(OutboxRow.status.in_(FINISHED), OutboxRow.created_at < before, OutboxRow.id < top,
                           ~unfinished.exists())
                    .order_by(OutboxRow.id).limit(batch)
                ).scalars())
                if ids:
                    conn.execute(delete(OutboxAttempt).where(OutboxAttempt.outbox_id.in_(ids)))
                    conn.execute(delete(DeliveryRow).where(DeliveryRow.outbox_id.in_(ids)))
                    conn.execute(delete(OutboxRow).where(OutboxRow.id.in_(ids)))
            total += len(ids)
            if len(ids) < batch:
                return total

    def mail_counts(self) -> dict[str, int]:
        """Outbox rows by their mail status (`mail_rows`; operators and tests)."""
        counts: dict[str, int] = {}
        for row in self.mail_rows():
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        return counts

    def mail_rows(self, user_id: int | None = None) -> list[dict[str, Any]]:
        """Outbox rows as mail sees them, with the attempts of the mail channel (operators and tests).

        Once a row is fanned out, its status, attempts and last error are those of its mail delivery;
        a row with no mail delivery (nobody wanted it by mail) reads ``skipped``.
        """
        query = (select(OutboxRow, DeliveryRow.status.label("d_status"), DeliveryRow.attempts.label("d_attempts"),
                        DeliveryRow.last_error.label("d_error"))
                 .outerjoin(DeliveryRow, (DeliveryRow.outbox_id == OutboxRow.id) & (DeliveryRow.channel == "mail"))
                 .order_by(OutboxRow.id))
        if user_id is not None:
            query = query.where(OutboxRow.user_id == user_id)
        with self.db.engine.begin() as conn:
            rows = conn.execute(query).all()
            attempts = conn.execute(select(OutboxAttempt).where(
                (OutboxAttempt.channel == "mail") | OutboxAttempt.channel.is_(None)).order_by(OutboxAttempt.id)).all()
        by_mail: dict[int, list[dict[str, Any]]] = {}
        for a in attempts:
            by_mail.setdefault(a.outbox_id, []).append({"ok": bool(a.ok), "error": a.error})
        out = []
        for r in rows:
            status, tries, error = r.status, r.attempts, r.last_error
            if r.d_status is not None:
                status, tries, error = r.d_status, r.d_attempts, r.d_error
            elif status == "dispatched":
                status, error = "skipped", "not wanted by mail"
            out.append({"id": r.id, "user_id": r.user_id, "kind": r.kind, "game_id": r.game_id, "seq": r.seq,
                        "status": status, "attempts": tries, "last_error": error, "tries": by_mail.get(r.id, [])})
        return out

    def turn_mail_since(self, user_id: int, game_id: int, seq: int) -> bool:
        """Was a "your turn" mail for this game sent to the user after their move ``seq``?"""
        with self.db.engine.begin() as conn:
            sent = conn.execute(
                select(TurnMail.seq).where(TurnMail.user_id == user_id, TurnMail.game_id == game_id)
            ).scalar()
        return sent is not None and sent > seq

    def last_move_seq(self, game_id: int, seat: int) -> int:
        """The sequence number of the seat's last stored action (-1: none yet)."""
        with self.db.engine.begin() as conn:
            value = conn.execute(
                select(func.max(ActionRow.seq)).where(ActionRow.game_id == game_id, ActionRow.seat == seat)
            ).scalar()
        return -1 if value is None else int(value)
