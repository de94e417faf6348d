"""Live sockets: who may open one, and relaying a queue of messages to it.

Both live channels (a game's updates, ``/games/{id}/live``, and a user's own
"your turn" notices, ``/live/me``) admit a socket the same way: browsers must
come from our own origin (a foreign page cannot listen with the visitor's
cookie), programs authenticate with ``?token=`` or a Bearer header, and every
socket counts against the per-user and per-address caps.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from ludothek.storage import UserInfo

from . import jsonbody
from .context import bearer_token, portal_of
from .sessions import COOKIE


def _same_origin(websocket: WebSocket) -> bool:
    origin = websocket.headers.get("origin")
    host = websocket.headers.get("host")
    return origin is None or host is None or origin.split("://", 1)[-1] == host


def _user_of(websocket: WebSocket) -> UserInfo | None:
    portal = portal_of(websocket)
    token = websocket.query_params.get("token") or bearer_token(websocket)
    if token:
        return portal.site.sessions.user_by_token(token)
    session = portal.codec.load(websocket.cookies.get(COOKIE))
    return portal.site.sessions.session_user(session.sid) if session.sid is not None else None


async def admit(websocket: WebSocket) -> tuple[UserInfo, str] | None:
    """The socket's user and address, counted against the caps; None (and the socket closed) if refused.

    1008: a foreign origin, or nobody logged in; 1013: too many live sockets.
    The caller must `release` an admitted socket when it ends.
    """
    if not _same_origin(websocket):
        await websocket.close(code=1008)
        return None
    user = await portal_of(websocket).offload(_user_of, websocket)
    if user is None:
        # Live updates need a session or a token (a spectator who is not logged in reloads instead).
        await websocket.close(code=1008, reason="log in to follow games live")
        return None
    address = websocket.client.host if websocket.client else "?"
    portal = portal_of(websocket)
    portal.site.social.touch(user.id)
    if not portal.sockets.open(user.id, address):
        await websocket.close(code=1013, reason="too many live connections; close another tab")
        return None
    if portal.metrics is not None:
        portal.metrics.sockets.inc()
    websocket.state.user = user  # the access log names the user by id
    return user, address


def release(websocket: WebSocket, admitted: tuple[UserInfo, str]) -> None:
    portal = portal_of(websocket)
    portal.sockets.close(admitted[0].id, admitted[1])
    if portal.metrics is not None:
        portal.metrics.sockets.dec()


async def relay(websocket: WebSocket, queue: asyncio.Queue[dict[str, Any]], hello: dict[str, Any]) -> None:
    """Accept, greet, then send every message of ``queue`` until either side ends.

    One task forwards, one notices the client leaving; whichever ends first ends
    both (a new task per message would cost several trips round the event loop).
    """
    try:
        await websocket.accept()
        await websocket.send_json(hello)
        tasks = {asyncio.create_task(_drain(websocket)), asyncio.create_task(_forward(websocket, queue))}
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        with contextlib.suppress(Exception):
            await websocket.close()


async def _forward(websocket: WebSocket, queue: asyncio.Queue[dict[str, Any]]) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            # Starlette's send_json writes the same text with the standard library, several times slower.
            await websocket.send_text(jsonbody.dumps(await queue.get()).decode())


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what the client sends, to notice when it goes away."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message: Any = await websocket.receive()
            if message.get("type") == "websocket.disconnect":
                return
