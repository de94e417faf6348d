"""The JSON API of issue 12: replays, imported records, profiles, ratings and leaderboards.

Every endpoint declares its response model, so the OpenAPI schema (``/docs``) documents it; refusals
are ``{"detail", "code"}`` with a 4xx status like everywhere in the API.  Free text (a profile's
"about me", player names) is handed out as stored: JSON carries it as data, never as markup.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from ludothek import engine as eng
from ludothek.services.community.history import ReplayBook, replay_seats
from ludothek.services.community.profiles import ABOUT_MAX, LANGUAGE_CODES
from ludothek.services.community.ratings import RatingInfo
from ludothek.storage import BadRequest, GameInfo, NotFound, UserInfo
from ludothek.storage.rating_update import LEADERBOARD_MIN_GAMES

from .api import Lang, MaybeUser, User
from .apimodels import RecordOut, SeatResultOut
from .context import GameId, lang_of, portal_of
from .contract import WHOLE, refusals
from .i18n import pick

router = APIRouter(tags=["community"])

UserName = Annotated[str, Path(min_length=1, max_length=40, description="a user name (any case)")]
GameKind = Annotated[str, Path(pattern="^[a-z][a-z0-9_]*$", max_length=40, description="a game id, e.g. machikoro")]
LogLimit = Annotated[int, Query(ge=0, le=100_000, description="how many of the last log lines to include")]
SeatParam = Annotated[int | None, Query(ge=0, le=15, description="whose view: a seat (0-based); none: a spectator")]


# ----------------------------------------------------------------------------- models
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


# ----------------------------------------------------------------------------- helpers
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


# ----------------------------------------------------------------------------- the log and replays
@router.get("/games/{game_id}/log/page", response_model=LogPage,
            summary="One page of the game log, numbered by the game's move numbers")
def log_page(game_id: GameId, request: Request, user: MaybeUser, lang: Lang = None,
             before: Annotated[int | None, Query(ge=1, description="only entries numbered below this")] = None,
             limit: Annotated[int, Query(ge=1, le=500, description="at most this many lines")] = 100) -> LogPage:
    site = portal_of(request).site
    info = site.games.game(game_id)
    viewer = info.seat_of(user.id if user else None)
    info, lines = site.history.log_page(game_id, viewer, lang or lang_of(request, user), before, limit)
    first = lines[0]["n"] if lines else 1
    return LogPage(game=game_id, seq=info.seq, lines=[LogLine(**line) for line in lines],
                   earlier=first if first > 1 else None)


@router.get("/games/{game_id}/replay/{step}", response_model=ReplayStepOut, responses=refusals(400, 403),
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


@router.get("/games/{game_id}/record.json", response_model=RecordOut, responses=refusals(403),
            summary="Download the record of a finished game as a file")
def record_file(game_id: GameId, request: Request, user: MaybeUser) -> Any:
    from .community import record_download

    return record_download(request, game_id, user)


@router.post("/records/replay", response_model=ReplayStepOut,
             summary="Check a record from elsewhere and show one of its steps (nothing is stored)")
def replay_record(body: RecordIn, request: Request, user: MaybeUser) -> ReplayStepOut:
    """A record that does not replay is refused with 400 ``bad_record``, naming the first bad action."""
    site = portal_of(request).site
    language = body.lang or lang_of(request, user)
    _, book = site.history.imported_book(body.record)
    step = book.length if body.step is None else body.step
    if step > book.length:
        from ludothek.storage import BadRequest

        raise BadRequest(f"step must be 0 to {book.length}", code_key="bad_step", last=book.length)
    if body.seat is not None and body.seat >= book.num_players:
        from ludothek.storage import BadRequest

        raise BadRequest(f"there is no seat {body.seat} in this game", code_key="bad_seat")
    state = book.state_at(step)
    seats: list[int | None] = [*range(book.num_players), None]
    return replay_out(book, None, step, body.seat, seats, state, _last(book.log(step, "all", language), body.log), [],
                      imported_names_or_default(book, language), book.result_json())


# ----------------------------------------------------------------------------- profiles
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
    )


def _title(kind: str, lang: str) -> str:
    try:
        return pick(eng.load(kind).title, lang)
    except KeyError:
        return kind


@router.get("/users/{name}", response_model=ProfileOut, summary="A player's profile")
def get_profile(name: UserName, request: Request, user: MaybeUser, lang: Lang = None) -> ProfileOut:
    return profile_out(request, name, lang or lang_of(request, user))


@router.put("/me/profile", response_model=ProfileOut, summary="Change my profile: about me, my languages")
def put_profile(body: ProfileIn, request: Request, user: User) -> ProfileOut:
    """``about`` is plain text of at most 500 characters (line breaks allowed, other control characters
    refused with 400 ``about_control``); ``languages`` are codes from the list above."""
    site = portal_of(request).site
    site.profiles.update_profile(user.id, body.about, body.languages)
    return profile_out(request, user.name, user.lang)


# ----------------------------------------------------------------------------- ratings
def _known_kind(kind: str) -> None:
    if kind not in eng.games():
        raise NotFound(f"unknown game {kind!r}", code_key="unknown_game", game=kind)


@router.get("/games/{kind}/leaderboard", response_model=LeaderboardOut,
            summary=f"A game's leaderboard: players with at least {LEADERBOARD_MIN_GAMES} rated games, by mu - 3 sigma")
def leaderboard(kind: GameKind, request: Request,
                limit: Annotated[int, Query(ge=1, le=200)] = 50,
                offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0) -> LeaderboardOut:
    _known_kind(kind)
    board = portal_of(request).site.ratings.leaderboard(kind, limit, offset)
    return LeaderboardOut(game=kind, total=board.total, offset=offset, rows=[
        LeaderRow(rank=r.rank or 0, name=r.name, guest=r.is_guest, conservative=r.conservative, mu=r.mu,
                  sigma=r.sigma, games=r.games, wins=r.wins) for r in board.rows])


@router.get("/ratings/{name}/{kind}", response_model=RatingHistoryOut,
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
