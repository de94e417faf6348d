"""The game chat in pages, the JSON API and live messages (issue 12, part 4).

Who may read and write is the store's decision (`ludothek.services.community.chat`): the
players at the table while the game waits or runs, anyone once it has ended.
A message is stored first and then sent over the game's live socket
(``/games/{id}/live``, Redis between processes) as
``{"type": "chat", "game": id, "message": {...}}``, addressed to the table while
the game runs, so spectators never hear it; those who blocked the author are
left out.  Each message counts against the ``chat_user`` and ``chat_addr`` rate
limits (10 a minute per user, 60 per address, shared through Redis) once it has
passed every other check.

Text is plain everywhere: Jinja escapes it in pages, the API returns it as a
JSON string, and the page's script inserts live messages with ``textContent``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.services.community.chat import MAX_CHAT_LENGTH, MAX_CHAT_PER_GAME, ChatLine, ChatView, Posted
from ludothek.storage import StoreError, TooManyAttempts, UserInfo
from ludothek.storage.models import MAX_ID

from ..chat_panel import chat_context
from ..contract import Whole, refusals
from ..deps import (
    CsrfField,
    GameId,
    MaybeUser,
    User,
    check_csrf,
    client_address,
    current_user,
    lang_of,
    need_user,
    portal_of,
)
from ..jsonroute import BoundedRoute
from ..render import message_of, redirect, render

api = APIRouter(route_class=BoundedRoute, tags=["chat"])
pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)

MessageId = Annotated[int, Path(ge=1, le=MAX_ID, description="the chat message's id")]


# ----------------------------------------------------------------------------- models
class ChatMessageOut(BaseModel):
    id: int
    game: int = Field(description="the game's id")
    author: str = Field(description="the user name of who wrote it")
    seq: int = Field(description="the game's move number when it was written (a replay shows it there)")
    text: str = Field(description="plain text: show it as text, never as HTML")
    at: datetime = Field(description="when it was written (UTC)")


class ChatOut(BaseModel):
    game: int
    messages: list[ChatMessageOut] = Field(description="oldest first")
    hidden: int = Field(description="messages left out because I blocked their authors")
    earlier: int = Field(description="messages before the first one given (ask again with before=<its id>)")
    can_write: bool = Field(description="whether I may write in this chat")
    max_length: int = Field(MAX_CHAT_LENGTH, description="the longest message, in characters")


class ChatIn(BaseModel):
    text: str = Field(max_length=4 * MAX_CHAT_LENGTH, description=f"plain text, at most {MAX_CHAT_LENGTH} characters; control characters are "
                      "taken out, tabs and line breaks become spaces")


class ReportIn(BaseModel):
    reason: Literal["abuse", "spam", "cheating", "other"] = "abuse"


class ReportOut(BaseModel):
    id: int
    message: int
    reason: str


def message_json(line: ChatLine) -> dict[str, Any]:
    return line.to_json()


def chat_json(game_id: int, view: ChatView) -> dict[str, Any]:
    return {"game": game_id, "messages": [message_json(m) for m in view.messages], "hidden": view.hidden,
            "earlier": view.earlier, "can_write": view.can_write, "max_length": MAX_CHAT_LENGTH}


def post(request: Request, game_id: int, user: UserInfo, text: Any) -> ChatLine:
    """Store a message (the rate limit counts it once it passed every check) and send it live."""
    portal = portal_of(request)

    def admit() -> None:
        try:
            portal.limits.hit("chat_user", str(user.id))
        except TooManyAttempts as exc:
            exc.params["code_key"] = "chat_rate"
            raise
        try:
            portal.limits.hit("chat_addr", client_address(request))
        except TooManyAttempts as exc:
            exc.params["code_key"] = "chat_rate_addr"
            raise

    posted: Posted = portal.site.chat.post_chat(game_id, user, text, admit=admit)
    portal.hub.publish_to(game_id, {"type": "chat", "message": message_json(posted.line)}, posted.to, posted.skip)
    return posted.line



# ----------------------------------------------------------------------------- JSON API
@api.get("/games/{game_id}/chat", response_model=ChatOut, responses=refusals(403),
         summary="A game's chat: the table's while it runs, everyone's once it has ended")
async def get_chat(
    game_id: GameId, request: Request, user: MaybeUser,
    after: Annotated[Whole, Query(description="only messages with a larger id")] = 0,
    before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="only messages with a smaller id")] = None,
    upto_seq: Annotated[Whole | None, Query(description="only messages written at or before this move")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_CHAT_PER_GAME, description="at most this many (the latest)")] = 200,
) -> dict[str, Any]:
    view = portal_of(request).site.chat.chat(game_id, user, after=after, before=before,
                                         upto_seq=upto_seq, limit=limit)
    return chat_json(game_id, view)


@api.post("/games/{game_id}/chat", status_code=201, response_model=ChatMessageOut, responses=refusals(409, 429),
          summary="Write in a game's chat (players of the game only; at most 10 messages a minute)")
def post_chat(game_id: GameId, body: ChatIn, request: Request, user: User) -> dict[str, Any]:
    return message_json(post(request, game_id, user, body.text))


@api.post("/chat/{message_id}/report", status_code=201, response_model=ReportOut, responses=refusals(409),
          summary="Report a chat message I can read to the operators (once per message)")
def report(message_id: MessageId, body: ReportIn, request: Request, user: User) -> dict[str, Any]:
    rid = portal_of(request).site.chat.report_chat(message_id, user, body.reason)
    return {"id": rid, "message": message_id, "reason": body.reason}


# ----------------------------------------------------------------------------- pages
def _fetching(request: Request) -> bool:
    """The page's own script sends the forms with this header and wants JSON back."""
    return request.headers.get("x-ludothek-fetch") == "1"


