"""Tournaments (issue 31): the list, one page per tournament, the create form, entering and leaving,
the organiser's actions, and the same through the JSON API.

Every route only records or reads: rounds start in the round job (`ludothek.workers.tournaments`),
never here.  Database work runs in the portal's database threads (``portal.offload``) for the API
and in the thread pool for the (synchronous) page routes.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.services.tournaments.formats import KNOWN_FORMATS, pairing_of
from ludothek.services.tournaments.service import MAX_ENTRANTS, MAX_NAME, MAX_ROUNDS, TournamentInfo
from ludothek.storage import Conflict, Forbidden, StoreError, UserInfo
from ludothek.storage.models import MAX_ID
from ludothek.texts import t, tn

from ..contract import DEFAULT_LIMIT, WHOLE, Cursor, Limit, paginate, refusals
from ..deps import CsrfField, MaybeUser, User, check_csrf, current_user, lang_of, need_user, portal_of
from ..jsonroute import BoundedRoute
from ..render import message_of, reader_timezone, redirect, render

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["api"])

TournamentId = Annotated[int, Path(ge=1, le=MAX_ID, description="the tournament's id")]
#: Which tournaments a list shows: the page's three sections.
GROUPS: dict[str, tuple[str, ...]] = {"open": ("open",), "running": ("running", "paused"),
                                      "finished": ("finished", "cancelled")}


# ----------------------------------------------------------------------------- bodies and answers
class NewTournament(BaseModel):
    """A tournament to create; every field is checked by the service, which names what is wrong (400)."""

    model_config = ConfigDict(strict=True)

    name: str = Field(max_length=MAX_NAME)
    game: str = Field(max_length=40)
    options: dict[str, Annotated[str, Field(max_length=40)]] = Field(default_factory=dict, max_length=20)
    table_size: Annotated[int, Field(ge=2, le=5), WHOLE] = 2
    format: Literal["swiss", "round_robin", "knockout"] = "swiss"
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS, description="swiss only: round_robin and knockout play the "
                                 "rounds their field needs, fixed at the start"), WHOLE] = 3
    time_control: Annotated[str, Field(max_length=40)] = Field(
        description="required: move:D (days per move) or bank:S+A/M (a time bank), as for games")
    min_entrants: Annotated[int, Field(ge=2, le=MAX_ENTRANTS), WHOLE] | None = None
    max_entrants: Annotated[int, Field(ge=2, le=MAX_ENTRANTS), WHOLE] = 16
    min_rating: Annotated[float, Field(ge=-1000, le=1000)] | None = None
    invite_only: bool = False
    invite: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=MAX_ENTRANTS)
    start_rule: Literal["time", "full"] = "time"
    starts_at: Annotated[str, Field(max_length=40)] | None = Field(default=None, description="ISO time (rule time)")
    entry_opens: Annotated[str, Field(max_length=40)] | None = None
    entry_closes: Annotated[str, Field(max_length=40)] | None = None
    round_days: Annotated[float, Field(ge=0.01, le=60)] | None = Field(
        default=None, description="a fixed schedule: days between round starts (null: each round when the last ended)")


class RemoveBody(BaseModel):
    model_config = ConfigDict(strict=True)

    name: str = Field(max_length=40, description="the entrant's user name")


class TimeControlOut(BaseModel):
    """The time control every game of the tournament gets: ``move`` (days per move) or ``bank``."""

    kind: Literal["move", "bank"]
    days: int | None = None
    start_days: float | None = None
    add_days: float | None = None
    max_days: float | None = None


class TournamentOut(BaseModel):
    id: int
    name: str
    game: str
    options: dict[str, str]
    table_size: int
    format: str
    rounds: int
    time_control: TimeControlOut
    entry_opens: str | None
    entry_closes: str | None
    min_entrants: int
    max_entrants: int
    min_rating: float | None
    invite_only: bool
    start_rule: str
    starts_at: str | None
    round_days: float | None
    organiser: str | None
    state: str
    current_round: int
    entrants: int
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    me: str | None = Field(default=None, description="my part: invited, entered, withdrawn, removed or null")


class TournamentList(BaseModel):
    items: list[TournamentOut]
    next_cursor: str | None


class StandingOut(BaseModel):
    rank: int
    name: str
    points: float
    tiebreaks: dict[str, float]
    games: int
    byes: int
    withdrawn: bool


class StandingsOut(BaseModel):
    tournament: int
    items: list[StandingOut]


class SeatOut(BaseModel):
    seat: int
    name: str
    place: int | None


class TableOut(BaseModel):
    table: int
    game_id: int
    status: str
    seats: list[SeatOut]


class RoundOut(BaseModel):
    round: int
    started_at: str
    ended_at: str | None
    tables: list[TableOut]
    byes: list[str]


class PairingsOut(BaseModel):
    tournament: int
    rounds: list[RoundOut]


def _clock_label(clock: dict[str, Any], lang: str) -> str:
    """A time control as the new-game form words it."""
    if clock.get("kind") == "move":
        return tn("tc_move", int(clock.get("days", 0)), lang)
    def days(key: str) -> str:
        value = float(clock.get(key, 0))
        return str(int(value)) if value.is_integer() else str(value)

    return t("tc_bank", lang, start=days("start_days"), add=days("add_days"), most=days("max_days"))


def _render(request: Request, template: str, user: UserInfo | None, status: int = 200, **ctx: Any) -> Response:
    """`render` with what the tournament templates need besides: game titles and time controls in words."""
    lang = lang_of(request, user)
    return render(request, template, user, status=status, game_title=lambda kind: eng.load(kind).title,
                  clock_label=lambda clock: _clock_label(clock, lang), **ctx)


def _out(info: TournamentInfo, me: str | None) -> dict[str, Any]:
    return {**info.as_json(), "me": me}


# ----------------------------------------------------------------------------- JSON API
@api.get("/tournaments", response_model=TournamentList, summary="Tournaments, newest first: open, running or finished")
async def list_tournaments(
    request: Request,
    which: Annotated[Literal["open", "running", "finished"], Query(description="which group")] = "open",
    game: Annotated[str | None, Query(max_length=40, description="only of this game")] = None,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> dict[str, Any]:
    portal = portal_of(request)
    infos = await portal.offload(lambda: portal.site.tournaments.listing(GROUPS[which], limit=500, game=game))
    page = paginate(infos, lambda i: (i.id,), limit, cursor, descending=True)
    return {"items": [_out(i, None) for i in page["items"]], "next_cursor": page["next_cursor"]}


@api.post("/tournaments", status_code=201, response_model=TournamentOut, responses=refusals(404),
          summary="Create a tournament (I am its organiser)")
async def create_tournament(body: NewTournament, request: Request, user: User) -> dict[str, Any]:
    """400 names the field that is wrong (a time control is required); 404 for an unknown game or invitee."""
    portal = portal_of(request)
    spec = body.model_dump(exclude_none=True)

    def create() -> dict[str, Any]:
        tid = portal.site.tournaments.create(user, spec)
        return _out(portal.site.tournaments.get(tid), None)

    return await portal.offload(create)


@api.get("/tournaments/{tournament_id}", response_model=TournamentOut, summary="One tournament")
async def get_tournament(tournament_id: TournamentId, request: Request, user: MaybeUser) -> dict[str, Any]:
    portal = portal_of(request)

    def read() -> dict[str, Any]:
        tours = portal.site.tournaments
        info = tours.get(tournament_id)
        return _out(info, tours.status_of(tournament_id, user.id) if user is not None else None)

    return await portal.offload(read)


def _action(name: str, summary: str) -> None:
    """``POST /tournaments/{id}/<name>``: a change by the caller, answered with the tournament as it is now."""

    async def act(tournament_id: TournamentId, request: Request, user: User) -> dict[str, Any]:
        portal = portal_of(request)

        def run() -> dict[str, Any]:
            tours = portal.site.tournaments
            getattr(tours, name)(tournament_id, user)
            return _out(tours.get(tournament_id), tours.status_of(tournament_id, user.id))

        return await portal.offload(run)

    act.__name__ = f"tournament_{name}"
    api.post(f"/tournaments/{{tournament_id}}/{name}", response_model=TournamentOut, responses=refusals(409),
             summary=summary, name=f"tournament_{name}_api")(act)


_action("enter", "Enter a tournament (while entry is open; 403 invitation only, rating too low; 409 full or closed)")
_action("withdraw", "Leave a tournament: once it runs, my remaining games are forfeited and a bot plays on in my "
                    "running games")
_action("pause", "Organiser: start no new round until resumed")
_action("resume", "Organiser: let rounds start again")
_action("cancel", "Organiser: call the tournament off (running games finish as ordinary games)")


@api.post("/tournaments/{tournament_id}/remove", response_model=TournamentOut, responses=refusals(409),
          summary="Organiser: take an entrant out (as a withdrawal; they cannot enter again)")
async def remove_entrant(tournament_id: TournamentId, body: RemoveBody, request: Request, user: User) -> dict[str, Any]:
    portal = portal_of(request)

    def run() -> dict[str, Any]:
        tours = portal.site.tournaments
        tours.remove(tournament_id, user, body.name)
        return _out(tours.get(tournament_id), tours.status_of(tournament_id, user.id))

    return await portal.offload(run)


@api.get("/tournaments/{tournament_id}/standings", response_model=StandingsOut,
         summary="The standings, best first, with the tie-breaks")
async def standings(tournament_id: TournamentId, request: Request) -> dict[str, Any]:
    portal = portal_of(request)
    rows = await portal.offload(lambda: portal.site.tournaments.standings(tournament_id))
    return {"tournament": tournament_id, "items": rows}


@api.get("/tournaments/{tournament_id}/pairings", response_model=PairingsOut,
         summary="Every round so far: its tables in seat order (seat 0 moves first), games, places and byes")
async def pairings(tournament_id: TournamentId, request: Request) -> dict[str, Any]:
    portal = portal_of(request)
    rounds = await portal.offload(lambda: portal.site.tournaments.pairings(tournament_id))
    return {"tournament": tournament_id, "rounds": rounds}


# ----------------------------------------------------------------------------- pages
@pages.get("/tournaments", response_class=HTMLResponse, name="tournaments")
def list_page(request: Request) -> Response:
    user = current_user(request)
    tours = portal_of(request).site.tournaments
    groups = {name: tours.listing(states, limit=50) for name, states in GROUPS.items()}
    return _render(request, "tournaments.html", user, groups=groups)


@pages.get("/tournaments/new", response_class=HTMLResponse, name="new_tournament")
def new_page(request: Request, game: str | None = None) -> Response:
    user = need_user(request)
    return _render(request, "tournament_new.html", user, **_form_context(request, user, game, {}))


def _form_context(request: Request, user: UserInfo, game: str | None, values: dict[str, str]) -> dict[str, Any]:
    ids = eng.games()
    chosen = eng.load(game if game in ids else ids[0])
    zone = ZoneInfo(reader_timezone(request, user))
    start = (datetime.now(zone) + timedelta(days=2)).replace(minute=0, second=0, microsecond=0)
    defaults = {"game": chosen.id, "table_size": str(max(2, chosen.min_players)), "rounds": "3",
                "time_control": "move:3", "max_entrants": "16", "start_rule": "time",
                "starts_at": start.strftime("%Y-%m-%dT%H:%M")}
    return {"games": [eng.load(g) for g in ids], "chosen": chosen, "values": {**defaults, **values},
            "formats": [f for f in KNOWN_FORMATS if pairing_of(f) is not None]}


@pages.post("/tournaments/new", name="create_tournament_form")
async def create_form(request: Request) -> Response:
    form = await request.form()
    check_csrf(request, str(form.get("csrf") or ""))
    values = {k: str(v) for k, v in form.multi_items()}
    from starlette.concurrency import run_in_threadpool

    result: Response = await run_in_threadpool(_create_from_form, request, values)
    return result


def _local_time(request: Request, user: UserInfo, value: str) -> str:
    """A form's ``datetime-local`` (no zone) in the reader's time zone, as an ISO time; the service
    refuses what does not parse."""
    try:
        naive = datetime.fromisoformat(value)
    except ValueError:
        return value
    if naive.tzinfo is None:
        naive = naive.replace(tzinfo=ZoneInfo(reader_timezone(request, user)))
    return naive.astimezone(UTC).isoformat()


def _create_from_form(request: Request, values: dict[str, str]) -> Response:
    user = need_user(request)
    site = portal_of(request).site
    spec: dict[str, Any] = {
        "name": values.get("name", ""), "game": values.get("game", ""), "format": values.get("format") or "swiss",
        "table_size": values.get("table_size", ""), "rounds": values.get("rounds", ""),
        "time_control": values.get("time_control", ""), "max_entrants": values.get("max_entrants", ""),
        "start_rule": values.get("start_rule") or "time", "invite_only": values.get("invite_only") == "on",
    }
    if values.get("min_entrants"):
        spec["min_entrants"] = values["min_entrants"]
    game = eng.load(values["game"]) if values.get("game") in eng.games() else None
    if game is not None:
        spec["options"] = {o.name: values[f"opt_{o.name}"] for o in game.options if f"opt_{o.name}" in values}
    if spec["start_rule"] == "time":
        spec["starts_at"] = _local_time(request, user, values.get("starts_at", ""))
    try:
        if values.get("min_rating"):
            spec["min_rating"] = float(values["min_rating"])
        if values.get("round_days"):
            spec["round_days"] = float(values["round_days"])
    except ValueError:
        spec["min_rating"] = spec["round_days"] = "?"  # the service names the field
    invite = [n.strip() for n in values.get("invite", "").replace(",", " ").split() if n.strip()]
    if invite:
        spec["invite"] = invite
    try:
        tid = site.tournaments.create(user, spec)
    except StoreError as exc:
        return _render(request, "tournament_new.html", user, status=exc.status, error=message_of(exc, user.lang),
                      **_form_context(request, user, values.get("game"), values))
    return redirect(request, f"/tournaments/{tid}")


@pages.get("/tournaments/{tournament_id}", response_class=HTMLResponse, name="tournament")
def tournament_page(request: Request, tournament_id: TournamentId) -> Response:
    user = current_user(request)
    tours = portal_of(request).site.tournaments
    info = tours.get(tournament_id)
    return _render(request, "tournament.html", user, tour=info, standings=tours.standings(tournament_id),
                  rounds=tours.pairings(tournament_id), entrants=tours.entrants(tournament_id),
                  me=tours.status_of(tournament_id, user.id) if user is not None else None,
                  organiser=user is not None and user.id == info.organiser_id)


def _form_action(name: str) -> None:
    def act(request: Request, tournament_id: TournamentId, csrf: CsrfField) -> Response:
        check_csrf(request, csrf)
        user: UserInfo = need_user(request)
        getattr(portal_of(request).site.tournaments, name)(tournament_id, user)
        return redirect(request, f"/tournaments/{tournament_id}")

    act.__name__ = f"tournament_{name}_form"
    pages.post(f"/tournaments/{{tournament_id}}/{name}", name=f"tournament_{name}")(act)


for _name in ("enter", "withdraw", "pause", "resume"):
    _form_action(_name)


@pages.post("/tournaments/{tournament_id}/cancel", name="tournament_cancel")
def cancel_form(request: Request, tournament_id: TournamentId, csrf: CsrfField,
                confirm: Annotated[str, Form()] = "") -> Response:
    """Calling off in two steps, as resigning: without ``confirm=yes`` the answer is the question and
    nothing changes (only the organiser is asked); the page's script asks the same in a dialog."""
    check_csrf(request, csrf)
    user: UserInfo = need_user(request)
    tours = portal_of(request).site.tournaments
    if confirm != "yes":
        info = tours.get(tournament_id)
        if info.organiser_id != user.id:
            raise Forbidden("only the organiser can do that", code_key="tournament_not_organiser")
        if info.state not in ("open", "running", "paused"):
            raise Conflict(f"this tournament is {info.state}", code_key="tournament_state", state=info.state)
        return _render(request, "tournament_cancel_confirm.html", user, tour=info)
    tours.cancel(tournament_id, user)
    return redirect(request, f"/tournaments/{tournament_id}")


@pages.post("/tournaments/{tournament_id}/remove", name="tournament_remove")
async def remove_form(request: Request, tournament_id: TournamentId) -> Response:
    form = await request.form()
    check_csrf(request, str(form.get("csrf") or ""))
    name = str(form.get("name") or "")
    from starlette.concurrency import run_in_threadpool

    def run() -> Response:
        portal_of(request).site.tournaments.remove(tournament_id, need_user(request), name)
        return redirect(request, f"/tournaments/{tournament_id}")

    result: Response = await run_in_threadpool(run)
    return result
