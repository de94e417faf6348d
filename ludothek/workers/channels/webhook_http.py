"""One webhook request: POST to an address checked beforehand, and to nothing else.

`ludothek.services.webhook_urls.check_target` resolves the host and refuses it unless every address
is public.  This module then connects to exactly those addresses (`PinnedBackend`): the name is not
looked up a second time, so a name that answers with a public address for the check and a private one
for the connection (DNS rebinding) gains nothing.  The URL keeps its host name, so the ``Host`` header
and TLS (SNI and the certificate check) are those of the name, as a receiver expects.

It uses httpcore (the transport under httpx) directly, because httpcore does exactly one request:
no redirects are followed (a 3xx is the answer), no proxy from the environment is used (a proxy
would connect to whatever it resolves), and the network backend is ours to replace.  One deadline
bounds the whole exchange: connecting, TLS, sending and every read of the answer, so a receiver that
answers one byte a second cannot hold a worker.  At most ``max_answer`` bytes of the answer are read.
"""

from __future__ import annotations

import ssl
import time
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

import httpcore

from ludothek.services.webhook_urls import Target


@dataclass(frozen=True)
class Answer:
    """What the receiver answered (as much as was read of it)."""

    status: int
    retry_after: str | None
    #: The answer was longer than allowed (reading stopped there).
    too_large: bool = False


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self, error: type[Exception], asked: float | None = None) -> float:
        """Seconds an operation may take now: what it asked, never past the deadline."""
        remaining = self.end - time.monotonic()
        if remaining <= 0:
            raise error("the webhook's deadline passed")
        return remaining if asked is None else min(asked, remaining)


class DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write ends by the request's deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: _Deadline) -> None:
        self.inner = inner
        self.deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, self.deadline.left(httpcore.ReadTimeout, timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, self.deadline.left(httpcore.WriteTimeout, timeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        left = self.deadline.left(httpcore.ConnectTimeout, timeout)
        return DeadlineStream(self.inner.start_tls(ssl_context, server_hostname, left), self.deadline)

    def get_extra_info(self, info: str) -> typing.Any:
        return self.inner.get_extra_info(info)


class PinnedBackend(httpcore.NetworkBackend):
    """Connects to the checked addresses, whatever host name the request carries."""

    def __init__(self, addresses: Sequence[str], deadline: _Deadline) -> None:
        self.addresses = tuple(addresses)
        self.deadline = deadline
        self.inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[typing.Any] | None = None) -> httpcore.NetworkStream:
        last: Exception = httpcore.ConnectError("no address to connect to")
        for address in self.addresses:  # the next one only if this one cannot be reached
            left = self.deadline.left(httpcore.ConnectTimeout, timeout)
            try:
                stream = self.inner.connect_tcp(address, port, left, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
                continue
            return DeadlineStream(stream, self.deadline)
        raise last

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[typing.Any] | None = None) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("webhooks connect over TCP only")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def request_url(target: Target) -> httpcore.URL:
    """The URL as httpcore takes it: the host in its ASCII (IDNA) form, the path percent-encoded."""
    parts = urlsplit(target.url)
    path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
    if parts.query:
        path += "?" + quote(parts.query, safe="/%:@!$&'()*+,;=-._~?")
    return httpcore.URL(scheme=target.scheme, host=target.host.encode("idna").decode("ascii"),
                        port=target.port, target=path)


def post(target: Target, body: bytes, headers: Sequence[tuple[str, str]], timeout: float,
         max_answer: int, ssl_context: ssl.SSLContext | None = None) -> Answer:
    """POST ``body`` to ``target`` (its checked addresses only); the answer, or an ``httpcore`` exception
    (`httpcore.TimeoutException` when the deadline passed, `httpcore.ConnectError`, a protocol error)."""
    deadline = _Deadline(timeout)
    all_headers = [(k.encode(), v.encode()) for k, v in headers]
    budget = {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
    with httpcore.ConnectionPool(ssl_context=ssl_context, network_backend=PinnedBackend(target.addresses, deadline),
                                 max_connections=1, retries=0) as pool, \
            pool.stream("POST", request_url(target), headers=all_headers, content=body,
                        extensions={"timeout": budget}) as response:
        found = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in response.headers}
        retry_after = found.get("retry-after")
        declared = found.get("content-length", "")
        if declared.isdigit() and int(declared) > max_answer:
            return Answer(response.status, retry_after, too_large=True)
        read = 0
        for chunk in response.iter_stream():
            read += len(chunk)
            if read > max_answer:
                return Answer(response.status, retry_after, too_large=True)
        return Answer(response.status, retry_after)
