"""Playing: the game page and its board, the form's move (``act``), and in the API a game's state,
moves, undo, the record and the log.

`hotpath` serves the two requests of every API move with this module's `game_state` and `move_answer`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.services.tracked import Tracked
from ludothek.storage import BadRequest, Conflict, GameInfo, StoreError, UserInfo
from ludothek.texts import t
from ludothek.texts.dates import local_when

from .. import apimodels as m
from ..apibodies import ConfirmRequest, Move, UndoRequest
from ..boards import _board_template, _has_static, board_helpers, game_data
from ..chat_panel import chat_context
from ..contract import DEFAULT_LIMIT, Cursor, Limit, paginate, refusals
from ..deps import (
    CsrfField,
    GameId,
    Lang,
    LoginNeeded,
    MaybeUser,
    User,
    check_csrf,
    current_user,
    lang_of,
    limit_per_user_and_address,
    need_user,
    portal_of,
)
from ..gameview import breakdown_table, deciding_part, game_summary, log_lines, seat_context
from ..jsonbody import JSONBody
from ..jsonroute import BoundedRoute
from ..pickers import board_pickers
from ..render import duration_text, message_of, reader_timezone, redirect, render

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
#: What the game page's "Confirm turn" button sends as its action (no game has an action with a "!").
CONFIRM_TURN = "!confirm"
api = APIRouter(route_class=BoundedRoute, tags=["api"])


# ----------------------------------------------------------------------------- the game page
def clock_by_seat(view: dict[str, Any] | None, lang: str,
                  timezone: Callable[[], str] = lambda: "UTC") -> dict[int, dict[str, str]]:
    """Each seat's clock line for the board: time left, why it stands still (until when, in the reader's
    time zone, asked for only when someone is away), or who plays on."""
    out: dict[int, dict[str, str]] = {}
    for s in (view or {}).get("seats", []):
        line: dict[str, str] = {}
        if s["remaining_seconds"] is not None:
            line["left"] = t("clock_left", lang, time=duration_text(s["remaining_seconds"], lang))
        if s["away_until"]:
            away = datetime.fromisoformat(s["away_until"])
            line["away"] = t("away_until", lang, when=local_when(away, lang, timezone()))
        if s["left"]:
            line["gone"] = t(f"left_{s['left']}", lang)
        out[s["seat"]] = line
    return out


def game_fragment(request: Request, game_id: int, user: UserInfo | None, error: str | None = None,
                  status: int = 200, full: bool = False) -> Response:
    """The game page, or only its ``#game`` part (htmx swaps and live updates)."""
    portal = portal_of(request)
    lang = lang_of(request, user)
    with portal.site.play.state(game_id) as (info, tracked):
        game = eng.load(info.game)
        chat = chat_context(request, info, user) if full else {}
        summary = game_summary(info, user, lang)
        ctx: dict[str, Any] = {
            "info": info, "summary": summary, "game": game, "error": error,
            "players": info.seat_names(), "options": info.options,
            "board_template": _board_template(portal.templates, game.id),
            "board_js": f"boards/{game.id}.js" if _has_static(f"boards/{game.id}.js") else None,
            "board_css": f"boards/{game.id}.css" if _has_static(f"boards/{game.id}.css") else None,
            "clock": clock_by_seat(portal.site.clocks.clock_view(info), lang, lambda: reader_timezone(request, user)),
            "abandon_offered": any(s.abandon_vote and s.user_id == info.creator_id for s in info.seats),
            "my_abandon_vote": any(s.abandon_vote and user is not None and s.user_id == user.id for s in info.seats),
            **chat,
        }
        if full:  # the whole page only: a tournament game links back to its tournament
            ctx["tournament"] = portal.site.tournaments.table_of_game(game_id)
        if tracked is not None:
            seat = info.seat_of(user.id) if user else None
            sc = seat_context(info, tracked, seat, lang)
            ctx.update(sc)
            names = ctx["players"]
            ctx["log"] = log_lines(sc["log"] or [], names, lang)
            ctx["breakdown"] = breakdown_table(sc["view"].get("breakdown"), lang)
            ctx["decided"] = deciding_part(sc["view"].get("breakdown"), lang)
            state = tracked.state
            ctx.update(board_helpers(sc["legal"], lambda a: state.describe(a, lang, names)))
            ctx["pickers"] = board_pickers(game.id, state, sc["legal"], lang, ctx["describe"])
            ctx["decisions"] = state.decisions()  # "Move N" counts players' decisions, not chance steps
            ctx["game_data"] = lambda name: game_data(game.id, name)
            return render(request, "game.html" if full else "_game.html", user, status=status, **ctx)
    return render(request, "game.html" if full else "_game.html", user, status=status, **ctx)


@pages.get("/games/{game_id}", response_class=HTMLResponse)
def game_page(request: Request, game_id: GameId) -> Response:
    return game_fragment(request, game_id, current_user(request), full=True)


@pages.get("/games/{game_id}/board", response_class=HTMLResponse)
def game_board(request: Request, game_id: GameId) -> Response:
    return game_fragment(request, game_id, current_user(request))


