"""A webhook receiver for the tests: an HTTP server on a loopback port that checks signatures.

It answers each request with the next scripted `Answer` (204 when the script is empty), records
what it got (`Received`), and checks the signature the way docs/notifications.md tells a receiver
to: HMAC-SHA256 of ``<timestamp>.<body>`` with the hook's secret, compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import ssl
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def verify(secret: str, timestamp: str, body: bytes, header: str) -> bool:
    """docs/notifications.md's check, as a receiver writes it."""
    expected = "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


@dataclass
class Answer:
    status: int = 204
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    #: Send the body a byte at a time with this pause (a slow receiver); 0: at once.
    drip: float = 0.0


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def signed_by(self, secret: str) -> bool:
        return verify(secret, self.headers.get("x-ludothek-timestamp", ""), self.body,
                      self.headers.get("x-ludothek-signature", ""))


class Receiver:
    def __init__(self) -> None:
        self.script: deque[Answer] = deque()
        self.received: list[Received] = []
        self.lock = threading.Lock()
        self.port = 0
        self.scheme = "http"
        #: The server names TLS clients asked for (SNI).
        self.server_names: list[str | None] = []

    def url(self, path: str = "/hook", host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def answer(self, *answers: Answer) -> None:
        with self.lock:
            self.script.extend(answers)

    def next_answer(self) -> Answer:
        with self.lock:
            return self.script.popleft() if self.script else Answer()


@contextmanager
def running_receiver(tls: tuple[str, str] | None = None) -> Iterator[Receiver]:
    """A receiver on a free loopback port; with ``tls`` (certificate and key files) it speaks HTTPS."""
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            with receiver.lock:
                receiver.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            answer = receiver.next_answer()
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            if "Content-Length" not in answer.headers:
                self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            try:
                if answer.drip:
                    for i in range(len(answer.body)):
                        self.wfile.write(answer.body[i:i + 1])
                        self.wfile.flush()
                        time.sleep(answer.drip)
                else:
                    self.wfile.write(answer.body)
            except OSError:
                pass  # the client gave up: that is what a slow or large answer is for

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        context.sni_callback = lambda sock, name, ctx: receiver.server_names.append(name)  # type: ignore[assignment]
        server.socket = context.wrap_socket(server.socket, server_side=True)
        receiver.scheme = "https"
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
