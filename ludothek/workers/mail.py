"""Mail transports, and `MailJob`: the notice worker as mail senders knew it (the mail channel itself is
`ludothek.workers.channels.mail`).

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
from collections.abc import Mapping, Sequence
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from ludothek.services import Site
from ludothek.services.outbox import KEEP_FINISHED

from .mail_links import MailLinks
from .notices import NoticeJob

log = logging.getLogger(__name__)

DEFAULT_MAIL_DIR = Path("var") / "mail"


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


class MailJob(NoticeJob):
    """The notice worker (`ludothek.workers.notices`) with the deployment's channels, mail going
    through ``transport``: the name and arguments from before channels (issue 30), kept for callers."""

    name = "notices"

    def __init__(self, site: Site, links: MailLinks, transport: Transport, *,
                 sender: str = "Ludothek <noreply@localhost>", batch: int = 50,
                 keep: timedelta = KEEP_FINISHED, channels: Sequence[str] | None = None,
                 env: Mapping[str, str] | None = None, extra: dict[str, Any] | None = None) -> None:
        from .channels.registry import ChannelContext, build

        ctx = ChannelContext(site, links, dict(os.environ) if env is None else env, transport, sender,
                             extra or {})
        super().__init__(site, build(ctx, channels), batch=batch, keep=keep)
        self.transport = transport
