"""Community: the whole log, replays (stored games and imported records), profiles, ratings and
leaderboards (issue 12), as pages and in the JSON API.

A replay step is drawn by the game's own board partial (``boards/<game>.html``) from the chosen
seat's view, with no legal actions: the board shows the position and nothing can be played from it.
The replay page works without JavaScript (links and a form); ``static/replay.js`` adds the slider,
stepping without reloading the page, and playing back at a chosen speed.

Every API endpoint declares its response model, so the OpenAPI schema (``/docs``) documents it; refusals
are ``{"detail", "code"}`` with a 4xx status like everywhere in the API.  Free text (a profile's
"about me", player names) is handed out as stored: JSON carries it as data, never as markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Form, Path, Query, Request, UploadFile
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.services.community.history import ReplayBook, replay_seats
from ludothek.services.community.profiles import ABOUT_MAX, LANGUAGE_CODES, MAX_LANGUAGES
from ludothek.services.community.ratings import RatingInfo
from ludothek.storage import BadRequest, Forbidden, GameInfo, NotFound, StoreError, UserInfo
from ludothek.storage.models import MAX_ID
from ludothek.storage.rating_update import LEADERBOARD_MIN_GAMES
from ludothek.texts import pick, t

from ..apimodels import RecordOut, SeatResultOut
from ..boards import _board_template, _has_static, board_helpers, game_data
from ..charts import rating_chart
from ..contract import WHOLE, refusals
from ..deps import (
    CsrfField,
    GameId,
    Lang,
    MaybeUser,
    User,
    check_csrf,
    client_address,
    current_user,
    lang_of,
    need_user,
    portal_of,
)
from ..gameview import breakdown_table, deciding_part, game_summary, log_lines
from ..jsonroute import BoundedRoute
from ..render import message_of, redirect, render
from . import help  # noqa: F401  (registers the ``kind`` path convertor)
from .friends import profile_social

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["community"])

SPEEDS = (("0.5", "speed_fast"), ("1", "speed_normal"), ("2", "speed_slow"))


def language_names(codes: Any, lang: str) -> list[tuple[str, str]]:
    """``(code, name in lang)`` for language codes (names from Babel)."""
    from babel import Locale

    out = []
    for code in codes:
        try:
            out.append((code, Locale.parse(code).get_display_name(lang) or code))
        except (ValueError, TypeError):
            out.append((code, code))
    return out


def _step_context(request: Request, book: ReplayBook, step: int, seat: int | None, log: list[dict[str, Any]],
                  names: list[str], lang: str, extras: list[dict[str, Any]],
                  result: list[dict[str, Any]] | None) -> dict[str, Any]:
    """What the board partial and the replay frame need for one step."""
    state = book.state_at(step)
    game = book.game
    view = state.view(seat)
    to_move = state.current_player()
    ctx: dict[str, Any] = {
        "game": game, "step": step, "last": book.length, "seat": seat, "view": view, "legal": [],
        "legal_described": [], "players": names, "pickers": [], "finished": state.is_terminal(),
        "to_move": to_move if to_move >= 0 else None,
        "result": (result or state.result_json()) if state.is_terminal() else None,
        "breakdown": breakdown_table(view.get("breakdown"), lang),
        "decided": deciding_part(view.get("breakdown"), lang),
        "log": log_lines(log, names, lang), "extras": extras,
        "board_template": _board_template(portal_of(request).templates, game.id),
        "game_data": lambda name: game_data(game.id, name),
    }
    ctx.update(board_helpers([], lambda a: state.describe(a, lang, names)))
    return ctx


def _page_or_frame(request: Request, user: UserInfo | None, ctx: dict[str, Any]) -> Response:
    frame = request.query_params.get("frame") == "1" or bool(request.headers.get("hx-request"))
    game = ctx["game"]
    ctx.setdefault("board_js", f"boards/{game.id}.js" if _has_static(f"boards/{game.id}.js") else None)
    ctx.setdefault("board_css", f"boards/{game.id}.css" if _has_static(f"boards/{game.id}.css") else None)
    ctx["speeds"] = SPEEDS
    return render(request, "_replay_frame.html" if frame else "replay.html", user, **ctx)


@pages.get("/games/{game_id}/replay", response_class=HTMLResponse)
def replay_page(request: Request, game_id: GameId,
                step: Annotated[int | None, Query(ge=0, le=1_000_000)] = None,
                seat: Annotated[str | None, Query(max_length=3)] = None,
                go: Annotated[int | None, Query(ge=0, le=1_000_000, description="a step button")] = None) -> Response:
    """Step through a stored game from a seat's view (any seat once it is over, my own while it runs)."""
    user = current_user(request)
    lang = lang_of(request, user)
    site = portal_of(request).site
    info = site.games.game(game_id)
    uid = user.id if user else None
    chosen = _seat_param(seat, info.seat_of(uid) if info.status == "running" else None)
    info, rs = site.history.replay_step(game_id, step if go is None else go, chosen, uid, lang)
    book = site.history.replay_book(info)
    names = info.seat_names()
    ctx = _step_context(request, book, rs.step, rs.seat, rs.log, names, lang, rs.extras, info.result)
    ctx.update(info=info, summary=game_summary(info, user, lang), seats=replay_seats(info, uid),
               base_url=f"/games/{game_id}/replay", imported=None, title=pick(book.game.title, lang))
    return _page_or_frame(request, user, ctx)


