"""A real SMTP server for the tests (aiosmtpd on a free local port) and helpers to read what it got."""

from __future__ import annotations

import email
import email.policy
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


@dataclass
class Received:
    rcpt: list[str]
    msg: EmailMessage

    @property
    def subject(self) -> str:
        return str(self.msg["Subject"])

    def text(self) -> str:
        part = self.msg.get_body(("plain",))
        assert part is not None
        return str(part.get_content())  # type: ignore[attr-defined]

    def html(self) -> str:
        part = self.msg.get_body(("html",))
        assert part is not None
        return str(part.get_content())  # type: ignore[attr-defined]

    def link(self, path: str) -> str:
        """The first link in the plain text whose path starts with ``path``."""
        m = re.search(r"https?://[^\s/]+(" + re.escape(path) + r"[^\s<>\"]*)", self.text())
        assert m, f"no link to {path} in:\n{self.text()}"
        return m.group(0)


class Sink:
    """aiosmtpd handler keeping every message; ``refuse`` makes it answer 550."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.refuse = False
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse:
            return "550 refused by the test"
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.received.append(Received(list(envelope.rcpt_tos), msg))  # type: ignore[arg-type]
        return "250 OK"

    def take(self) -> list[Received]:
        with self.lock:
            out, self.received = self.received, []
        return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def smtp_server() -> Iterator[tuple[Sink, int]]:
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield sink, port
    finally:
        controller.stop()
