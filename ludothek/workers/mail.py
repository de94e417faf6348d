"""The mail sender: a `ludothek.workers.Job` that delivers the outbox.

``LUDOTHEK_SMTP_URL`` says where mail goes:

- ``smtp://user:pass@host:587``: plain connection upgraded with STARTTLS (required
  when a user name is given; without one, STARTTLS is used when the server offers it);
- ``smtps://user:pass@host:465``: TLS from the first byte;
- unset: every mail is written as an ``.eml`` file under ``var/mail/`` and its path printed,
  so that a laptop deployment can still verify addresses and reset passwords.

A failed attempt is recorded and retried after a growing pause
(`ludothek.storage.outbox.BACKOFF`), the last failure is kept.  The sender
runs in its own thread or process, never in a request: a mail server that is
down never slows a move (the move only wrote an outbox row).
"""

from __future__ import annotations

import contextlib
import logging
import os
import smtplib
import ssl
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

from ludothek.services import Site
from ludothek.services.outbox import KEEP_FINISHED, QueuedMail

from .mail_compose import Composer, Skip, local_now
from .mail_links import MailLinks

log = logging.getLogger(__name__)

DEFAULT_MAIL_DIR = Path("var") / "mail"
#: How often the digest settings are looked at (a digest is due at most once an hour per user).
DIGEST_CHECK = timedelta(minutes=1)
#: At most this many batches of mails in one pass of the sender (then the runner goes again at once
#: if any was sent, or after its interval).
MAX_BATCHES = 40
#: How often a sender deletes finished mails older than its ``keep`` (`Outbox.prune_mail`).
PRUNE_EVERY = timedelta(hours=1)


class Transport(Protocol):
    def send(self, msg: EmailMessage, mail_id: int) -> None:
        """Deliver ``msg`` or raise."""
        ...


class FileTransport:
    """No SMTP server configured: each mail becomes ``<dir>/<id>-<kind>.eml``, and its path is printed."""

    def __init__(self, directory: Path = DEFAULT_MAIL_DIR, echo: bool = True) -> None:
        self.directory = directory
        self.echo = echo

    def send(self, msg: EmailMessage, mail_id: int) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{mail_id:08d}.eml"
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(bytes(msg))
        tmp.replace(path)
        if self.echo:
            print(f"mail written to {path}", flush=True)


class SmtpTransport:
    """SMTP with STARTTLS (``smtp://``) or TLS (``smtps://``), one connection per batch."""

    def __init__(self, url: str, timeout: float = 15.0) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("LUDOTHEK_SMTP_URL must look like smtp://user:pass@host:587 or smtps://host:465")
        self.tls = parts.scheme == "smtps"
        self.host = parts.hostname
        self.port = parts.port or (465 if self.tls else 587)
        self.user = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else None
        self.timeout = timeout
        self._conn: smtplib.SMTP | None = None

    def describe(self) -> str:
        """The URL without its password (for the startup line and logs)."""
        return f"{'smtps' if self.tls else 'smtp'}://{self.user + '@' if self.user else ''}{self.host}:{self.port}"

    def _connect(self) -> smtplib.SMTP:
        context = ssl.create_default_context()
        conn: smtplib.SMTP
        if self.tls:
            conn = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout, context=context)
        else:
            conn = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
            conn.ehlo()
            if conn.has_extn("starttls"):
                conn.starttls(context=context)
                conn.ehlo()
            elif self.user:
                conn.close()
                raise smtplib.SMTPException("the server offers no STARTTLS: not sending the password in clear")
        if self.user:
            conn.login(self.user, self.password or "")
        return conn

    def send(self, msg: EmailMessage, mail_id: int) -> None:
        if self._conn is None:
            self._conn = self._connect()
        try:
            self._conn.send_message(msg)
        except (smtplib.SMTPServerDisconnected, OSError):
            self.close()
            raise

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(smtplib.SMTPException, OSError):
                self._conn.quit()
            self._conn = None


def transport_from_env(mail_dir: Path | None = None) -> Transport:
    url = os.environ.get("LUDOTHEK_SMTP_URL", "").strip()
    return SmtpTransport(url) if url else FileTransport(mail_dir or DEFAULT_MAIL_DIR)


