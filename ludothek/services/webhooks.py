"""A player's webhooks: their own HTTPS endpoints for their notifications (issue 30).

A player adds an address (checked against server-side request forgery: `webhook_urls`), a body
format (Ludothek's ``generic`` JSON, or ``discord`` or ``slack`` for those services' incoming
webhooks) and a label.  Each hook gets a random secret that signs every body it receives
(`signature`), shown only to its owner, who may replace it at any time.

Delivering is the webhook channel's (`ludothek.workers.channels.webhook`); this service keeps the
hooks and how their deliveries went (`record`): a success sets the count of failures in a row back
to zero, each failed attempt raises it, and at `WebhookPolicy.max_failures` the hook is switched
off, with the time and the last failure kept for its owner's account page, until they switch it on.

Only the owner sees or changes a hook: another user's hook id is answered as unknown (404).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update

from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, Conflict, NotFound
from ludothek.storage.info import aware
from ludothek.storage.models import Webhook, utcnow
from ludothek.storage.text import check_text

from .sessions import claim_user
from .webhook_urls import Resolver, Target, check_target, system_resolver

#: The body formats: Ludothek's own JSON, and the bodies of Discord's and Slack's incoming webhooks.
FORMATS = ("generic", "discord", "slack")
#: Characters of a hook's label.
MAX_LABEL = 80
#: The headers of every delivery (docs/notifications.md says how a receiver checks them).
TIMESTAMP_HEADER = "X-Ludothek-Timestamp"
SIGNATURE_HEADER = "X-Ludothek-Signature"
EVENT_HEADER = "X-Ludothek-Event"


@dataclass
class WebhookPolicy:
    """The operator's settings for webhooks (the webhook settings in docs/operations.md)."""

    #: Allow ``http://`` and loopback addresses (tests with a receiver on this machine; never in production).
    allow_loopback: bool = False
    #: Hooks one user may have.
    max_per_user: int = 5
    #: Failed attempts in a row after which a hook is switched off.
    max_failures: int = 10
    #: Seconds one delivery may take in all: connecting, sending and reading the answer.
    timeout: float = 5.0
    #: Bytes of an answer read at most; a longer answer is a failure.
    max_answer: int = 16 * 1024
    #: How addresses are looked up (tests pass their own).
    resolve: Resolver = field(default=system_resolver)


@dataclass(frozen=True)
class HookInfo:
    """A webhook as its owner and the channel see it."""

    id: int
    user_id: int
    url: str
    format: str
    label: str
    secret: str
    enabled: bool
    failures: int
    disabled_at: datetime | None
    disabled_reason: str | None
    last_delivery_at: datetime | None
    last_status: str | None
    created_at: datetime

    def to_json(self) -> dict[str, Any]:
        def stamp(dt: datetime | None) -> str | None:
            return dt.isoformat() if dt is not None else None

        return {"id": self.id, "url": self.url, "format": self.format, "label": self.label,
                "secret": self.secret, "enabled": self.enabled, "failures": self.failures,
                "disabled_at": stamp(self.disabled_at), "disabled_reason": self.disabled_reason,
                "last_delivery_at": stamp(self.last_delivery_at), "last_status": self.last_status,
                "created_at": stamp(self.created_at)}


