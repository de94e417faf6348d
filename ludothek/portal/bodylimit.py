"""Request bodies are limited before they are read or parsed.

Without a limit a client could make the server read and parse a body of any
size: a 42 MB body without a token blocked the server for 0.7 s.  A declared
``Content-Length`` over the limit is refused at once, unread; a body sent
without one (chunked) is counted as it arrives and refused once it passes the
limit, before the endpoint has it all.
"""

from __future__ import annotations

import json
from typing import Any

Scope = dict[str, Any]


class BodyLimit:
    """Pure ASGI middleware: 413 for bodies over ``api`` bytes under ``/api/``, ``form`` bytes elsewhere."""

    def __init__(self, app: Any, api: int, form: int) -> None:
        self.app = app
        self.api = api
        self.form = form

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.api if scope["path"].startswith("/api/") else self.form
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = limit + 1
                if declared > limit:
                    await self._refuse(send, limit)
                    return
        received = 0
        refused = False

        async def counted_receive() -> Any:
            # Past the limit the refusal goes out at once and the app is told the client left:
            # whatever the app does with that (frameworks catch errors while parsing bodies),
            # its own answer is dropped below.
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    await self._refuse(send, limit)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Any) -> None:
            if not refused:
                await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except Exception:
            if not refused:
                raise

    @staticmethod
    async def _refuse(send: Any, limit: int) -> None:
        body = json.dumps({
            "detail": f"the request body is larger than the {limit} bytes accepted here",
            "code": "too_large",
        }).encode()
        await send({
            "type": "http.response.start", "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                        (b"connection", b"close")],
        })
        await send({"type": "http.response.body", "body": body})