class MailJob:
    """Claim due outbox rows, compose, send, record.  Safe to run in several processes at once."""

    name = "mail"

    def __init__(self, site: Site, links: MailLinks, transport: Transport, *,
                 sender: str = "Ludothek <noreply@localhost>", batch: int = 50,
                 keep: timedelta = KEEP_FINISHED) -> None:
        self.site = site
        self.composer = Composer(site, links, sender)
        self.transport = transport
        self.batch = batch
        #: This sender's name in the lease (unique per process and job).
        self.owner = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._digest_checked: datetime | None = None
        #: Finished mails older than this are deleted, once every `PRUNE_EVERY`.
        self.keep = keep
        self._pruned: datetime | None = None

    def run_once(self, now: datetime) -> int:
        """Send what is due at ``now``; returns how many mails were sent."""
        self.site.outbox.fail_interrupted_mail(now)
        self._queue_digests(now)
        self._prune(now)
        done = 0
        #: Once the server cannot be reached, the rest of the batch is not tried again (each would wait).
        unreachable: str | None = None
        #: Mails nobody wants (a guest's turn mail: most of them under load), recorded together at the end.
        skipped: list[tuple[int, str]] = []
        try:
            for mail in self._claim_all(now, lambda: unreachable is not None):  # noqa: B023 - read as it changes
                built = self.composer.compose(mail, now)
                if isinstance(built, Skip):
                    skipped.append((mail.id, built.reason))
                    if len(skipped) >= self.batch:
                        self.site.outbox.skip_mails(skipped)
                        skipped = []
                    continue
                error = unreachable
                if error is None:
                    try:
                        self.transport.send(built, mail.id)
                    except Exception as exc:  # every failure is recorded and retried, none stops the sender
                        error = f"{type(exc).__name__}: {exc}"[:500]
                        if isinstance(exc, (OSError, smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError)):
                            unreachable = error
                if error is not None:
                    status = self.site.outbox.finish_mail(mail.id, now, error=error, attempts=mail.attempts)
                    # The log names the mail by id and kind, never by address.
                    log.warning("mail %s (%s) failed; now %s", mail.id, mail.kind, status)
                    continue
                turn = (mail.user_id, mail.game_id, mail.seq or 0) if mail.kind == "turn" and mail.game_id else None
                self.site.outbox.finish_mail(mail.id, now, sent=True, attempts=mail.attempts, turn=turn)
                done += 1
        finally:
            try:
                self.site.outbox.skip_mails(skipped)
            finally:
                close = getattr(self.transport, "close", None)
                if close is not None:
                    close()
        return done

    def _claim_all(self, now: datetime, unreachable: Callable[[], bool]) -> Iterator[QueuedMail]:
        """Batch after batch of due mails, while full batches come (at most `MAX_BATCHES` in one pass,
        and no further batch once the mail server could not be reached).

        A mail that is skipped does not count as sent, so without this a pass would take one batch
        and then wait a whole interval: with many moves of guests, the outbox would grow faster than
        it drains and the mails of people who want them would wait behind it.
        """
        for _ in range(MAX_BATCHES):
            mails = self.site.outbox.claim_mail(self.owner, now, self.batch)
            yield from mails
            if len(mails) < self.batch or unreachable():
                return

    def _prune(self, now: datetime) -> None:
        """Delete the finished mails older than ``keep`` (once every `PRUNE_EVERY` per sender)."""
        if self._pruned is not None and now - self._pruned < PRUNE_EVERY:
            return
        self._pruned = now
        gone = self.site.outbox.prune_mail(now - self.keep)
        if gone:
            log.info("deleted %d finished mails queued more than %d days ago", gone, self.keep.days)

    def _queue_digests(self, now: datetime) -> None:
        """Queue today's digest for every digest user whose hour has come (at most one a day)."""
        if self._digest_checked is not None and now - self._digest_checked < DIGEST_CHECK:
            return
        self._digest_checked = now
        for user_id, prefs in self.site.notify.digest_users():
            local = local_now(now, prefs.timezone)
            today = local.date().isoformat()
            if local.hour >= prefs.digest_hour and prefs.last_digest_on != today and self.site.notify.waiting_games(user_id):
                self.site.notify.mark_digest(user_id, today)

    def stop(self) -> None:
        """Give the SQLite lease back (another sender may take over at once)."""
        self.site.outbox.release_lease(self.owner)
