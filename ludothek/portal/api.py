"""The JSON API: everything the pages can do, for programs (documented by OpenAPI at ``/docs``).

Authenticate with ``Authorization: Bearer <token>`` (``POST /api/tokens`` or
the account page makes one).  A browser session cookie works too, and then a
state-changing request must send the ``X-CSRF-Token`` header.  Refusals are
JSON ``{"detail": message, "code": code}`` with a 4xx status.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ludothek import engine as eng
from ludothek.services import Site
from ludothek.services.accounts import MIN_PASSWORD, NAME_RE
from ludothek.services.play import MAX_ACTION
from ludothek.services.sessions import MAX_TOKEN_DAYS, TokenInfo
from ludothek.services.tracked import Tracked
from ludothek.storage import Conflict, GameInfo, StoreError, Unauthorized, UserInfo
from ludothek.storage.models import MAX_ID
from ludothek.storage.timecontrol import VACATION_DAYS_PER_YEAR

from . import apimodels as m
from .account import change_password_braked
from .context import (
    GameId,
    client_address,
    current_user,
    lang_of,
    limit_game_creation,
    limit_per_user_and_address,
    portal_of,
    session_of,
)
from .contract import AUTH_OPTIONAL, AUTH_REQUIRED, DEFAULT_LIMIT, WHOLE, Cursor, Limit, paginate, refusals
from .gameview import game_summary, seat_context
from .jsonbody import JSONBody
from .sessions import csrf_ok

router = APIRouter(tags=["api"])

# Most endpoints are ``async``.  On SQLite they call the store directly on the event loop: each call
# is a few short statements, and one thread doing them in turn beats a thread pool contending for
# the GIL and for SQLite's write lock.  On PostgreSQL the move path (authentication, reading a game,
# storing a move) runs in the portal's database threads (`ludothek.portal.offload`), so that no
# round trip to the database stops the loop.  Password hashing (slow on purpose) runs in the thread pool.

Lang = Annotated[Literal["de", "en"] | None, Query(description="language of texts; default: the user's")]


class CsrfError(StoreError):
    status = 403
    code = "csrf"


async def api_user(request: Request) -> UserInfo:
    """The calling user; 401 if none.  Cookie-authenticated writes must carry the CSRF header."""
    return await portal_of(request).offload(authenticated, request)


def authenticated(request: Request) -> UserInfo:
    """`api_user`'s check, where the store may be called (a database thread on PostgreSQL)."""
    user = current_user(request)
    if user is None:
        raise Unauthorized("log in or send an API token (Authorization: Bearer ...)", code_key="login_needed")
    unsafe = request.method not in ("GET", "HEAD", "OPTIONS") and not request.state.via_token
    if unsafe and not csrf_ok(session_of(request), request.headers.get("x-csrf-token")):
        raise CsrfError("missing or wrong X-CSRF-Token header", code_key="csrf")
    return user


User = Annotated[UserInfo, Depends(api_user)]
AUTH_REQUIRED.add(api_user)


async def optional_user(request: Request) -> UserInfo | None:
    return await portal_of(request).offload(current_user, request)


MaybeUser = Annotated[UserInfo | None, Depends(optional_user)]
AUTH_OPTIONAL.add(optional_user)


# ----------------------------------------------------------------------------- models
#: Input models refuse a value of another JSON type (``"1"`` for a number, ``0`` for false) with 422.
STRICT = ConfigDict(strict=True)
#: Sequence numbers and counts are bounded like the database's integers.
MAX_SEQ = MAX_ID
Seq = Annotated[int, Field(ge=0, le=MAX_SEQ), WHOLE]


class Credentials(BaseModel):
    model_config = STRICT

    name: str = Field(max_length=40)
    password: str = Field(max_length=200)
    label: str = Field(default="", max_length=80, description="a name for the token")
    expires_in_days: Annotated[int, Field(ge=1, le=MAX_TOKEN_DAYS), WHOLE] | None = Field(
        default=None, description="the token stops working after this many days"
    )


class Registration(BaseModel):
    model_config = STRICT

    name: str = Field(pattern=NAME_RE.pattern, description="3 to 20 letters, digits, '.', '_' or '-'; "
                      "not beginning with 'guest-' (kept for guests: 400)")
    password: str = Field(min_length=MIN_PASSWORD, max_length=200)
    lang: Literal["de", "en"] = "en"


