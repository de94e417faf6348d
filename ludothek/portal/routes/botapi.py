"""The bot API (issue 33): bot accounts, their event stream, challenges, and the bot leaderboard.

A person registers a bot account and makes tokens for it (``/bots``); the bot then plays through the
ordinary JSON API (``/games/{id}``, ``/games/{id}/actions``: the one move path) and listens to
``/bot/stream``, newline-delimited JSON (`ludothek.portal.live.botstream`), instead of polling.
Challenges are the lobby's named invitations: the bot answers them with
``/bot/challenge/{id}/accept|decline``.  Rulings and an example bot: ``docs/research.md``, "Bot API".
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from datetime import datetime
from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.services.botaccounts import MAX_BOTS_PER_OWNER, BotInfo
from ludothek.storage import StoreError, UserInfo
from ludothek.storage.errors import NotFound, TooManyAttempts
from ludothek.storage.info import token_hash
from ludothek.storage.rating_update import LEADERBOARD_MIN_GAMES
from ludothek.texts import t

from ..apimodels import TokenInfoOut
from ..contract import Id, refusals
from ..deps import (
    CsrfField,
    User,
    bearer_token,
    check_csrf,
    current_user,
    lang_of,
    need_user,
    portal_of,
    session_of,
)
from ..jsonroute import BoundedRoute
from ..live import botstream
from ..render import message_of, redirect, render
from .accounts import confirm_password_braked

api = APIRouter(route_class=BoundedRoute, tags=["bots"])
pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)

Name = Annotated[str, Path(min_length=1, max_length=40, description="a bot account's name (any case)")]
KindPath = Annotated[str, Path(pattern="^[a-z][a-z0-9_]*$", max_length=40, description="a game id, e.g. machikoro")]
BotName = Annotated[str, Field(min_length=3, max_length=20, description="3 to 20 letters, digits, '.', '_' or '-'")]


class BotIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    name: BotName
    rated_with_people: bool = Field(default=False, description="let its games count for the people's ratings")


class BotPatch(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    rated_with_people: bool


class BotTokenIn(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    label: str = Field(default="", max_length=80)


class BotOut(BaseModel):
    name: str
    owner: str = Field(description="the person who runs it")
    rated_with_people: bool = Field(description="its games count for the people's ratings (the owner opted in)")
    created_at: datetime


class BotsOut(BaseModel):
    bots: list[BotOut]
    limit: int = Field(description="how many bot accounts one person may run")


class BotCreatedOut(BaseModel):
    bot: BotOut
    token: str = Field(description="an API token for the bot (shown once): `Authorization: Bearer <token>`")


class BotTokenOut(BaseModel):
    token: str = Field(description="an API token for the bot (shown once)")


class ChallengeAnswerOut(BaseModel):
    id: int = Field(description="the challenge's id, which is its game's id")
    answer: Literal["accepted", "declined"]
    game: int = Field(description="the game: GET /games/{id} (it starts once every seat is taken)")


class BotBoardRowOut(BaseModel):
    rank: int
    name: str
    owner: str
    conservative: float = Field(description="mu - 3 sigma among bots: ranked by it")
    games: int
    wins: int


class BotBoardOut(BaseModel):
    game: str
    total: int = Field(description="bot accounts on this board")
    min_games: int
    rows: list[BotBoardRowOut]


def bot_json(b: BotInfo) -> dict[str, Any]:
    return {"name": b.name, "owner": b.owner, "rated_with_people": b.rated_with_people, "created_at": b.created_at}


# ----------------------------------------------------------------------------- accounts
@api.post("/bots", status_code=201, response_model=BotCreatedOut, responses=refusals(403, 409, 429),
          summary="Register a bot account that I run; answers with its first token")
async def register_bot(body: BotIn, request: Request, user: User) -> dict[str, Any]:
    site = portal_of(request).site
    bot = await portal_of(request).offload(site.botaccounts.register, user, body.name, body.rated_with_people)
    token = await portal_of(request).offload(site.botaccounts.new_token, user, bot.name, "bot")
    return {"bot": bot_json(bot), "token": token}


@api.get("/me/bots", response_model=BotsOut, summary="The bot accounts I run")
async def my_bots(request: Request, user: User) -> dict[str, Any]:
    bots = await portal_of(request).offload(portal_of(request).site.botaccounts.owned, user.id)
    return {"bots": [bot_json(b) for b in bots], "limit": MAX_BOTS_PER_OWNER}


@api.get("/bots/{name}", response_model=BotOut, responses=refusals(404), summary="A bot account (anyone may look)")
async def get_bot(name: Name, request: Request) -> dict[str, Any]:
    return bot_json(await portal_of(request).offload(portal_of(request).site.botaccounts.bot, name))


@api.patch("/bots/{name}", response_model=BotOut, responses=refusals(404),
           summary="Opt my bot into the people's ratings, or out (from the next finished game on)")
async def patch_bot(name: Name, body: BotPatch, request: Request, user: User) -> dict[str, Any]:
    site = portal_of(request).site
    return bot_json(await portal_of(request).offload(site.botaccounts.set_rated_with_people, user, name,
                                                     body.rated_with_people))


@api.post("/bots/{name}/tokens", status_code=201, response_model=BotTokenOut, responses=refusals(404),
          summary="A new API token for my bot (revoke with the bot's own DELETE /tokens/{id})")
async def bot_token(name: Name, body: BotTokenIn, request: Request, user: User) -> dict[str, Any]:
    site = portal_of(request).site
    return {"token": await portal_of(request).offload(site.botaccounts.new_token, user, name, body.label)}


@api.get("/bots/{name}/tokens", response_model=list[TokenInfoOut], responses=refusals(404),
         summary="The live tokens of my bot, newest first (never the tokens themselves)")
async def bot_tokens(name: Name, request: Request, user: User) -> list[dict[str, Any]]:
    site = portal_of(request).site
    tokens = await portal_of(request).offload(site.botaccounts.tokens, user, name)
    return [{"id": tk.id, "label": tk.label, "created_at": tk.created_at, "last_used_at": tk.last_used_at,
             "expires_at": tk.expires_at} for tk in tokens]


@api.delete("/bots/{name}/tokens/{token_id}", status_code=204, responses=refusals(404),
            summary="Revoke a token of my bot at once (a bot has no password to revoke its own with)")
async def revoke_bot_token(name: Name, token_id: Id, request: Request, user: User) -> Response:
    site = portal_of(request).site
    await portal_of(request).offload(site.botaccounts.revoke_token, user, name, token_id)
    return Response(status_code=204)


# ----------------------------------------------------------------------------- challenges
@api.post("/bot/challenge/{challenge_id}/accept", response_model=ChallengeAnswerOut, responses=refusals(403, 409),
          summary="Accept a challenge (a named invitation of this bot): take its seat")
async def accept_challenge(challenge_id: Id, request: Request, user: User) -> dict[str, Any]:
    site = portal_of(request).site
    await portal_of(request).offload(site.botaccounts.accept, user, challenge_id)
    return {"id": challenge_id, "answer": "accepted", "game": challenge_id}


@api.post("/bot/challenge/{challenge_id}/decline", response_model=ChallengeAnswerOut, responses=refusals(403, 409),
          summary="Decline a challenge: the seat becomes open, and its creator is told")
async def decline_challenge(challenge_id: Id, request: Request, user: User) -> dict[str, Any]:
    site = portal_of(request).site
    await portal_of(request).offload(site.botaccounts.decline, user, challenge_id)
    return {"id": challenge_id, "answer": "declined", "game": challenge_id}


# ----------------------------------------------------------------------------- the stream
class EndlessStream(StreamingResponse):
    """A streaming answer that ends as soon as its client goes away.

    Starlette (for ASGI 2.4 servers) notices a closed connection only when a write fails, which for a
    quiet stream is the next keep-alive line: until then the stream would hold its place among the
    token's streams.  This one also listens for the disconnect and then closes the stream at once.
    """

    media_type = "application/x-ndjson"

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async with anyio.create_task_group() as group:

            async def write() -> None:
                with contextlib.suppress(OSError):
                    await self.stream_response(send)
                group.cancel_scope.cancel()

            group.start_soon(write)
            await self.listen_for_disconnect(receive)
            group.cancel_scope.cancel()


_open_streams: Counter[tuple[int, str]] = Counter()
_streams_lock = threading.Lock()

class BotEventOut(BaseModel):
    """One line of the stream (docs/research.md, "Bot API", has which fields each type carries)."""

    type: Literal["hello", "challenge", "challenge_canceled", "game_start", "your_turn", "game_end"]
    bot: str | None = Field(default=None, description="hello: the bot's name")
    keepalive: float | None = Field(default=None, description="hello: seconds between keep-alive (empty) lines")
    id: int | None = Field(default=None, description="challenge, challenge_canceled: the challenge (its game's id)")
    game: int | str | None = Field(default=None, description="the game's id; in a challenge the game kind")
    kind: str | None = Field(default=None, description="game_start: the game kind")
    players: int | None = None
    options: dict[str, str] | None = None
    by: str | None = Field(default=None, description="challenge: who invited the bot")
    created_at: datetime | None = None
    reason: Literal["cancelled", "declined"] | None = None
    seat: int | None = None
    seq: int | None = Field(default=None, description="your_turn: the move number to move against")
    status: str | None = Field(default=None, description="game_end: finished or abandoned")
    place: int | None = None


STREAM_DOC: dict[int | str, dict[str, Any]] = {
    200: {"model": BotEventOut,
          "description": "newline-delimited JSON (`application/x-ndjson`), one `BotEventOut` per line; empty "
                         "lines keep the stream alive"}}
#: The answer's real media type, beside the model FastAPI files under JSON.
STREAM_EXTRA = {"responses": {"200": {"content": {"application/x-ndjson": {
    "schema": {"$ref": "#/components/schemas/BotEventOut"}}}}}}


@api.get("/bot/stream", responses={**STREAM_DOC, **refusals(403, 429)}, openapi_extra=STREAM_EXTRA,
         summary="The bot's events as newline-delimited JSON: challenges, game starts, its turns, game ends")
async def bot_stream(request: Request, user: User) -> Response:
    portal = portal_of(request)
    await portal.offload(portal.site.botaccounts.need_bot, user)
    token = bearer_token(request)
    key = (id(portal), token_hash(token) if token else "session:" + str(session_of(request).sid))
    with _streams_lock:
        if _open_streams[key] >= botstream.STREAMS_PER_TOKEN:
            raise TooManyAttempts(f"this token has {_open_streams[key]} streams open already; close one",
                                  retry_after=10)
        _open_streams[key] += 1

    async def lines() -> Any:
        try:
            async for chunk in botstream.stream(portal.site, portal.hub, user.id, user.name, portal.offload):
                yield chunk
        finally:
            with _streams_lock:
                _open_streams[key] -= 1
                if _open_streams[key] <= 0:
                    del _open_streams[key]

    return EndlessStream(lines(), media_type="application/x-ndjson",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


# ----------------------------------------------------------------------------- the bot leaderboard
def _board(request: Request, kind: str, limit: int, offset: int) -> dict[str, Any]:
    if kind not in eng.games():
        raise NotFound(f"unknown game {kind!r}", code_key="unknown_game", game=kind)
    rows, total = portal_of(request).site.botaccounts.leaderboard(kind, limit, offset)
    return {"game": kind, "total": total, "min_games": LEADERBOARD_MIN_GAMES,
            "rows": [r.__dict__ for r in rows]}


@api.get("/bot-leaderboard/{kind}", response_model=BotBoardOut, responses=refusals(404),
         summary="Bot accounts ranked among bots in one game")
async def bot_leaderboard(kind: KindPath, request: Request,
                          limit: Annotated[int, Query(ge=1, le=200)] = 50,
                          offset: Annotated[int, Query(ge=0, le=100_000)] = 0) -> dict[str, Any]:
    return await portal_of(request).offload(_board, request, kind, limit, offset)


@pages.get("/bot-leaderboard/{kind}", response_class=HTMLResponse)
def bot_leaderboard_page(request: Request, kind: KindPath, page: Annotated[int, Query(ge=1, le=100_000)] = 1) -> Response:
    user: UserInfo | None = current_user(request)
    lang = lang_of(request, user)
    if kind not in eng.games():
        return render(request, "error.html", user, status=404, message=t("err_unknown_game", lang, game=kind))
    per_page = 50
    rows, total = portal_of(request).site.botaccounts.leaderboard(kind, per_page, (page - 1) * per_page)
    return render(request, "bot_leaderboard.html", user, game=eng.load(kind), rows=rows, page=page,
                  pages=max(1, -(-total // per_page)), min_games=LEADERBOARD_MIN_GAMES)


# ----------------------------------------------------------------------------- the owner's page
def bots_page(request: Request, user: UserInfo, status: int = 200, **ctx: Any) -> Response:
    site = portal_of(request).site
    return render(request, "account_bots.html", user, status=status, bots=site.botaccounts.owned(user.id),
                  bot_limit=MAX_BOTS_PER_OWNER, **ctx)


@pages.get("/account/bots", response_class=HTMLResponse)
def account_bots(request: Request) -> Response:
    return bots_page(request, need_user(request))


@pages.post("/account/bots")
def create_bot_form(request: Request, csrf: CsrfField, name: Annotated[str, Form()] = "",
                    rated_with_people: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    site = portal_of(request).site
    try:
        bot = site.botaccounts.register(user, name.strip(), rated_with_people == "on")
        token = site.botaccounts.new_token(user, bot.name, "bot")
    except StoreError as exc:
        return bots_page(request, user, status=exc.status, error=message_of(exc, user.lang), form_name=name)
    # Shown this once, as the POST's answer (never in an address); the page's address becomes /account/bots.
    return bots_page(request, user, new_token=token, token_for=bot.name, replace_url="/account/bots")


@pages.post("/account/bots/{name}/token")
def bot_token_form(request: Request, name: Name, csrf: CsrfField, password: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        confirm_password_braked(request, user, password)  # a new credential: the owner's password, as for tokens
        token = portal_of(request).site.botaccounts.new_token(user, name, "bot")
    except StoreError as exc:
        return bots_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return bots_page(request, user, new_token=token, token_for=name, replace_url="/account/bots")


@pages.post("/account/bots/{name}/rated")
def bot_rated_form(request: Request, name: Name, csrf: CsrfField, rated_with_people: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        portal_of(request).site.botaccounts.set_rated_with_people(user, name, rated_with_people == "on")
    except StoreError as exc:
        return bots_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return redirect(request, "/account/bots")
