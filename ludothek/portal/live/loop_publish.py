"""Publishing live messages to Redis from the event loop, without waiting for Redis's answer.

A move's live update used to travel through a publisher thread that sent it and waited for
Redis's reply: two hand-overs between threads (and the GIL) and a reply to parse, about 0.2 ms of
CPU per move, a tenth of what a move may cost on two cores at 1,000 moves/s
(`docs/operations.md`).  Here the server's event loop writes the ``PUBLISH`` itself on a connection
that has told Redis not to answer (``CLIENT REPLY OFF``): a write to a socket, no reply, no thread.

What the move's answer still waits for is that the bytes are in the kernel (the transport's buffer
is empty).  A process killed after that still delivers them: the kernel sends what is in a
closed socket's buffer, and since Redis answers nothing on this connection there is no unread
data that would make it reset the connection instead.  When the connection is down, too slow to
take the writes, or the URL needs TLS (``rediss://``), the hub uses its publisher thread, which
waits for Redis's replies and reconnects by itself (`ludothek.portal.live.hub.RedisHub`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from redis.connection import parse_url

log = logging.getLogger(__name__)

#: Bytes the loop's connection may hold unsent before the hub stops using it (Redis not reading).
MAX_UNSENT = 1 << 20
#: Seconds to connect and authenticate.
CONNECT_TIMEOUT = 2.0


def pack(*parts: str | bytes) -> bytes:
    """One command in Redis's protocol (RESP): an array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def supported(url: str) -> bool:
    """Whether the loop can publish to ``url`` itself (plain TCP or a Unix socket; not TLS)."""
    return url.startswith(("redis://", "unix://"))


class LoopPublisher:
    """A connection to Redis that takes ``PUBLISH`` commands and never answers them."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._writer: asyncio.StreamWriter | None = None
        self._watch: asyncio.Task[None] | None = None

    @property
    def ready(self) -> bool:
        return self._writer is not None and not self._writer.is_closing()

    async def connect(self) -> None:
        """Open the connection, authenticate if the URL says so, and switch Redis's replies off."""
        options = parse_url(self.url)
        if "path" in options:
            opening = asyncio.open_unix_connection(options["path"])
        else:
            opening = asyncio.open_connection(options.get("host", "localhost"), options.get("port", 6379))
        reader, writer = await asyncio.wait_for(opening, CONNECT_TIMEOUT)
        try:
            if options.get("password"):
                credentials = [options["username"]] if options.get("username") else []
                writer.write(pack("AUTH", *credentials, options["password"]))
                answer = await asyncio.wait_for(reader.readline(), CONNECT_TIMEOUT)
                if not answer.startswith(b"+"):
                    raise ConnectionError(f"Redis refused the credentials: {answer[:80]!r}")
            writer.write(pack("CLIENT", "REPLY", "OFF"))
            await asyncio.wait_for(writer.drain(), CONNECT_TIMEOUT)
        except BaseException:
            writer.close()
            raise
        # drain() then returns only once everything written is in the kernel (see the module's doc).
        writer.transport.set_write_buffer_limits(high=0)
        self._writer = writer
        self._watch = asyncio.create_task(self._until_closed(reader))

    async def _until_closed(self, reader: asyncio.StreamReader) -> None:
        """Redis answers nothing here: anything read, or the end of the stream, ends the connection."""
        with contextlib.suppress(Exception):
            await reader.read(1)
        log.warning("the live messages' connection to Redis closed; using the publisher thread")
        self._drop()

    def publish(self, channel: str, data: str) -> bool:
        """Write one ``PUBLISH``; False (nothing written) when the connection cannot take it."""
        writer = self._writer
        if writer is None or writer.is_closing():
            return False
        if writer.transport.get_write_buffer_size() > MAX_UNSENT:
            log.warning("Redis does not take the live messages fast enough; using the publisher thread")
            self._drop()
            return False
        writer.write(pack("PUBLISH", channel, data))
        return True

    async def written(self, timeout: float) -> bool:
        """Wait until what was published is in the kernel; False if that did not happen in time."""
        writer = self._writer
        if writer is None or not writer.transport.get_write_buffer_size():
            return True  # the usual case: the write went straight into the kernel
        try:
            await asyncio.wait_for(writer.drain(), timeout)
        except (TimeoutError, ConnectionError):
            self._drop()
            return False
        return True

    def _drop(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()

    async def close(self) -> None:
        """Send what is written, then close (quietly: this end is closing it)."""
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._watch
            self._watch = None
        writer = self._writer
        if writer is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.drain(), CONNECT_TIMEOUT)
        self._drop()
