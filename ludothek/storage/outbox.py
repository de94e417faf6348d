"""The outbox rows a transaction queues (notices fanned out to the channels later, `ludothek.workers.notices`).

A mail is queued in the transaction of what causes it (a move, a reminder, an address to confirm), so it
exists exactly when that change was stored; sending it is the mail workers' business.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, insert

from .models import OutboxRow, utcnow


def queue_notice(
    conn: Connection, user_id: int, kind: str, payload: Mapping[str, Any] | None = None, *,
    game_id: int | None = None, seq: int | None = None, now: datetime | None = None,
) -> None:
    """Queue one notice of ``kind`` (`ludothek.services.notices.kinds`) for ``user_id`` inside the
    caller's open transaction ``conn``.

    It is fanned out to the channels only if that transaction commits; each channel checks the
    recipient's preferences, addresses and devices when it gets to it.
    """
    when = now or utcnow()
    conn.execute(insert(OutboxRow).values(
        user_id=user_id, kind=kind, game_id=game_id, seq=seq, payload_json=json.dumps(dict(payload or {})),
        created_at=when, status="pending", attempts=0, next_attempt_at=when,
    ))


#: The columns a move's outbox row sets (`outbox_sql`, and `ludothek.storage.onetrip`).
OUTBOX_COLUMNS = "user_id, kind, game_id, seq, payload_json, created_at, status, attempts, next_attempt_at"


def outbox_sql(mark: str) -> str:
    """The plain-SQL form of `queue_mail` for the move path (a DB-API cursor, no SQLAlchemy)."""
    return (
        f"INSERT INTO outbox ({OUTBOX_COLUMNS}) "
        f"VALUES ({mark}, {mark}, {mark}, {mark}, {mark}, {mark}, 'pending', 0, {mark})"
    )


#: The name from before notices had channels (issue 30): the same function, kept for every caller.
queue_mail = queue_notice