class SeatSpec(BaseModel):
    model_config = STRICT

    kind: Literal["me", "open", "invite", "bot"]
    user: str | None = Field(default=None, max_length=40, description="the invited user's name (kind 'invite')")
    bot: str | None = Field(default=None, max_length=40, description="the bot's name (kind 'bot'; default 'random')")


def _known_games(schema: dict[str, Any]) -> None:
    """The schema lists the games this server offers (when the schema is made: every game is registered)."""
    schema["enum"] = list(eng.games())


class NewGame(BaseModel):
    model_config = STRICT

    game: str = Field(max_length=40, json_schema_extra=_known_games,
                      description="game id, e.g. 'machikoro' (GET /catalog lists them)")
    players: Annotated[int, Field(ge=1, le=16), WHOLE] = Field(description="number of players (the game's own range applies: 400 beyond)")
    options: dict[Annotated[str, Field(max_length=40)], str | Annotated[int, Field(ge=-MAX_ID, le=MAX_ID), WHOLE]] = Field(
        default_factory=dict, max_length=32)
    seats: list[SeatSpec] | None = Field(
        default=None, max_length=16, description="one entry per seat; default: me plus open invitations"
    )
    time_control: (Annotated[str, Field(max_length=40)]
                   | dict[Annotated[str, Field(max_length=20)], Annotated[str, Field(max_length=40)] | int | float]
                   | None) = Field(
        default=None,
        description="none (default); a fixed time per move {'kind': 'move', 'days': 1|2|3|5|7|14} or 'move:3'; "
        "a time bank {'kind': 'bank', 'start_days': 3, 'add_days': 1, 'max_days': 14} or 'bank:3+1/14'",
    )


class AbandonVote(BaseModel):
    model_config = STRICT

    agree: bool = Field(default=True, description="true: offer (creator) or agree; false: decline the offer")


class VacationIn(BaseModel):
    days: float = Field(gt=0, strict=True, le=30, description="how long, in days (at most 30 per calendar year)")
    starts: datetime | None = Field(default=None, description="when it starts (default: now)")


class Move(BaseModel):
    model_config = STRICT

    action: str = Field(min_length=1, max_length=MAX_ACTION, description="one engine action, e.g. 'roll:1' (or 'undo')")
    seq: Seq = Field(description="the sequence number of the state the move was made against")


def user_json(user: UserInfo) -> dict[str, Any]:
    return {
        "id": user.id,
        "name": user.name,
        "guest": user.is_guest,
        "lang": user.lang,
        "guest_expires_at": user.guest_expires_at.isoformat() if user.guest_expires_at else None,
    }


# ----------------------------------------------------------------------------- accounts
@router.post("/users", status_code=201, response_model=m.TokenOut, responses=refusals(409, 429),
             summary="Register and get an API token")
def register(body: Registration, request: Request) -> dict[str, Any]:
    """400 for a name or password the site does not accept, 409 when the name is taken."""
    portal = portal_of(request)
    site = portal.site
    portal.limits.hit("register", client_address(request))
    user = site.accounts.register(body.name, body.password, body.lang)
    return {"token": site.sessions.create_token(user.id, "api registration"), "user": user_json(user)}


@router.post("/guests", status_code=201, response_model=m.TokenOut, responses=refusals(429),
             summary="A 24-hour guest account")
async def guest(request: Request, lang: Lang = None) -> dict[str, Any]:
    portal = portal_of(request)
    site = portal.site

    def make_guest() -> dict[str, Any]:
        portal.limits.hit("guest", client_address(request))
        user = site.accounts.create_guest(lang or "en")
        return {"token": site.sessions.create_token(user.id, "guest"), "user": user_json(user)}

    return await portal.offload(make_guest)


@router.post("/tokens", status_code=201, response_model=m.TokenOut, responses=refusals(401, 403, 429),
             summary="Log in: a new API token")
def token(body: Credentials, request: Request) -> dict[str, Any]:
    """401 for a wrong name or password, 403 for a blocked account, 429 while the login brake holds."""
    portal = portal_of(request)
    address = client_address(request)
    portal.throttle.attempt(body.name, address)  # counted before the check: bursts cannot slip past
    user = portal.site.accounts.authenticate(body.name, body.password)
    portal.throttle.succeeded(body.name, address)
    token = portal.site.sessions.create_token(user.id, body.label, body.expires_in_days)
    return {"token": token, "user": user_json(user)}


@router.get("/me", response_model=m.UserOut, summary="Who I am")
async def me(user: User) -> dict[str, Any]:
    return user_json(user)


