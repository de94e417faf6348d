"""The mail channel: today's `Composer` and transports (`ludothek.workers.mail`) behind the seam.

The composer decides everything mail-specific when the mail is sent: the verified address, the
mail settings, a turn mail only once until the player moved (``turn_mails``), the daily digest.
Settings: ``LUDOTHEK_SMTP_URL`` (unset: ``.eml`` files under ``var/mail/``), ``LUDOTHEK_MAIL_FROM``.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, ClassVar

from ludothek.services import Site
from ludothek.services.notices.kinds import ACCOUNT_KINDS, canonical
from ludothek.services.outbox import BACKOFF, QueuedMail

from ..mail_compose import Composer, Skip, local_now
from ..mail_links import MailLinks
from .base import Delivery, Message, Outcome, Retry, Sent, Skipped

if TYPE_CHECKING:
    from ..mail import Transport

log = logging.getLogger(__name__)

#: How often the digest settings are looked at (a digest is due at most once an hour per user).
DIGEST_CHECK = timedelta(minutes=1)
#: Kinds whose mail goes to an address that is not (or not yet) the verified one.
OTHER_ADDRESS = ("verify", "email_changed")


class MailChannel:
    """A mail per notice (SMTP or files); retried with `BACKOFF`, one connection per batch."""

    name: ClassVar[str] = "mail"
    backoff: ClassVar[Sequence[timedelta]] = BACKOFF
    #: The composer writes the mail from the notice itself (`Message` is not used).
    needs_message: ClassVar[bool] = False
    #: A mail takes long to send and matters: one begun at a time, so a process killed mid-send loses no other.
    begin_together: ClassVar[int] = 1

    def __init__(self, site: Site, links: MailLinks, transport: Transport,
                 sender: str = "Ludothek <noreply@localhost>") -> None:
        self.site = site
        self.composer = Composer(site, links, sender)
        self.transport = transport
        #: Once the server cannot be reached, the rest of the batch is not tried (each would wait).
        self._unreachable: str | None = None
        self._digest_checked: datetime | None = None

    def enabled(self) -> bool:
        return True

    def targets(self, user_id: int, kind: str) -> Sequence[int]:
        who = self.site.notices.recipient(user_id)
        if who is None or who.is_guest:
            return []
        kind = canonical(kind)
        if kind in ACCOUNT_KINDS:
            return [0] if who.has_address or kind in OTHER_ADDRESS else []
        return [0] if who.has_address and who.wants("mail", kind) else []

    def deliver(self, delivery: Delivery, message: Message, now: datetime) -> Outcome:
        notice = delivery.notice
        mail = QueuedMail(notice.id, notice.user_id, notice.kind, notice.game_id, notice.seq, dict(notice.payload),
                          delivery.attempts, notice.created_at)
        built = self.composer.compose(mail, now)
        if isinstance(built, Skip):
            return Skipped(built.reason)
        if self._unreachable is not None:
            return Retry(self._unreachable)
        try:
            self.transport.send(built, notice.id)
        except Exception as exc:  # every failure is recorded and retried, none stops the sender
            error = f"{type(exc).__name__}: {exc}"[:500]
            if isinstance(exc, (OSError, smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError)):
                self._unreachable = error
            # The log names the mail by id and kind, never by address.
            log.warning("mail %s (%s) failed: %s", notice.id, notice.kind, type(exc).__name__)
            return Retry(error)
        if canonical(notice.kind) == "turn" and notice.game_id is not None:
            self.site.outbox.remember_turn_mail(notice.user_id, notice.game_id, notice.seq or 0)
        return Sent()

    def close(self) -> None:
        """After a batch: hang up on the SMTP server, and try it again next batch."""
        self._unreachable = None
        close = getattr(self.transport, "close", None)
        if close is not None:
            close()

    def tick(self, now: datetime) -> None:
        """Queue today's digest for every digest user whose hour has come (at most one a day)."""
        if self._digest_checked is not None and now - self._digest_checked < DIGEST_CHECK:
            return
        self._digest_checked = now
        for user_id, prefs in self.site.notify.digest_users():
            local = local_now(now, prefs.timezone)
            today = local.date().isoformat()
            if local.hour >= prefs.digest_hour and prefs.last_digest_on != today and self.site.notify.waiting_games(user_id):
                self.site.notify.mark_digest(user_id, today)
