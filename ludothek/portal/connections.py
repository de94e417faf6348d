"""Idle and slow HTTP connections time out.

uvicorn closes a keep-alive connection that stays idle after a response, but
not a connection that was opened and never sends a request, nor one that
sends its request a byte at a time (stopping as soon as a byte arrives, the
keep-alive timer is never armed again).  Each such connection holds a file
handle for good: 1,007 of them used to exhaust the server's 1,024 and stop
every other request.  The protocol here gives every request a deadline: from
the moment the connection opens (or the previous response ends) until the
whole request, headers and body, has arrived.  A connection that misses it is
closed.  Handling the request is not timed, and a connection upgraded to a
WebSocket belongs to the WebSocket protocol, which has its own ping timeout.

The protocol also writes a response's status line and headers together with
the first part of its body: uvicorn writes them separately, two system calls
(and two TCP segments the client must wake up for) per answer where one does.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle


class _HeldHeaders:
    """The connection's transport for one response: the header block is held back while ``holding``
    and goes out with the next write (the body), in one system call."""

    __slots__ = ("_held", "_transport", "holding")

    def __init__(self, transport: asyncio.Transport) -> None:
        self._transport = transport
        self._held: bytes | None = None
        self.holding = False

    def write(self, data: bytes) -> None:
        if self.holding:
            self._held = data
            return
        if self._held is not None:
            data, self._held = self._held + data, None
        self._transport.write(data)

    def flush(self) -> None:
        if self._held is not None:
            held, self._held = self._held, None
            self._transport.write(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:  # is_closing, get_extra_info, ...: the real transport's
        return getattr(self._transport, name)


class _OneWriteCycle(RequestResponseCycle):
    """uvicorn's request-response cycle, with the headers written together with the body."""

    transport: Any

    async def send(self, message: Any) -> None:
        held = self.transport
        if not isinstance(held, _HeldHeaders):
            await super().send(message)
            return
        if message["type"] == "http.response.start" and not self.response_started:
            held.holding = True
            try:
                await super().send(message)
            finally:
                held.holding = False
            return
        await super().send(message)
        held.flush()  # a body message that wrote nothing (HEAD) still sends the headers


class DeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline for receiving each request."""

    #: Seconds a client has to send a whole request (set by `with_request_deadline`).
    request_deadline: float = 15.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_deadline, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        # After an upgrade the transport serves the WebSocket protocol: not ours to close.
        if self.transport.get_protocol() is self and not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_complete(self) -> None:
        self._disarm()  # the whole request is in: handling it is not timed
        super().on_message_complete()

    def on_headers_complete(self) -> None:
        before = self.cycle
        super().on_headers_complete()
        cycle = self.cycle
        if cycle is not None and cycle is not before and type(cycle) is RequestResponseCycle:
            # The new cycle's task has not run yet: from its first step it writes through the holder.
            cycle.__class__ = _OneWriteCycle
            cycle.transport = _HeldHeaders(cycle.transport)  # type: ignore[assignment]

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection gets its own deadline


def with_request_deadline(seconds: float) -> type[DeadlineProtocol]:
    """The protocol class to give uvicorn (``http=``) for a deadline of ``seconds`` per request."""
    return type("DeadlineProtocol", (DeadlineProtocol,), {"request_deadline": seconds})
