"""The two requests every move makes, served without FastAPI's routing and parameter solving.

A move through the API is ``POST /api/v1/games/{id}/actions``, and the other seat then reads the
game with ``GET /api/v1/games/{id}``.  For these two, FastAPI's route matching (tried against
every route in turn), its dependency solving and its parameter validation cost more CPU than
the rest of the request outside the store.  `HotPath` recognises exactly the well-formed forms
of these requests and calls the very functions their endpoints (`routes.play.submit`,
`routes.play.get_game`) call, with the very same authentication (`deps.api_user`,
`deps.optional_user`) and error handler; anything else, however slightly different (another query parameter, another content type, a body that
does not parse or validate, an id out of range), goes to FastAPI unchanged, which answers it as
before (its 404, 422, ...).  A move's credentials are checked before its body is parsed, as on
FastAPI's routes (`ludothek.portal.jsonroute`): without them the answer is 401 whatever the body.  The answers are the ones FastAPI gives: same status, body, headers,
the access log's route template and the request metrics' labels.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ludothek.engine import jsonread
from ludothek.storage import StoreError
from ludothek.storage.models import MAX_ID

from .apibodies import Move
from .contract import ALIAS, PREFIX
from .deps import authenticated, current_user, lang_of, portal_of
from .jsonbody import JSONBody
from .routes import play

#: ``/api/v1/games/{id}`` or ``/api/games/{id}``, with ``/actions`` for a move; ids as FastAPI's
#: own route would take them without question (no sign, no leading zero, at most 10 digits).
HOT_RE = re.compile(r"^(/api(?:/v1)?)/games/([1-9][0-9]{0,9})(/actions)?$")

#: The query strings taken here (anything else goes to FastAPI).
LANGS: dict[bytes, Literal["de", "en"]] = {b"lang=de": "de", b"lang=en": "en"}
LOGS = {b"log=true": True, b"log=false": False}


class _RouteContext:
    """What `observe.route_template` reads of the route that answered (as FastAPI leaves it in the scope)."""

    __slots__ = ("path_format",)

    def __init__(self, path_format: str) -> None:
        self.path_format = path_format


ROUTES = {(prefix, action): _RouteContext(prefix + "/games/{game_id}" + action)
          for prefix in (PREFIX, ALIAS) for action in ("", "/actions")}


def _query(raw: bytes, with_log: bool) -> tuple[Literal["de", "en"] | None, bool] | None:
    """``(lang, log)`` from a query string of the plain forms, or None (FastAPI decides)."""
    lang: Literal["de", "en"] | None = None
    log = True
    if not raw:
        return lang, log
    seen: set[bytes] = set()
    for part in raw.split(b"&"):
        key = part.split(b"=", 1)[0]
        if key in seen:
            return None
        seen.add(key)
        if part in LANGS:
            lang = LANGS[part]
        elif with_log and part in LOGS:
            log = LOGS[part]
        else:
            return None
    return lang, log


class HotPath:
    """Pure ASGI middleware, innermost: the hot requests go straight to their endpoint functions."""

    def __init__(self, app: ASGIApp, settings: Any) -> None:
        self.app = app
        self.settings = settings  # `Settings.hot_path` switches it (tests compare both ways)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.settings.hot_path:
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        match = HOT_RE.match(scope["path"]) if method in ("POST", "GET") else None
        if match is None:
            await self.app(scope, receive, send)
            return
        prefix, digits, action = match.groups()
        game_id = int(digits)
        query = _query(scope.get("query_string", b""), with_log=not action)
        if game_id > MAX_ID or query is None or (method == "POST") != bool(action):
            await self.app(scope, receive, send)
            return
        lang, log = query
        if method == "GET":
            await self._answer(scope, receive, send, prefix, digits, "", game_id, lang, log, None)
            return
        if _content_type(scope) != b"application/json":
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        if messages[-1]["type"] != "http.request":  # the client left: FastAPI sees the same messages
            await self.app(scope, _replay(messages, receive), send)
            return
        await self._answer(scope, _replay(messages, receive), send, prefix, digits, "/actions", game_id, lang,
                           False, body)

    async def _answer(self, scope: Scope, receive: Receive, send: Send, prefix: str, digits: str, action: str,
                      game_id: int, lang: Literal["de", "en"] | None, log: bool, body: bytes | None) -> None:
        scope["fastapi"] = {"effective_route_context": ROUTES[(prefix, action)]}
        scope["path_params"] = {"game_id": digits}
        request = Request(scope, receive)
        portal = portal_of(request)
        response: Response
        try:
            # Authentication and the work in one call of the store's thread (one hop, not two, on PostgreSQL).
            if body is None:
                def read() -> dict[str, Any]:
                    user = current_user(request)
                    return play.game_state(request, game_id, user, lang or lang_of(request, user), log)

                response = JSONBody(await portal.offload(read))
            else:
                def move_and_answer(raw: bytes) -> dict[str, Any] | None:
                    user = authenticated(request)  # credentials first: without them, nothing is parsed
                    move = _parse_move(raw)
                    if move is None:
                        return None
                    return play.move_answer(request, game_id, move, user, lang)

                answer = await portal.offload(move_and_answer, body)
                if answer is None:  # FastAPI says what is wrong with the body (the user is remembered)
                    del scope["fastapi"], scope["path_params"]  # FastAPI routes it as it always does
                    await self.app(scope, receive, send)
                    return
                await portal.hub.flushed()  # as `play.submit`: other processes hear of the move first
                response = JSONBody(answer)
        except StoreError as exc:
            handler = scope["app"].exception_handlers[StoreError]  # the application's own answer
            response = await handler(request, exc)
        await response(scope, receive, send)


def _content_type(scope: Scope) -> bytes | None:
    found = None
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            if found is not None:
                return None
            found = value
    return found


def _parse_move(body: bytes) -> Move | None:
    """The move, if ``body`` is a well-formed one; else None (FastAPI answers it, too deep included)."""
    try:
        data = jsonread.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    try:
        return Move.model_validate(data)
    except ValidationError:
        return None


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """The request's messages once more, then the connection's own."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