def token_json(t: TokenInfo) -> dict[str, Any]:
    return {
        "id": t.id,
        "label": t.label,
        "created_at": t.created_at.isoformat(),
        "last_used_at": t.last_used_at.isoformat() if t.last_used_at else None,
        "expires_at": t.expires_at.isoformat() if t.expires_at else None,
    }


@router.get("/tokens", response_model=m.TokenPage,
            summary="My API tokens, newest first (label, creation, last use, expiry; never the token itself)")
async def list_tokens(request: Request, user: User, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
                      ) -> dict[str, Any]:
    tokens = sorted(portal_of(request).site.sessions.tokens(user.id), key=lambda t: t.id, reverse=True)
    page = paginate(tokens, lambda t: (t.id,), limit, cursor, descending=True)
    return {"items": [token_json(t) for t in page["items"]], "next_cursor": page["next_cursor"]}


@router.delete("/tokens/{token_id}", status_code=204, summary="Revoke one of my API tokens at once")
async def revoke_token(
    token_id: Annotated[int, Path(ge=1, le=MAX_ID)], request: Request, user: User
) -> Response:
    portal_of(request).site.sessions.revoke_token(user.id, token_id)
    return Response(status_code=204)


class PasswordChange(BaseModel):
    model_config = STRICT

    current: str = Field(max_length=200, description="the password now")
    new: str = Field(min_length=MIN_PASSWORD, max_length=200, description="the new password")


@router.post("/password", status_code=204, responses=refusals(429),
             summary="Change my password; every other session and API token ends")
def change_password(body: PasswordChange, request: Request, user: User) -> Response:
    """400 for a new password the site does not accept, 401 for a wrong current one."""
    change_password_braked(request, user, body.current, body.new)
    return Response(status_code=204)


@router.post("/logout-everywhere", status_code=204,
             summary="End every browser session and revoke every API token of mine, this one too")
async def logout_everywhere(request: Request, user: User) -> Response:
    portal_of(request).site.sessions.end_sessions(user.id)
    return Response(status_code=204)


# ----------------------------------------------------------------------------- games
@router.get("/catalog", response_model=m.CatalogPage, summary="The games this server offers, with their options")
async def catalog(request: Request, lang: Lang = None, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
                  ) -> dict[str, Any]:
    kinds = list(enumerate(eng.games()))  # the catalogue's order: a kind's place is its key
    page = paginate(kinds, lambda k: (k[0],), limit, cursor)
    return {"items": [eng.load(gid).to_json() for _, gid in page["items"]], "next_cursor": page["next_cursor"]}


@router.get("/games", response_model=m.GamePage, responses=refusals(401),
            summary="List games, newest first: open invitations, or mine (401 for 'mine' without a login)")