def new_secret() -> str:
    """A signing secret: 32 random bytes, URL-safe text with a prefix that says what it is."""
    return "whsec_" + secrets.token_urlsafe(32)


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=<hex>``: HMAC-SHA256 of ``<timestamp>.<body>`` with the hook's secret.

    The timestamp is inside what is signed, so a receiver that refuses old timestamps also refuses
    a recorded delivery played back to it later.
    """
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def _info(row: Any) -> HookInfo:
    return HookInfo(id=row.id, user_id=row.user_id, url=row.url, format=row.format, label=row.label,
                    secret=row.secret, enabled=bool(row.enabled), failures=row.failures,
                    disabled_at=aware(row.disabled_at), disabled_reason=row.disabled_reason,
                    last_delivery_at=aware(row.last_delivery_at), last_status=row.last_status,
                    created_at=aware(row.created_at) or utcnow())


class Webhooks:
    """The webhooks of every user.  Thread-safe; one per process (``site.webhooks``)."""

    def __init__(self, db: Database, policy: WebhookPolicy | None = None) -> None:
        self.db = db
        self.policy = policy or WebhookPolicy()

    # ------------------------------------------------------------------------- reading
    def hooks(self, user_id: int) -> list[HookInfo]:
        """The user's hooks, oldest first."""
        with self.db.engine.connect() as conn:
            rows = conn.execute(select(Webhook).where(Webhook.user_id == user_id).order_by(Webhook.id)).all()
        return [_info(r) for r in rows]

    def hook(self, hook_id: int) -> HookInfo | None:
        """A hook by id, whoever owns it (the channel's look-up); None if there is none."""
        with self.db.engine.connect() as conn:
            row = conn.execute(select(Webhook).where(Webhook.id == hook_id)).first()
        return _info(row) if row is not None else None

    def own(self, user_id: int, hook_id: int) -> HookInfo:
        """``user_id``'s hook ``hook_id``; 404 for a hook that is not theirs, as for one that does not exist."""
        found = self.hook(hook_id)
        if found is None or found.user_id != user_id:
            raise NotFound("there is no such webhook", code_key="webhook_unknown")
        return found

    def enabled_ids(self, user_id: int) -> list[int]:
        """The ids of the user's hooks that are on: where the channel delivers."""
        with self.db.engine.connect() as conn:
            rows = conn.execute(select(Webhook.id).where(Webhook.user_id == user_id, Webhook.enabled.is_(True))
                                .order_by(Webhook.id)).all()
        return [r[0] for r in rows]

    def enabled_ids_of(self, user_ids: Sequence[int]) -> dict[int, list[int]]:
        """`enabled_ids` of several users in one query (the fan-out's batch); a user without hooks is absent."""
        found: dict[int, list[int]] = {}
        if not user_ids:
            return found
        with self.db.engine.connect() as conn:
            rows = conn.execute(select(Webhook.user_id, Webhook.id)
                                .where(Webhook.user_id.in_(sorted(set(user_ids))), Webhook.enabled.is_(True))
                                .order_by(Webhook.id)).all()
        for user_id, hook_id in rows:
            found.setdefault(user_id, []).append(hook_id)
        return found

    def target(self, url: str) -> Target:
        """``url`` checked now (form and addresses), with the addresses to connect to."""
        return check_target(url, self.policy.allow_loopback, self.policy.resolve)

    # ------------------------------------------------------------------------- the owner's changes
    def add(self, user_id: int, url: object, fmt: object = "generic", label: object = "") -> HookInfo:
        """A new hook, on, with a fresh secret.  Every check runs before anything is written."""
        fmt = check_format(fmt)
        label = check_label(label)
        target = self.target(url if isinstance(url, str) else "")
        now = utcnow()
        with self.db.engine.begin() as conn:
            claim_user(conn, user_id, None)  # holds the user's row: two adds at once count one after the other
            count = conn.execute(select(func.count()).select_from(Webhook).where(Webhook.user_id == user_id)).scalar()
            if (count or 0) >= self.policy.max_per_user:
                raise Conflict(f"you have {self.policy.max_per_user} webhooks, the most there may be",
                               code_key="webhook_too_many", limit=self.policy.max_per_user)
            hook_id = conn.execute(insert(Webhook).values(
                user_id=user_id, url=target.url, format=fmt, label=label, secret=new_secret(), enabled=True,
                failures=0, created_at=now).returning(Webhook.id)).scalar_one()
        return self.own(user_id, hook_id)

    def change(self, user_id: int, hook_id: int, *, label: object = None, enabled: object = None) -> HookInfo:
        """Rename, switch off, or switch on again (which forgets the failures and why it was switched off)."""
        self.own(user_id, hook_id)
        values: dict[str, Any] = {}
        if label is not None:
            values["label"] = check_label(label)
        if enabled is not None:
            if not isinstance(enabled, bool):
                raise BadRequest("enabled is true or false", code_key="webhook_bad_enabled")
            values["enabled"] = enabled
            if enabled:
                values.update(failures=0, disabled_at=None, disabled_reason=None)
        if values:
            with self.db.engine.begin() as conn:
                conn.execute(update(Webhook).where(Webhook.id == hook_id, Webhook.user_id == user_id).values(**values))
        return self.own(user_id, hook_id)

    def new_secret(self, user_id: int, hook_id: int) -> HookInfo:
        """Replace the hook's secret: bodies signed from now on use the new one."""
        self.own(user_id, hook_id)
        with self.db.engine.begin() as conn:
            conn.execute(update(Webhook).where(Webhook.id == hook_id, Webhook.user_id == user_id)
                         .values(secret=new_secret()))
        return self.own(user_id, hook_id)

    def remove(self, user_id: int, hook_id: int) -> None:
        self.own(user_id, hook_id)
        with self.db.engine.begin() as conn:
            conn.execute(delete(Webhook).where(Webhook.id == hook_id, Webhook.user_id == user_id))

    # ------------------------------------------------------------------------- the channel's bookkeeping
    def record(self, hook_id: int, ok: bool, status: str, now: datetime | None = None) -> HookInfo | None:
        """How an attempt went: a success forgets earlier failures; a failure counts, and the one that
        reaches `WebhookPolicy.max_failures` switches the hook off (once, with its reason)."""
        now = now or utcnow()
        status = status[:80]
        with self.db.engine.begin() as conn:
            if ok:
                conn.execute(update(Webhook).where(Webhook.id == hook_id)
                             .values(failures=0, last_delivery_at=now, last_status=status))
            else:
                conn.execute(update(Webhook).where(Webhook.id == hook_id)
                             .values(failures=Webhook.failures + 1, last_delivery_at=now, last_status=status))
                conn.execute(update(Webhook).where(Webhook.id == hook_id, Webhook.enabled.is_(True),
                                                   Webhook.failures >= self.policy.max_failures)
                             .values(enabled=False, disabled_at=now, disabled_reason=status))
        return self.hook(hook_id)


def check_format(fmt: object) -> str:
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise BadRequest("the format is generic, discord or slack", code_key="webhook_bad_format")
    return fmt


def check_label(label: object) -> str:
    text = check_text(label, "a webhook's label")
    if len(text) > MAX_LABEL:
        raise BadRequest(f"a webhook's label has at most {MAX_LABEL} characters", code_key="webhook_label_long",
                         limit=MAX_LABEL)
    return text.strip()