def _refused(request: Request, exc: StoreError) -> Response:
    """A refusal as JSON for the page's script (in the reader's language), else the error page."""
    lang = lang_of(request, current_user(request))
    if _fetching(request):
        headers = {"Retry-After": str(exc.params["seconds"])} if exc.status == 429 else None
        return JSONResponse({"detail": message_of(exc, lang), "code": exc.code}, exc.status, headers=headers)
    raise exc


@pages.post("/games/{game_id}/chat")
def chat_form(request: Request, game_id: GameId, csrf: CsrfField, text: Annotated[str, Form()] = "") -> Response:
    """The chat form: the page's script sends it and gets JSON; without script it comes back to the game."""
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        line = post(request, game_id, user, text)
    except StoreError as exc:
        return _refused(request, exc)
    if _fetching(request):
        return JSONResponse(message_json(line), 201)
    return redirect(request, f"/games/{game_id}#chat")


@pages.post("/chat/{message_id}/report")
def report_form(request: Request, message_id: MessageId, csrf: CsrfField,
                reason: Annotated[str, Form()] = "abuse", game: Annotated[int, Form(ge=1, le=MAX_ID)] = 0) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        portal_of(request).site.chat.report_chat(message_id, user, reason)
    except StoreError as exc:
        return _refused(request, exc)
    if _fetching(request):
        return JSONResponse({"message": message_id, "reason": reason}, 201)
    return redirect(request, f"/games/{game}/chat?reported={message_id}" if game else "/")


@pages.get("/games/{game_id}/chat", response_class=HTMLResponse)
def chat_page(request: Request, game_id: GameId) -> Response:
    """The whole chat of a game on a page of its own (the game page shows the latest messages)."""
    user = current_user(request)
    site = portal_of(request).site
    info = site.games.game(game_id)
    ctx = chat_context(request, info, user, limit=MAX_CHAT_PER_GAME)
    if ctx["chat"] is None:
        site.chat.chat(game_id, user)  # raises the refusal the API gives
    reported = request.query_params.get("reported")
    return render(request, "chat.html", user, info=info, game=eng.load(info.game), reported=reported, **ctx)