def _seat_param(value: str | None, default: int | None) -> int | None:
    if value is None or value == "":
        return default
    if value == "-":
        return None
    try:
        return int(value)
    except ValueError:
        raise BadRequest("seat must be a seat number or '-' for a spectator", code_key="bad_seat") from None


def record_download(request: Request, game_id: int, user: UserInfo | None) -> Response:
    """A finished game's record as a file; a running game's only as its player may see it."""
    site = portal_of(request).site
    info = site.games.game(game_id)
    if not info.over:
        raise Forbidden("the record can be downloaded once the game is over", code_key="not_finished")
    record = site.play.record(game_id)
    body = json.dumps(record, ensure_ascii=False, indent=1)
    name = f"ludothek-{info.game}-{game_id}.json"
    return Response(body, media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@pages.get("/games/{game_id}/record.json", name="record_file")
def record_file_download(request: Request, game_id: GameId) -> Response:
    return record_download(request, game_id, current_user(request))


@pages.get("/replays/import", response_class=HTMLResponse)
def import_form(request: Request) -> Response:
    return render(request, "replay_import.html", current_user(request),
                  max_actions=portal_of(request).site.history.limits.max_entries)


@pages.post("/replays/import", response_class=HTMLResponse)
async def import_record(request: Request, csrf: CsrfField,
                        file: Annotated[UploadFile | None, File()] = None,
                        record: Annotated[str, Form()] = "",
                        step: Annotated[str, Form()] = "",
                        seat: Annotated[str, Form()] = "",
                        go: Annotated[str, Form()] = "") -> Response:
    """Check a record and show it as a replay; nothing is stored.  The page carries the record along."""
    check_csrf(request, csrf)
    text = record
    if file is not None and file.filename:
        raw = await file.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = "\x00"  # refused below as not JSON
    from starlette.concurrency import run_in_threadpool

    result: Response = await run_in_threadpool(_show_import, request, text, go or step, seat)
    return result


def limit_replays(request: Request, user: UserInfo | None) -> Callable[[], None]:
    """The rate limits of a record that must be replayed: per user and address, or for a visitor per address.

    Counted only when the record is not in the replay cache (`History.imported_book`), so stepping
    through one record costs nothing against them.
    """
    limits = portal_of(request).limits

    def hit() -> None:
        address = client_address(request)
        if user is None:
            limits.hit("replay_visitor", address)
        else:
            limits.hit("replay_user", str(user.id))
        limits.hit("replay_addr", address)

    return hit


def _show_import(request: Request, text: str, step_text: str, seat_text: str) -> Response:
    user = current_user(request)
    lang = lang_of(request, user)
    site = portal_of(request).site
    try:
        if not text.strip():
            raise BadRequest("choose a record file (JSON) or paste a record", code_key="no_record")
        _, book = site.history.imported_book(text, limit_replays(request, user))
        step = book.length if not step_text else int(step_text)
        seat = _seat_param(seat_text, None)
        if not 0 <= step <= book.length:
            raise BadRequest(f"step must be 0 to {book.length}", code_key="bad_step", last=book.length)
        if seat is not None and not 0 <= seat < book.num_players:
            raise BadRequest(f"there is no seat {seat} in this game", code_key="bad_seat")
    except (StoreError, ValueError) as exc:
        error = exc if isinstance(exc, StoreError) else BadRequest(str(exc), code_key="bad_step")
        page = render(request, "replay_import.html", user, status=error.status, error=message_of(error, lang),
                      max_actions=site.history.limits.max_entries, record_text=text[:200_000])
        if error.status == 429:
            page.headers["Retry-After"] = str(error.params["seconds"])
        return page
    names = list(book.names) if book.names is not None else [eng.seat_name(s, lang) for s in range(book.num_players)]
    ctx = _step_context(request, book, step, seat, book.log(step, "all", lang), names, lang, [], book.result_json())
    ctx.update(info=None, summary=None, seats=[*range(book.num_players), None], base_url="/replays/import",
               imported=text, title=pick(book.game.title, lang))
    return _page_or_frame(request, user, ctx)


@pages.get("/games/{game_id}/log", response_class=HTMLResponse, name="log_page")
def log_page_html(request: Request, game_id: GameId,
                  before: Annotated[int | None, Query(ge=1, le=100_000_000)] = None) -> Response:
    """The log 100 lines at a time, back to move 1 (the game page shows the newest lines)."""
    user = current_user(request)
    lang = lang_of(request, user)
    site = portal_of(request).site
    info = site.games.game(game_id)
    viewer = info.seat_of(user.id if user else None)
    info, lines = site.history.log_page(game_id, viewer, lang, before, 100)
    first = lines[0]["n"] if lines else 1
    ctx: dict[str, Any] = {"info": info, "game": eng.load(info.game), "lines": log_lines(lines, info.seat_names(), lang),
           "earlier": first if first > 1 else None}
    if info.status in ("running", "finished", "abandoned"):
        with site.play.state(game_id) as (_, tracked):
            # "Move N" counts players' decisions, not chance steps or undos (`State.decisions`).
            ctx["decisions"] = tracked.state.decisions() if tracked is not None else None
    template = "_log_page.html" if request.headers.get("hx-request") else "log.html"
    return render(request, template, user, **ctx)


@pages.get("/users/{name}", response_class=HTMLResponse)
def profile_page(request: Request, name: str) -> Response:
    return _profile(request, name)


def _profile(request: Request, name: str, status: int = 200, error: str | None = None,
             about_text: str | None = None) -> Response:
    user = current_user(request)
    lang = lang_of(request, user)
    site = portal_of(request).site
    if len(name) > 40:
        raise NotFound(f"there is no user called {name!r}", code_key="no_user")
    profile = site.profiles.profile(name)
    ratings = site.ratings.ratings_of(profile.user_id)
    stats = {s.game: s for s in profile.stats}
    games = []
    for kind in sorted(set(stats) | set(ratings)):
        rating = ratings.get(kind)
        chart = rating_chart(site.ratings.rating_history(profile.user_id, kind, 100), lang) if rating else None
        title = pick(eng.load(kind).title, lang) if kind in eng.games() else kind
        games.append({"kind": kind, "title": title, "played": stats[kind].played if kind in stats else 0,
                      "won": stats[kind].won if kind in stats else 0, "rating": rating, "chart": chart})
    own = user is not None and user.id == profile.user_id
    return render(request, "profile.html", user, status=status, profile=profile, games=games, own=own, error=error,
                  profile_tournaments=site.tournaments.of_user(profile.user_id, 10),  # issue 31
                  about_text=profile.about if about_text is None else about_text,
                  languages=language_names(profile.languages, lang),
                  all_languages=language_names(LANGUAGE_CODES, lang) if own else [],
                  finished=[game_summary(g, user, lang) for g in site.profiles.finished_games_of(profile.user_id, 10)],
                  running=[game_summary(g, user, lang) for g in site.profiles.running_games_of(profile.user_id)],
                  about_max=ABOUT_MAX, max_languages=MAX_LANGUAGES, min_games=LEADERBOARD_MIN_GAMES,
                  **profile_social(request, user, profile.user_id),
                  bot_owner=site.botaccounts.owner_of(profile.name))  # issue 33: a bot account is marked


@pages.post("/account/profile")
async def save_profile(request: Request) -> Response:
    form = await request.form()
    check_csrf(request, str(form.get("csrf") or ""))
    user = need_user(request)
    site = portal_of(request).site
    about = str(form.get("about") or "")
    codes = [str(v) for v in form.getlist("languages")]
    try:
        site.profiles.update_profile(user.id, about, codes)
    except StoreError as exc:
        return _profile(request, user.name, exc.status, message_of(exc, lang_of(request, user)), about)
    return redirect(request, f"/users/{user.name}")


@pages.get("/games/{kind:kind}/leaderboard", response_class=HTMLResponse)
def leaderboard_page(request: Request, kind: str,
                     page: Annotated[int, Query(ge=1, le=100_000)] = 1) -> Response:
    user = current_user(request)
    lang = lang_of(request, user)
    if kind not in eng.games():
        return render(request, "error.html", user, status=404, message=t("err_unknown_game", lang, game=kind))
    per_page = 50
    board = portal_of(request).site.ratings.leaderboard(kind, per_page, (page - 1) * per_page)
    pages = max(1, -(-board.total // per_page))
    return render(request, "leaderboard.html", user, game=eng.load(kind), board=board, page=page, pages=pages,
                  min_games=LEADERBOARD_MIN_GAMES,
                  bots=portal_of(request).site.botaccounts.among([r.name for r in board.rows]))


# ----------------------------------------------------------------------------- JSON API
UserName = Annotated[str, Path(min_length=1, max_length=40, description="a user name (any case)")]


GameKind = Annotated[str, Path(pattern="^[a-z][a-z0-9_]*$", max_length=40, description="a game id, e.g. machikoro")]


LogLimit = Annotated[int, Query(ge=0, le=100_000, description="how many of the last log lines to include")]


SeatParam = Annotated[int | None, Query(ge=0, le=15, description="whose view: a seat (0-based); none: a spectator")]


class LogLine(BaseModel):
    n: int = Field(description="the entry's move number (1 = the first entry of the game)")
    seat: int | Literal["chance"]
    action: str = Field(description="the action, or '?' for a chance outcome this viewer may not see")
    text: str = Field(description="the log sentence in the requested language, players named by their names")
    undone: bool = Field(description="a later undo took this action back")


class LogPage(BaseModel):
    game: int
    seq: int = Field(description="the game's move number now (entries so far)")
    lines: list[LogLine] = Field(description="oldest first")
    earlier: int | None = Field(description="pass as `before` for the page before this one; null at move 1")


class ReplayExtra(BaseModel):
    kind: str = Field(description="what it is, e.g. 'chat'")
    seq: int = Field(description="the game's move number when it was written (shown from this step on)")
    at: str | None = None
    author: str | None = None
    text: str


class ReplayStepOut(BaseModel):
    game: str = Field(description="the game kind")
    id: int | None = Field(description="the stored game's id (null for an imported record)")
    step: int = Field(description="entries applied: 0 is the start, `last` the end")
    last: int
    seat: int | None = Field(description="whose view this is (null: a spectator)")
    seats: list[int | None] = Field(description="the views this viewer may choose")
    names: list[str]
    to_move: int | None
    finished: bool
    view: dict[str, Any] = Field(description="the game's view for `seat` at this step")
    log: list[LogLine] = Field(description="the last lines of the log up to this step (`log` of them), as this viewer may read it")
    extras: list[ReplayExtra] = Field(description="items of other concerns written up to this step (chat)")
    result: list[SeatResultOut] | None = Field(description="the final result, at the last step of a finished game")


class RecordIn(BaseModel):
    model_config = ConfigDict(strict=True)

    record: dict[str, Any] = Field(description="a game record (format ludothek-record/1)")
    step: Annotated[int, Field(ge=0, le=1_000_000), WHOLE] | None = Field(
        default=None, description="the step to show (default: the last)")
    log: Annotated[int, Field(ge=0, le=100_000), WHOLE] = Field(
        default=100, description="how many of the last log lines to include")
    seat: Annotated[int, Field(ge=0, le=15), WHOLE] | None = Field(
        default=None, description="whose view (default: a spectator)")
    lang: Literal["de", "en"] | None = None


class RatingOut(BaseModel):
    mu: float
    sigma: float
    conservative: float = Field(description="mu - 3 sigma: the rating shown and ranked by")
    games: int = Field(description="rated games")
    wins: int = Field(description="rated games won (first place, ties included)")
    rank: int | None = Field(description=f"place on the leaderboard; null below {LEADERBOARD_MIN_GAMES} rated games")


class GameStatsOut(BaseModel):
    game: str
    title: str
    played: int = Field(description="finished games, rated or not")
    won: int
    rating: RatingOut | None


class GameRef(BaseModel):
    id: int
    game: str
    title: str
    status: str
    seq: int
    players: list[str]
    result: list[SeatResultOut] | None


class ProfileOut(BaseModel):
    name: str
    guest: bool
    member_since: datetime
    languages: list[str] = Field(description="codes of the languages the player speaks")
    about: str = Field(description=f"plain text, at most {ABOUT_MAX} characters, as written")
    games: list[GameStatsOut]
    finished: list[GameRef] = Field(description="the last finished games, newest first (replay: /games/{id}/replay)")
    running: list[GameRef] = Field(description="running games anyone may watch")
    bot_owner: str | None = Field(default=None, description="a bot account: the person who runs it; null: a person")


class ProfileIn(BaseModel):
    about: str | None = Field(default=None, max_length=4 * ABOUT_MAX, description=f"plain text, at most {ABOUT_MAX} characters")
    languages: list[Annotated[str, Field(pattern="^(" + "|".join(LANGUAGE_CODES) + ")$")]] | None = Field(
        default=None, max_length=len(LANGUAGE_CODES), description=f"codes from: {', '.join(LANGUAGE_CODES)}")


class LeaderRow(BaseModel):
    rank: int
    name: str
    guest: bool
    conservative: float
    mu: float
    sigma: float
    games: int
    wins: int


class LeaderboardOut(BaseModel):
    game: str
    total: int = Field(description=f"players with at least {LEADERBOARD_MIN_GAMES} rated games")
    offset: int
    rows: list[LeaderRow]


class RatingPointOut(BaseModel):
    game_id: int
    at: datetime
    place: int
    mu: float
    sigma: float
    conservative: float


class RatingHistoryOut(BaseModel):
    name: str
    game: str
    rating: RatingOut | None
    history: list[RatingPointOut] = Field(description="oldest first")


def seat_results(result: list[dict[str, Any]] | None) -> list[SeatResultOut] | None:
    return None if result is None else [SeatResultOut.model_validate(r) for r in result]


def rating_out(r: RatingInfo | None) -> RatingOut | None:
    if r is None:
        return None
    return RatingOut(mu=r.mu, sigma=r.sigma, conservative=r.conservative, games=r.games, wins=r.wins, rank=r.rank)


def game_ref(info: GameInfo, lang: str) -> GameRef:
    return GameRef(id=info.id, game=info.game, title=pick(eng.load(info.game).title, lang), status=info.status,
                   seq=info.seq, players=info.seat_names(), result=seat_results(info.result))


def replay_out(book: ReplayBook, game_id: int | None, step: int, seat: int | None, seats: list[int | None],
               state: eng.State, log: list[dict[str, Any]], extras: list[dict[str, Any]], names: list[str],
               result: list[dict[str, Any]] | None) -> ReplayStepOut:
    to_move = state.current_player()
    return ReplayStepOut(
        game=book.game.id, id=game_id, step=step, last=book.length, seat=seat, seats=seats, names=names,
        to_move=to_move if to_move >= 0 else None, finished=state.is_terminal(), view=state.view(seat),
        log=[LogLine(**line) for line in log], extras=[ReplayExtra(**e) for e in extras],
        result=seat_results(result) if state.is_terminal() else None,
    )


def _last(lines: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    return lines[len(lines) - n:] if n else []


def imported_names_or_default(book: ReplayBook, lang: str) -> list[str]:
    if book.names is not None:
        return list(book.names)
    return [eng.seat_name(s, lang) for s in range(book.num_players)]


@api.get("/games/{game_id}/log/page", response_model=LogPage,
         summary="One page of the game log, numbered by the game's move numbers")
def log_page(game_id: GameId, request: Request, user: MaybeUser, lang: Lang = None,
             before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="only entries numbered below this")] = None,
             limit: Annotated[int, Query(ge=1, le=500, description="at most this many lines")] = 100) -> LogPage:
    site = portal_of(request).site
    info = site.games.game(game_id)
    viewer = info.seat_of(user.id if user else None)
    info, lines = site.history.log_page(game_id, viewer, lang or lang_of(request, user), before, limit)
    first = lines[0]["n"] if lines else 1
    return LogPage(game=game_id, seq=info.seq, lines=[LogLine(**line) for line in lines],
                   earlier=first if first > 1 else None)


@api.get("/games/{game_id}/replay/{step}", response_model=ReplayStepOut, responses=refusals(400, 403),
         summary="The game after `step` entries, from a seat's view (any seat once the game is over)")
def replay_step(game_id: GameId, step: Annotated[int, Path(ge=0, le=1_000_000)], request: Request, user: MaybeUser,
                seat: SeatParam = None, lang: Lang = None, log: LogLimit = 100) -> ReplayStepOut:
    """While a game runs, only my own seat's past views (or a spectator's) may be asked for: another
    seat is refused with 403 ``replay_seat``.  The log is the one the chosen viewer may read; once the
    game is over it is the whole log."""
    site = portal_of(request).site
    language = lang or lang_of(request, user)
    uid = user.id if user else None
    try:
        info, rs = site.history.replay_step(game_id, step, seat, uid, language)
    except BadRequest as exc:
        if exc.params.get("code_key") != "bad_step":
            raise
        raise NotFound(exc.message, **exc.params) from None  # a step the game has not reached: no such resource
    book = site.history.replay_book(info)
    return replay_out(book, info.id, rs.step, rs.seat, replay_seats(info, uid), rs.state, _last(rs.log, log),
                      rs.extras, info.seat_names(), info.result)


@api.get("/games/{game_id}/record.json", response_model=RecordOut, responses=refusals(403),
         summary="Download the record of a finished game as a file")
def record_file(game_id: GameId, request: Request, user: MaybeUser) -> Any:
    return record_download(request, game_id, user)


@api.post("/records/replay", response_model=ReplayStepOut, responses=refusals(400, 401, 413, 429),
          summary="Check a record from elsewhere and show one of its steps (nothing is stored)")
def replay_record(body: RecordIn, request: Request, user: User) -> ReplayStepOut:
    """A record that does not replay is refused with 400 ``bad_record``, naming the first bad action.
    A login is needed.  A record longer than any real game (more entries or undos than the server
    accepts) or one that takes too long to replay is refused with 413 ``record_too_big``.  Each
    record replayed counts against the rate limits (429 with ``Retry-After``); asking for further
    steps of one already replayed does not.  A sync route: the replay runs in a worker thread,
    never on the event loop, and at most a few at once per process (429 when the queue is full)."""
    site = portal_of(request).site
    language = body.lang or lang_of(request, user)
    _, book = site.history.imported_book(body.record, limit_replays(request, user))
    step = book.length if body.step is None else body.step
    if step > book.length:
        raise BadRequest(f"step must be 0 to {book.length}", code_key="bad_step", last=book.length)
    if body.seat is not None and body.seat >= book.num_players:
        raise BadRequest(f"there is no seat {body.seat} in this game", code_key="bad_seat")
    state = book.state_at(step)
    seats: list[int | None] = [*range(book.num_players), None]
    return replay_out(book, None, step, body.seat, seats, state, _last(book.log(step, "all", language), body.log), [],
                      imported_names_or_default(book, language), book.result_json())


def profile_out(request: Request, name: str, lang: str) -> ProfileOut:
    site = portal_of(request).site
    profile = site.profiles.profile(name)
    ratings = site.ratings.ratings_of(profile.user_id)
    stats = {s.game: s for s in profile.stats}
    kinds = sorted(set(stats) | set(ratings))
    games = [GameStatsOut(game=k, title=_title(k, lang), played=stats[k].played if k in stats else 0,
                          won=stats[k].won if k in stats else 0, rating=rating_out(ratings.get(k)))
             for k in kinds]
    return ProfileOut(
        name=profile.name, guest=profile.is_guest, member_since=profile.member_since,
        languages=list(profile.languages), about=profile.about, games=games,
        finished=[game_ref(g, lang) for g in site.profiles.finished_games_of(profile.user_id, 10)],
        running=[game_ref(g, lang) for g in site.profiles.running_games_of(profile.user_id)],
        bot_owner=site.botaccounts.owner_of(profile.name),
    )


def _title(kind: str, lang: str) -> str:
    try:
        return pick(eng.load(kind).title, lang)
    except KeyError:
        return kind


@api.get("/users/{name}", response_model=ProfileOut, summary="A player's profile")
def get_profile(name: UserName, request: Request, user: MaybeUser, lang: Lang = None) -> ProfileOut:
    return profile_out(request, name, lang or lang_of(request, user))


@api.put("/me/profile", response_model=ProfileOut, summary="Change my profile: about me, my languages")
def put_profile(body: ProfileIn, request: Request, user: User) -> ProfileOut:
    """``about`` is plain text of at most 500 characters (line breaks allowed, other control characters
    refused with 400 ``about_control``); ``languages`` are codes from the list above."""
    site = portal_of(request).site
    site.profiles.update_profile(user.id, body.about, body.languages)
    return profile_out(request, user.name, user.lang)


def _known_kind(kind: str) -> None:
    if kind not in eng.games():
        raise NotFound(f"unknown game {kind!r}", code_key="unknown_game", game=kind)


@api.get("/games/{kind}/leaderboard", response_model=LeaderboardOut,
         summary=f"A game's leaderboard: players with at least {LEADERBOARD_MIN_GAMES} rated games, by mu - 3 sigma")
def leaderboard(kind: GameKind, request: Request,
                limit: Annotated[int, Query(ge=1, le=200)] = 50,
                offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0) -> LeaderboardOut:
    _known_kind(kind)
    board = portal_of(request).site.ratings.leaderboard(kind, limit, offset)
    return LeaderboardOut(game=kind, total=board.total, offset=offset, rows=[
        LeaderRow(rank=r.rank or 0, name=r.name, guest=r.is_guest, conservative=r.conservative, mu=r.mu,
                  sigma=r.sigma, games=r.games, wins=r.wins) for r in board.rows])


@api.get("/ratings/{name}/{kind}", response_model=RatingHistoryOut,
         summary="A player's rating in one game and its history")
def rating_history(name: UserName, kind: GameKind, request: Request,
                   limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> RatingHistoryOut:
    _known_kind(kind)
    site = portal_of(request).site
    target: UserInfo | None = site.accounts.user_by_name(name)
    if target is None:
        raise NotFound(f"there is no user called {name!r}", code_key="no_user")
    points = site.ratings.rating_history(target.id, kind, limit)
    return RatingHistoryOut(name=target.name, game=kind, rating=rating_out(site.ratings.ratings_of(target.id).get(kind)),
                            history=[RatingPointOut(game_id=p.game_id, at=p.at, place=p.place, mu=p.mu,
                                                    sigma=p.sigma, conservative=p.conservative) for p in points])
