"""The seam between *what* a player is told and *how* (issue 30).

`ludothek.services.notices` decides what: every notice is one outbox row,
queued in the transaction of what caused it (a move, a deadline, an
invitation), with its ``kind`` (`ludothek.services.notices.kinds.KINDS`).
A channel decides how: mail, the open tab, Web Push, webhooks.  Each is one
class in this package that satisfies `Channel`, listed once in
`ludothek.workers.channels.registry`.

The notice worker fans each outbox row out into one *delivery* per channel
and target that the player wants (their preferences per channel and kind),
then lets each channel deliver its own.  A delivery is claimed before it is
tried and is never tried again once its outcome is unknown (a process died
mid-send), so nothing is sent twice; each channel's deliveries are claimed
and retried apart from the others, so one failing channel never holds back
another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any, ClassVar, Protocol

# A notice in words is made by the services (they know the games and the players): re-exported here.
from ludothek.services.notices.messages import Message

__all__ = ["Channel", "Delivery", "Failed", "Message", "Notice", "Outcome", "Retry", "Sent", "Skipped"]


@dataclass(frozen=True)
class Notice:
    """One thing a player should be told: an outbox row, as every channel sees it."""

    id: int
    user_id: int
    kind: str
    game_id: int | None
    seq: int | None
    payload: Mapping[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class Sent:
    """Delivered (or handed to the service that delivers it)."""


@dataclass(frozen=True)
class Skipped:
    """Nobody wants it any more (the player moved meanwhile, the target is gone); never retried."""

    reason: str


@dataclass(frozen=True)
class Retry:
    """This attempt failed and may succeed later: after ``after`` (a Retry-After), or the channel's back-off."""

    error: str
    after: timedelta | None = None


@dataclass(frozen=True)
class Failed:
    """Failed for good (the target refuses it, or the last attempt failed); never retried."""

    error: str
    #: The target is gone (a push subscription answered 404/410): the channel has removed it.
    gone: bool = False


Outcome = Sent | Skipped | Retry | Failed


@dataclass(frozen=True)
class Delivery:
    """One notice to one target of one channel (a device, a webhook; ``target`` 0 where there is one)."""

    id: int
    channel: str
    target: int
    notice: Notice
    attempts: int
    extra: Mapping[str, Any] = field(default_factory=dict)


class Channel(Protocol):
    """How a player is told.  Implementations keep no state between deliveries that matters for
    correctness: any process may deliver any delivery."""

    #: Stable name, stored in deliveries and preferences (``mail``, ``tab``, ``push``, ``webhook``).
    name: ClassVar[str]
    #: Waits before the 2nd, 3rd ... attempt; after the last the delivery is ``failed``.
    backoff: ClassVar[Sequence[timedelta]]

    def enabled(self) -> bool:
        """Whether this site runs the channel at all (its settings)."""
        ...

    def targets(self, user_id: int, kind: str) -> Sequence[int]:
        """Where ``user_id`` wants ``kind`` on this channel (after their preferences): target ids,
        ``[0]`` for a channel with one target per user, ``[]`` for none."""
        ...

    def deliver(self, delivery: Delivery, message: Message, now: datetime) -> Outcome:
        """Try once.  Never raises for a delivery problem: the outcome says what happened."""
        ...


#: The longest wait a Retry-After may ask for; a longer one is cut to this.
MAX_RETRY_AFTER = timedelta(days=1)


def retry_after(value: str | None, now: datetime) -> timedelta | None:
    """A ``Retry-After`` header (seconds or an HTTP date) as a wait from ``now``, at most `MAX_RETRY_AFTER`;
    None if absent or unusable.  Shared by the channels that speak HTTP (push services, webhooks)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        wait = timedelta(seconds=int(value))
    else:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        wait = when - now
    return max(timedelta(0), min(wait, MAX_RETRY_AFTER))
