"""Live sockets: relaying a queue of messages to an admitted socket.

Both live channels (a game's updates, ``/games/{id}/live``, and a user's own
"your turn" notices, ``/live/me``) admit a socket the same way (`ludothek.portal.deps.admit`):
browsers must come from our own origin (a foreign page cannot listen with the visitor's
cookie), programs authenticate with ``?token=`` or a Bearer header, and every
socket counts against the per-user, per-address and per-process caps.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from .. import jsonbody


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
