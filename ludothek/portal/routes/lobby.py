"""The lobby: the home page, the next game waiting for me, new games, open and my games, joining, leaving, cancelling."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.services import Site
from ludothek.services.lobby import DEFAULT_FORM_BOT
from ludothek.storage import BadRequest, StoreError, Unauthorized, UserInfo
from ludothek.texts import pick as pick_text
from ludothek.texts import t

from .. import apimodels as m
from ..apibodies import NewGame
from ..contract import DEFAULT_LIMIT, GAME_REFUSALS, Cursor, Limit, paginate, refusals
from ..deps import (
    CsrfField,
    GameId,
    Lang,
    MaybeUser,
    User,
    check_csrf,
    current_user,
    lang_of,
    limit_game_creation,
    need_user,
    portal_of,
)
from ..gameview import game_summary
from ..jsonroute import BoundedRoute
from ..render import message_of, redirect, render

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["api"])


# ----------------------------------------------------------------------------- pages
@pages.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    user = current_user(request)
    site = portal_of(request).site
    lang = lang_of(request, user)
    open_games = [game_summary(g, user, lang) for g in site.lobby.open_games(user)]
    mine = None
    if user is not None:
        groups = site.lobby.my_games(user.id)
        mine = {k: [game_summary(g, user, lang) for g in v] for k, v in groups.items()}
    return render(request, "home.html", user, open_games=open_games, mine=mine,
                  catalog=[eng.load(g) for g in eng.games()])


@pages.get("/next", name="next_game")
def next_game_page(request: Request) -> Response:
    user = need_user(request)
    gid = portal_of(request).site.lobby.next_waiting(user.id)
    return redirect(request, f"/games/{gid}" if gid is not None else "/?waiting=none")


@pages.get("/new", response_class=HTMLResponse)
def new_game_form(request: Request, game: str | None = None) -> Response:
    """The new-game form; ``?invite=name`` (repeatable, e.g. from the friend list) fills in invitations."""
    user = need_user(request)
    ids = eng.games()
    chosen = eng.load(game if game in ids else ids[0]) if ids else None
    # The usual game for several people, never a solo game nobody asked for (issue 29).
    values: dict[str, str] = {"players": str(chosen.usual_players())} if chosen is not None else {}
    invites = [n[:40] for n in request.query_params.getlist("invite") if n.strip()]
    if chosen is not None and invites:
        invites = list(dict.fromkeys(invites))[: chosen.max_players - 1]
        values["players"] = str(max(chosen.usual_players(), len(invites) + 1))
        for i, name in enumerate(invites, start=1):
            values[f"seat{i}"], values[f"seat{i}_name"] = "invite", name
    return render(request, "new_game.html", user, games=[eng.load(g) for g in ids], chosen=chosen, values=values,
                  friends=portal_of(request).site.social.friend_names(user.id))


@pages.post("/new", name="create_game")
async def create_game_form(request: Request) -> Response:
    form = await request.form()
    check_csrf(request, str(form.get("csrf") or ""))
    return await _run_sync(request, _create_game, {k: str(v) for k, v in form.multi_items()})


async def _run_sync(request: Request, fn: Any, *args: Any) -> Response:
    from starlette.concurrency import run_in_threadpool

    result: Response = await run_in_threadpool(fn, request, *args)
    return result


def _create_game(request: Request, form: dict[str, str]) -> Response:
    """Create a game from the form.

    Only the seats 2..N of the chosen number of players N are read: the form
    has a row for every seat the game could have, and without JavaScript the
    rows beyond N are still submitted, so they must be ignored here.
    """
    user = need_user(request)
    site = portal_of(request).site
    game_id = form.get("game", "")
    try:
        game = eng.load(game_id)
    except KeyError:
        raise BadRequest(f"unknown game {game_id!r}") from None

    def refuse(message: str, status: int = 400) -> Response:
        return render(request, "new_game.html", user, status=status, games=[eng.load(g) for g in eng.games()],
                      chosen=game, error=message, values=form, friends=site.social.friend_names(user.id))

    try:
        players = int(form.get("players", ""))
    except ValueError:
        players = 0
    if not game.min_players <= players <= game.max_players:
        return refuse(t("err_players_range", user.lang, game=pick_text(game.title, user.lang),
                        low=game.min_players, high=game.max_players))
    options = {o.name: form[f"opt_{o.name}"] for o in game.options if f"opt_{o.name}" in form}
    seats: list[dict[str, Any]] = [{"kind": "me"}]
    for i in range(1, players):
        kind = form.get(f"seat{i}", "open")
        name = form.get(f"seat{i}_name", "").strip()
        if kind == "invite" and not name:
            return refuse(t("err_invite_name", user.lang, n=i + 1))
        if kind == "invite" and site.accounts.user_by_name(name) is None:
            return refuse(t("err_no_user_named", user.lang, n=i + 1, name=name), 404)
        if kind == "bot":
            # The store refuses a strength it does not offer, with the form kept.
            seats.append({"kind": "bot", "bot": form.get(f"seat{i}_bot") or DEFAULT_FORM_BOT})
            continue
        seats.append({"kind": kind, "user": name or None})
    try:
        limit_game_creation(request, user)
        gid = site.lobby.create_game(user, game.id, players, options, seats,
                                time_control=form.get("time_control") or None)
    except StoreError as exc:
        return refuse(message_of(exc, user.lang), exc.status)
    return redirect(request, f"/games/{gid}")


@pages.post("/games/{game_id}/join", name="join")
def join_form(request: Request, game_id: GameId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.lobby.join(game_id, need_user(request))
    return redirect(request, f"/games/{game_id}")


@pages.post("/games/{game_id}/leave", name="leave")
def leave_form(request: Request, game_id: GameId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.lobby.leave(game_id, need_user(request))
    return redirect(request, "/")


@pages.post("/games/{game_id}/cancel", name="cancel")
def cancel_form(request: Request, game_id: GameId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.lobby.cancel(game_id, need_user(request))
    return redirect(request, "/")


# ----------------------------------------------------------------------------- JSON API
@api.get("/catalog", response_model=m.CatalogPage, summary="The games this server offers, with their options")
async def catalog(request: Request, lang: Lang = None, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
                  ) -> dict[str, Any]:
    kinds = list(enumerate(eng.games()))  # the catalogue's order: a kind's place is its key
    page = paginate(kinds, lambda k: (k[0],), limit, cursor)
    return {"items": [eng.load(gid).to_json() for _, gid in page["items"]], "next_cursor": page["next_cursor"]}


@api.get("/games", response_model=m.GamePage, responses=refusals(401),
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


@api.post("/games", status_code=201, response_model=m.GameOut, responses=refusals(404, 409, 429),
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


@api.get("/next", response_model=m.NextGameOut, summary="The game where it is my turn that has waited longest")
async def next_game(request: Request, user: User) -> dict[str, Any]:
    gid = portal_of(request).site.lobby.next_waiting(user.id)
    return {"game": gid}


@api.post("/games/{game_id}/join", response_model=m.GameOut, responses=refusals(403, 409, 429),
          summary="Take an open seat or accept an invitation")
async def join(game_id: GameId, request: Request, user: User) -> dict[str, Any]:
    portal = portal_of(request)

    def take_seat() -> dict[str, Any]:
        return game_summary(portal.site.lobby.join(game_id, user), user, user.lang)

    return await portal.offload(take_seat)


@api.post("/games/{game_id}/leave", response_model=m.GameOut, responses=GAME_REFUSALS,
          summary="Give back my seat before the game starts")
async def leave(game_id: GameId, request: Request, user: User) -> dict[str, Any]:
    return await _change_seats(request, game_id, user, lambda site: site.lobby.leave(game_id, user))


@api.post("/games/{game_id}/cancel", response_model=m.GameOut, responses=GAME_REFUSALS,
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
