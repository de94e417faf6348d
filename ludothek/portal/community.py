"""The pages of issue 12: the whole log, replays (stored games and imported records), profiles, leaderboards.

A replay step is drawn by the game's own board partial (``boards/<game>.html``) from the chosen
seat's view, with no legal actions: the board shows the position and nothing can be played from it.
The replay page works without JavaScript (links and a form); ``static/replay.js`` adds the slider,
stepping without reloading the page, and playing back at a chosen speed.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.services.community.history import IMPORT_MAX_ACTIONS, ReplayBook, replay_seats
from ludothek.services.community.profiles import ABOUT_MAX, LANGUAGE_CODES, MAX_LANGUAGES
from ludothek.storage import BadRequest, Forbidden, NotFound, StoreError, UserInfo
from ludothek.storage.rating_update import LEADERBOARD_MIN_GAMES

from . import helppages  # noqa: F401  (registers the ``kind`` path convertor)
from .charts import rating_chart
from .context import GameId, current_user, lang_of, portal_of
from .friends import profile_social
from .gameview import breakdown_table, game_summary, log_lines
from .i18n import pick, t
from .pages import (
    CsrfField,
    _board_template,
    _has_static,
    board_helpers,
    check_csrf,
    game_data,
    message_of,
    need_user,
    redirect,
    render,
)

router = APIRouter(include_in_schema=False)

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


# ----------------------------------------------------------------------------- replays
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


@router.get("/games/{game_id}/replay", response_class=HTMLResponse)
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


@router.get("/games/{game_id}/record.json")
def record_file(request: Request, game_id: GameId) -> Response:
    return record_download(request, game_id, current_user(request))


@router.get("/replays/import", response_class=HTMLResponse)
def import_form(request: Request) -> Response:
    return render(request, "replay_import.html", current_user(request), max_actions=IMPORT_MAX_ACTIONS)


@router.post("/replays/import", response_class=HTMLResponse)
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


def _show_import(request: Request, text: str, step_text: str, seat_text: str) -> Response:
    user = current_user(request)
    lang = lang_of(request, user)
    site = portal_of(request).site
    try:
        if not text.strip():
            raise BadRequest("choose a record file (JSON) or paste a record", code_key="no_record")
        _, book = site.history.imported_book(text)
        step = book.length if not step_text else int(step_text)
        seat = _seat_param(seat_text, None)
        if not 0 <= step <= book.length:
            raise BadRequest(f"step must be 0 to {book.length}", code_key="bad_step", last=book.length)
        if seat is not None and not 0 <= seat < book.num_players:
            raise BadRequest(f"there is no seat {seat} in this game", code_key="bad_seat")
    except (StoreError, ValueError) as exc:
        error = exc if isinstance(exc, StoreError) else BadRequest(str(exc), code_key="bad_step")
        return render(request, "replay_import.html", user, status=error.status, error=message_of(error, lang),
                      max_actions=IMPORT_MAX_ACTIONS, record_text=text[:200_000])
    names = list(book.names) if book.names is not None else [eng.seat_name(s, lang) for s in range(book.num_players)]
    ctx = _step_context(request, book, step, seat, book.log(step, "all", lang), names, lang, [], book.result_json())
    ctx.update(info=None, summary=None, seats=[*range(book.num_players), None], base_url="/replays/import",
               imported=text, title=pick(book.game.title, lang))
    return _page_or_frame(request, user, ctx)


# ----------------------------------------------------------------------------- the whole log
@router.get("/games/{game_id}/log", response_class=HTMLResponse)
def log_page(request: Request, game_id: GameId,
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
    template = "_log_page.html" if request.headers.get("hx-request") else "log.html"
    return render(request, template, user, **ctx)


# ----------------------------------------------------------------------------- profiles
@router.get("/users/{name}", response_class=HTMLResponse)
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
                  about_text=profile.about if about_text is None else about_text,
                  languages=language_names(profile.languages, lang),
                  all_languages=language_names(LANGUAGE_CODES, lang) if own else [],
                  finished=[game_summary(g, user, lang) for g in site.profiles.finished_games_of(profile.user_id, 10)],
                  running=[game_summary(g, user, lang) for g in site.profiles.running_games_of(profile.user_id)],
                  about_max=ABOUT_MAX, max_languages=MAX_LANGUAGES, min_games=LEADERBOARD_MIN_GAMES,
                  **profile_social(request, user, profile.user_id))


@router.post("/account/profile")
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


# ----------------------------------------------------------------------------- leaderboards
@router.get("/games/{kind:kind}/leaderboard", response_class=HTMLResponse)
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
                  min_games=LEADERBOARD_MIN_GAMES)