async def list_games(
    request: Request,
    user: MaybeUser,
    which: Annotated[Literal["open", "mine"], Query(description="open invitations or my games")] = "open",
    lang: Lang = None,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> dict[str, Any]:
    site = portal_of(request).site
    language = lang or lang_of(request, user)
    if which == "mine":
        if user is None:
            raise Unauthorized("log in or send an API token to list your games", code_key="login_needed")
        groups = site.lobby.my_games(user.id)
        games = groups["running"] + groups["open"] + groups["finished"]
    else:
        games = site.lobby.open_games(user)
    games = sorted(games, key=lambda g: g.id, reverse=True)
    page = paginate(games, lambda g: (g.id,), limit, cursor, descending=True)
    return {"items": [game_summary(g, user, language) for g in page["items"]], "next_cursor": page["next_cursor"]}


@router.post("/games", status_code=201, response_model=m.GameOut, responses=refusals(404, 409, 429),
             summary="Create a game")
async def create_game(body: NewGame, request: Request, user: User) -> dict[str, Any]:
    """400 for a game, player count, option or seat list the game does not offer; 404 for an unknown
    game or invited user; 429 beyond the open games one may have waiting (or the creation rate)."""
    portal = portal_of(request)
    site = portal.site
    seats = [s.model_dump() for s in body.seats] if body.seats is not None else None

    def create() -> dict[str, Any]:
        limit_game_creation(request, user)
        gid = site.lobby.create_game(user, body.game, body.players, body.options, seats, time_control=body.time_control)
        return game_summary(site.games.game(gid), user, user.lang)

    # Several statements (and a round trip each on PostgreSQL): in a database thread there.
    return await portal.offload(create)


@router.get("/next", response_model=m.NextGameOut, summary="The game where it is my turn that has waited longest")
async def next_game(request: Request, user: User) -> dict[str, Any]:
    gid = portal_of(request).site.lobby.next_waiting(user.id)
    return {"game": gid}


def game_state(request: Request, game_id: int, user: UserInfo | None, lang: str, with_log: bool) -> dict[str, Any]:
    site = portal_of(request).site
    with site.play.state(game_id) as (info, tracked):
        out = game_summary(info, user, lang)
        out["clock"] = site.clocks.clock_view(info)
        if tracked is not None:
            sc = seat_context(info, tracked, info.seat_of(user.id) if user else None, lang, with_log=with_log)
            sc["legal"] = sc.pop("legal_described")
            out.update(sc)
        return out


@router.get("/games/{game_id}", response_model=m.GameStateOut,
            summary="A game as I may see it: my view, my legal actions, the log")
async def get_game(
    game_id: GameId, request: Request, user: MaybeUser, lang: Lang = None,
    log: Annotated[bool, Query(description="include the game log")] = True,
) -> JSONResponse:
    state = await portal_of(request).offload(game_state, request, game_id, user, lang or lang_of(request, user), log)
    return JSONBody(state)


GAME_REFUSALS = refusals(403, 409)


@router.post("/games/{game_id}/join", response_model=m.GameOut, responses=refusals(403, 409, 429),
             summary="Take an open seat or accept an invitation")
async def join(game_id: GameId, request: Request, user: User) -> dict[str, Any]:
    portal = portal_of(request)

    def take_seat() -> dict[str, Any]:
        return game_summary(portal.site.lobby.join(game_id, user), user, user.lang)

    return await portal.offload(take_seat)


@router.post("/games/{game_id}/leave", response_model=m.GameOut, responses=GAME_REFUSALS,
             summary="Give back my seat before the game starts")
async def leave(game_id: GameId, request: Request, user: User) -> dict[str, Any]:
    return await _change_seats(request, game_id, user, lambda site: site.lobby.leave(game_id, user))


@router.post("/games/{game_id}/cancel", response_model=m.GameOut, responses=GAME_REFUSALS,
             summary="Cancel my invitation before the game starts")
async def cancel(game_id: GameId, request: Request, user: User) -> dict[str, Any]:
    return await _change_seats(request, game_id, user, lambda site: site.lobby.cancel(game_id, user))


async def _change_seats(request: Request, game_id: int, user: UserInfo,
                        change: Callable[[Site], None]) -> dict[str, Any]:
    """Change a game's seats in the database threads (several statements: never on the event loop
    on PostgreSQL), then answer with the game as it is now."""
    portal = portal_of(request)

    def run() -> dict[str, Any]:
        change(portal.site)
        return game_summary(portal.site.games.game(game_id), user, user.lang)

    return await portal.offload(run)


MOVE_REFUSALS = refusals(403, 409, 429)


def _answer_into(answer: dict[str, Any], user: UserInfo, language: str) -> Callable[[GameInfo, Tracked], None]:
    """The store's ``after`` for a move or undo: fills ``answer`` with my new view and legal actions,
    built from the position just stored while the game is still locked (no second read)."""

    def after(info: GameInfo, tracked: Tracked) -> None:
        answer.update(game_summary(info, user, language))
        sc = seat_context(info, tracked, info.seat_of(user.id), language, with_log=False)
        sc["legal"] = sc.pop("legal_described")
        answer.update(sc)

    return after


@router.post("/games/{game_id}/actions", response_model=m.GameStateOut, responses=MOVE_REFUSALS,
             summary="Submit one action, made against sequence number seq")
async def submit(game_id: GameId, body: Move, request: Request, user: User, lang: Lang = None) -> JSONResponse:
    """Apply the move; the answer is my new view and legal actions (as GET /api/v1/games/{id} without the log).

    Refusals by the game's state or rules are 409: ``stale`` (seq is not the game's number now),
    ``not_your_turn``, ``illegal`` (the rules do not allow it), ``conflict`` (the game is not running);
    403 when I have no seat in the game; 429 beyond the move rate."""
    portal = portal_of(request)
    answer = await portal.offload(move_answer, request, game_id, body, user, lang)
    await portal.hub.flushed()  # the other processes hear of an acknowledged move, whatever happens next
    return JSONBody(answer)  # plain JSON data already: skip FastAPI's re-encoding


def move_answer(request: Request, game_id: int, body: Move, user: UserInfo, lang: str | None) -> dict[str, Any]:
    """`submit`'s work where the store may be called: count the move against the limits, store it,
    and answer with my new view."""
    answer: dict[str, Any] = {}
    after = _answer_into(answer, user, lang or user.lang)
    site = portal_of(request).site
    limit_per_user_and_address(request, user, "move")
    if body.action == eng.UNDO:
        site.play.undo_as(game_id, user.id, body.seq, after=after)
    else:
        site.play.submit_as(game_id, user.id, body.action, body.seq, after=after)
    return answer


class UndoRequest(BaseModel):
    model_config = STRICT

    seq: Seq = Field(description="the sequence number of the state the undo was asked against")


@router.post("/games/{game_id}/undo", response_model=m.GameStateOut, responses=MOVE_REFUSALS,
             summary="Take back my last action (while can_undo is true)")
async def undo(game_id: GameId, body: UndoRequest, request: Request, user: User, lang: Lang = None) -> JSONResponse:
    """Allowed while no other seat has acted and no chance outcome was drawn since my last action
    (``can_undo`` in the game's answer); otherwise 409 ``undo_refused`` and nothing changes.
    The undo is stored as an entry of its own; the answer is as for a move."""
    answer: dict[str, Any] = {}
    after = _answer_into(answer, user, lang or user.lang)

    portal = portal_of(request)

    def move() -> None:
        limit_per_user_and_address(request, user, "move")
        portal.site.play.undo_as(game_id, user.id, body.seq, after=after)

    await portal.offload(move)
    await portal.hub.flushed()
    return JSONBody(answer)


@router.get("/games/{game_id}/record", response_model=m.RecordOut, responses=refusals(409),
            summary="The game record (secrets hidden until the game is over; 409 before it starts)")
async def get_record(game_id: GameId, request: Request, user: MaybeUser) -> JSONResponse:
    site = portal_of(request).site
    info = site.games.game(game_id)
    viewer: int | str | None = "all" if info.over else info.seat_of(user.id if user else None)
    return JSONBody(site.play.record(game_id, viewer))  # the record exactly as the engine writes it


@router.get("/games/{game_id}/log", response_model=m.LogEntryPage, responses=refusals(409),
            summary="The game log as sentences in my language, oldest first (409 before the game starts)")
async def get_log(game_id: GameId, request: Request, user: MaybeUser, lang: Lang = None,
                  limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> dict[str, Any]:
    site = portal_of(request).site
    language = lang or lang_of(request, user)
    with site.play.state(game_id) as (info, tracked):
        if tracked is None:
            raise Conflict("the game has not started yet", code_key="not_started")
        lines = tracked.log_for(info.seat_of(user.id) if user else None, language)
    return paginate(lines, lambda line: (line["n"],), limit, cursor)


# ----------------------------------------------------------------------------- leaving and absences
@router.post("/games/{game_id}/resign", response_model=m.GameOut, responses=GAME_REFUSALS,
             summary="Resign: a bot plays on for my seat, and I am placed last")
def resign(game_id: GameId, request: Request, user: User) -> dict[str, Any]:
    info = portal_of(request).site.clocks.resign(game_id, user)
    return game_summary(info, user, user.lang)


@router.post("/games/{game_id}/abandon", response_model=m.GameOut, responses=GAME_REFUSALS,
             summary="Offer (creator), agree to or decline abandoning a game")
def abandon(game_id: GameId, body: AbandonVote, request: Request, user: User) -> dict[str, Any]:
    info = portal_of(request).site.clocks.vote_abandon(game_id, user, body.agree)
    return game_summary(info, user, user.lang)


def vacation_json(request: Request, user: UserInfo) -> dict[str, Any]:
    site = portal_of(request).site
    year = datetime.now(UTC).year
    used = site.clocks.vacation_days_used(user.id, year)
    return {
        "year": year, "used_days": round(used, 2), "left_days": round(max(0.0, VACATION_DAYS_PER_YEAR - used), 2),
        "absences": [{"starts": s.isoformat(), "ends": e.isoformat()} for s, e in site.clocks.vacations(user.id)],
    }


@router.get("/vacation", response_model=m.VacationOut,
            summary="My vacations this year: days used and left, current and coming absences")
def get_vacation(request: Request, user: User) -> dict[str, Any]:
    return vacation_json(request, user)


@router.post("/vacation", status_code=201, response_model=m.VacationOut, responses=refusals(409),
             summary="Declare an absence: my clocks pause while it lasts")
def post_vacation(body: VacationIn, request: Request, user: User) -> dict[str, Any]:
    portal_of(request).site.clocks.declare_vacation(user, body.days, body.starts)
    return vacation_json(request, user)