@pages.post("/games/{game_id}/act", response_class=HTMLResponse)
def act(request: Request, game_id: GameId, csrf: CsrfField, action: Annotated[str, Form()],
        seq: Annotated[str, Form()]) -> Response:
    """One click = one engine action.  A refusal re-renders the board with the reason."""
    check_csrf(request, csrf)
    user = need_user(request)
    site = portal_of(request).site
    try:
        info = site.games.game(game_id)
        seat = info.seat_of(user.id)
        if seat is None:
            raise LoginNeeded("you do not play in this game", code_key="not_seated")
        try:
            seq_no = int(seq)
        except ValueError:
            raise BadRequest("seq must be a whole number") from None
        limit_per_user_and_address(request, user, "move")
        if action == eng.UNDO:
            site.play.undo(game_id, seat, seq_no)
        elif action == CONFIRM_TURN:
            site.play.confirm(game_id, seat, seq_no)
        else:
            site.play.submit(game_id, action, seq_no, seat=seat)
        portal_of(request).hub.wait_flushed()  # its live update is out before the answer (see live/hub.py)
    except StoreError as exc:
        refused = game_fragment(request, game_id, user, error=message_of(exc, user.lang), status=exc.status)
        if exc.status == 429:
            refused.headers["Retry-After"] = str(exc.params["seconds"])
        return refused
    if not request.headers.get("hx-request"):
        return redirect(request, f"/games/{game_id}")
    return game_fragment(request, game_id, user)


# ----------------------------------------------------------------------------- JSON API
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


@api.get("/games/{game_id}", response_model=m.GameStateOut,
         summary="A game as I may see it: my view, my legal actions, the log")
async def get_game(
    game_id: GameId, request: Request, user: MaybeUser, lang: Lang = None,
    log: Annotated[bool, Query(description="include the game log")] = True,
) -> JSONResponse:
    state = await portal_of(request).offload(game_state, request, game_id, user, lang or lang_of(request, user), log)
    return JSONBody(state)


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


@api.post("/games/{game_id}/actions", response_model=m.GameStateOut, responses=MOVE_REFUSALS,
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


@api.post("/games/{game_id}/undo", response_model=m.GameStateOut, responses=MOVE_REFUSALS,
          summary="Take back my last action (while can_undo is true)")
async def undo(game_id: GameId, body: UndoRequest, request: Request, user: User, lang: Lang = None) -> JSONResponse:
    """Allowed while no other seat has acted and no chance outcome was drawn since my last action, and my
    turn has not been handed on (``can_undo`` in the game's answer); otherwise 409 ``undo_refused`` and
    nothing changes.
    The undo is stored as an entry of its own; the answer is as for a move."""
    play = portal_of(request).site.play
    return await _stored_and_answered(request, user, lang,
                                      lambda after: play.undo_as(game_id, user.id, body.seq, after=after))


async def _stored_and_answered(request: Request, user: UserInfo, lang: str | None,
                               store: Callable[[Callable[[GameInfo, Tracked], None]], object]) -> JSONResponse:
    """An undo or a confirmation: counted against the move limits, stored by ``store(after)`` off the
    event loop, heard by the other processes, and answered with my new view (as a move is)."""
    answer: dict[str, Any] = {}
    after = _answer_into(answer, user, lang or user.lang)
    portal = portal_of(request)

    def move() -> None:
        limit_per_user_and_address(request, user, "move")
        store(after)

    await portal.offload(move)
    await portal.hub.flushed()
    return JSONBody(answer)


@api.post("/games/{game_id}/confirm", response_model=m.GameStateOut, responses=MOVE_REFUSALS,
          summary="Confirm my turn: hand it on now (while can_confirm is true)")
async def confirm(game_id: GameId, body: ConfirmRequest, request: Request, user: User,
                  lang: Lang = None) -> JSONResponse:
    """After my turn ends it waits for my confirmation (``handover`` in the game's answer) until the grace
    period I chose runs out; meanwhile I may still undo, and nobody else may move.  This hands it on at
    once: the next turn's chance steps are drawn and the next seat may move.  409 ``nothing_to_confirm``
    when no turn of mine waits (it was handed on already), ``stale`` when ``seq`` is not current."""
    play = portal_of(request).site.play
    return await _stored_and_answered(request, user, lang,
                                      lambda after: play.confirm_as(game_id, user.id, body.seq, after=after))


@api.get("/games/{game_id}/record", response_model=m.RecordOut, responses=refusals(409),
         summary="The game record (secrets hidden until the game is over; 409 before it starts)")
async def get_record(game_id: GameId, request: Request, user: MaybeUser) -> JSONResponse:
    site = portal_of(request).site
    info = site.games.game(game_id)
    viewer: int | str | None = "all" if info.over else info.seat_of(user.id if user else None)
    return JSONBody(site.play.record(game_id, viewer))  # the record exactly as the engine writes it


@api.get("/games/{game_id}/log", response_model=m.LogEntryPage, responses=refusals(409),
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
