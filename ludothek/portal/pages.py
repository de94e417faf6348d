"""The HTML pages: server-rendered with Jinja2, enhanced with htmx and a little JavaScript.

Every state-changing form carries the session's CSRF value (``csrf`` field, or
the ``X-CSRF-Token`` header that htmx requests send).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates
from jinja2 import TemplateNotFound
from markupsafe import Markup, escape
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.engine.plural import plural
from ludothek.services.lobby import BOT_LEVELS, DEFAULT_FORM_BOT, PORTAL_BOTS
from ludothek.storage import BadRequest, StoreError, UserInfo

from .context import (
    GameId,
    client_address,
    current_user,
    lang_of,
    limit_game_creation,
    limit_per_user_and_address,
    log_in,
    log_out,
    portal_of,
    save_session,
    session_of,
)
from .gameview import breakdown_table, game_summary, log_lines, seat_context, seat_names
from .hardening import local_path
from .hyphenate import soft_hyphens
from .i18n import pick as pick_text
from .i18n import t, tn
from .pickers import board_pickers
from .sessions import csrf_ok

router = APIRouter(include_in_schema=False)

STATIC = resources.files("ludothek.portal") / "static"


class CsrfRefused(StoreError):
    status = 403
    code = "csrf"


class LoginNeeded(StoreError):
    status = 401
    code = "unauthorized"


def setup_templates(templates: Jinja2Templates) -> None:
    env = templates.env
    env.globals["t"] = t
    env.globals["tn"] = tn
    env.globals["time_controls"] = time_control_choices
    env.globals["bot_level"] = bot_level
    env.globals["bot_levels"] = BOT_LEVELS
    env.filters["tojson_pretty"] = lambda v: json.dumps(v, indent=1, ensure_ascii=False)
    env.filters["num"] = format_number
    env.filters["hyphenate"] = soft_hyphens


def bot_level(seat: Any, lang: str) -> str:
    """" (hard)" after a bot seat's name, in ``lang``; empty for people and seats without a bot."""
    kind = seat.get("kind") if isinstance(seat, dict) else getattr(seat, "kind", None)
    bot = seat.get("bot") if isinstance(seat, dict) else getattr(seat, "bot", None)
    if kind != "bot" or bot not in PORTAL_BOTS:
        return ""
    return f" ({t('bot_level_' + bot, lang)})"


def format_day(when: Any, lang: str) -> str:
    """A day as people of ``lang`` write it (Babel): "24.11.2026", "Nov 24, 2026"."""
    from babel.dates import format_date

    return str(format_date(when, format="medium", locale=lang))


def format_decimal_1(value: float, lang: str) -> str:
    """A rating with one decimal in the reader's notation (Babel): "3,4" in German, "3.4" in English."""
    from babel.numbers import format_decimal

    return str(format_decimal(value, format="0.0", locale=lang))


def format_number(value: Any) -> str:
    """Scores as people write them: ``4`` rather than ``4.0``, one decimal otherwise."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.1f}"
    return str(value)


@cache
def game_data(game_id: str, name: str) -> Any:
    """A JSON data file shipped in a game's package (component names, costs ...), for board partials."""
    if "/" in name or not name.endswith(".json"):
        raise ValueError(f"not a data file name: {name!r}")
    package = resources.files(f"ludothek.games.{game_id}")
    path = package / name if (package / name).is_file() else package / "data" / name
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def _has_static(path: str) -> bool:
    return (STATIC / path).is_file()


def _board_template(templates: Jinja2Templates, game_id: str) -> str:
    name = f"boards/{game_id}.html"
    try:
        templates.env.get_template(name)
        return name
    except TemplateNotFound:
        return "boards/_generic.html"


def base_context(request: Request, user: UserInfo | None) -> dict[str, Any]:
    lang = lang_of(request, user)
    return {
        "request": request,
        "user": user,
        "lang": lang,
        "csrf": session_of(request).csrf,
        "path": request.url.path,
        "tr": lambda key, **kw: t(key, lang, **kw),
        "trn": lambda key, n, **kw: tn(key, n, lang, **kw),
        "fmt_date": lambda when: format_day(when, lang),
        "fmt_decimal": lambda value: format_decimal_1(value, lang),
        "pick": lambda texts: pick_text(texts, lang),
        # boards' counted words: plural(n, "{n} Gleis", "{n} Gleise") by the language's CLDR rule
        "plural": lambda n, one, other: plural(int(n), lang, one, other),
        "waiting": _waiting(request, user),
    }


def _chat_context(request: Request, info: Any, user: UserInfo | None) -> dict[str, Any]:
    from .chat import chat_context  # the chat's routes build on this module

    return chat_context(request, info, user)


def _waiting(request: Request, user: UserInfo | None) -> int:
    from .notify import waiting_count  # notify builds on this module

    return waiting_count(request, user)


def render(request: Request, template: str, user: UserInfo | None, status: int = 200, **ctx: Any) -> Response:
    templates = portal_of(request).templates
    context = base_context(request, user)
    context.update(ctx)
    response = templates.TemplateResponse(request, template, context, status_code=status)
    return save_session(request, response)


def redirect(request: Request, url: str) -> Response:
    """See other (303), or for htmx an ``HX-Redirect``; only ever to a path on this site."""
    url = local_path(url)
    if request.headers.get("hx-request"):
        response: Response = Response(status_code=204, headers={"HX-Redirect": url})
    else:
        response = RedirectResponse(url, status_code=303)
    return save_session(request, response)


def message_of(exc: StoreError, lang: str) -> str:
    key = exc.params.get("code_key") or exc.code
    text = t(f"err_{key}", lang, **exc.params)
    return exc.message if text == f"err_{key}" else text


def error_page(
    request: Request, exc: StoreError, headers: dict[str, str] | None, status: int | None = None
) -> Response:
    user = getattr(request.state, "user", None)
    lang = lang_of(request, user)
    response = render(request, "error.html", user, status=status or exc.status, message=message_of(exc, lang))
    if headers:
        response.headers.update(headers)
    return response


def check_csrf(request: Request, token: str | None) -> None:
    if not csrf_ok(session_of(request), token or request.headers.get("x-csrf-token")):
        raise CsrfRefused("the form has expired (CSRF); reload the page", code_key="csrf")


def need_user(request: Request) -> UserInfo:
    user = current_user(request)
    if user is None:
        raise LoginNeeded("log in first", code_key="login_needed")
    return user


CsrfField = Annotated[str, Form()]


# ----------------------------------------------------------------------------- home, lobby, my games
@router.get("/", response_class=HTMLResponse)
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


@router.get("/next")
def next_game(request: Request) -> Response:
    user = need_user(request)
    gid = portal_of(request).site.lobby.next_waiting(user.id)
    return redirect(request, f"/games/{gid}" if gid is not None else "/?waiting=none")


# ----------------------------------------------------------------------------- accounts
@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request) -> Response:
    return render(request, "login.html", current_user(request), mode="login")


@router.get("/register", response_class=HTMLResponse)
def register_form(request: Request) -> Response:
    return render(request, "login.html", current_user(request), mode="register")


@router.post("/login")
def login(request: Request, csrf: CsrfField, name: Annotated[str, Form()], password: Annotated[str, Form()]) -> Response:
    check_csrf(request, csrf)
    portal = portal_of(request)
    address = client_address(request)
    try:
        portal.throttle.attempt(name, address)  # counted before the check: bursts cannot slip past
        user = portal.site.accounts.authenticate(name, password)
    except StoreError as exc:
        status = exc.status
        response = render(request, "login.html", None, status=status, mode="login", name=name,
                          error=message_of(exc, lang_of(request)))
        if status == 429:
            response.headers["Retry-After"] = str(exc.params.get("seconds", 1))
        return response
    portal.throttle.succeeded(name, address)
    log_in(request, user)
    return redirect(request, "/")


@router.post("/register")
def register(request: Request, csrf: CsrfField, name: Annotated[str, Form()], password: Annotated[str, Form()]) -> Response:
    check_csrf(request, csrf)
    portal = portal_of(request)
    site = portal.site
    lang = lang_of(request)
    try:
        portal.limits.hit("register", client_address(request))
        user = site.accounts.register(name, password, lang)
    except StoreError as exc:
        return render(request, "login.html", None, status=exc.status, mode="register", name=name,
                      error=message_of(exc, lang))
    log_in(request, user)
    return redirect(request, "/")


@router.post("/guest")
def guest(request: Request, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    portal = portal_of(request)
    portal.limits.hit("guest", client_address(request))
    user = portal.site.accounts.create_guest(lang_of(request))
    log_in(request, user)
    return redirect(request, "/")


@router.post("/logout")
def logout(request: Request, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    log_out(request)
    return redirect(request, "/")


@router.post("/lang")
def set_lang(request: Request, csrf: CsrfField, lang: Annotated[str, Form()], next: Annotated[str, Form()] = "/") -> Response:
    check_csrf(request, csrf)
    if lang not in eng.LANGS:
        raise BadRequest("language must be de or en")
    user = current_user(request)
    if user is not None:
        portal_of(request).site.accounts.set_lang(user.id, lang)
    session = session_of(request)
    session.lang = lang
    session.dirty = True
    return redirect(request, local_path(next))


# ----------------------------------------------------------------------------- lobby
@router.get("/new", response_class=HTMLResponse)
def new_game_form(request: Request, game: str | None = None) -> Response:
    """The new-game form; ``?invite=name`` (repeatable, e.g. from the friend list) fills in invitations."""
    user = need_user(request)
    ids = eng.games()
    chosen = eng.load(game if game in ids else ids[0]) if ids else None
    values: dict[str, str] = {}
    invites = [n[:40] for n in request.query_params.getlist("invite") if n.strip()]
    if chosen is not None and invites:
        invites = list(dict.fromkeys(invites))[: chosen.max_players - 1]
        values["players"] = str(max(chosen.min_players, len(invites) + 1))
        for i, name in enumerate(invites, start=1):
            values[f"seat{i}"], values[f"seat{i}_name"] = "invite", name
    return render(request, "new_game.html", user, games=[eng.load(g) for g in ids], chosen=chosen, values=values,
                  friends=portal_of(request).site.social.friend_names(user.id))


@router.post("/new")
async def create_game(request: Request) -> Response:
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


@router.post("/games/{game_id}/join")
def join(request: Request, game_id: GameId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.lobby.join(game_id, need_user(request))
    return redirect(request, f"/games/{game_id}")


@router.post("/games/{game_id}/leave")
def leave(request: Request, game_id: GameId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.lobby.leave(game_id, need_user(request))
    return redirect(request, "/")


@router.post("/games/{game_id}/cancel")
def cancel(request: Request, game_id: GameId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.lobby.cancel(game_id, need_user(request))
    return redirect(request, "/")


@router.post("/games/{game_id}/resign")
def resign(request: Request, game_id: GameId, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.clocks.resign(game_id, need_user(request))
    return redirect(request, f"/games/{game_id}")


@router.post("/games/{game_id}/abandon")
def abandon(request: Request, game_id: GameId, csrf: CsrfField,
            agree: Annotated[str, Form()] = "yes") -> Response:
    check_csrf(request, csrf)
    portal_of(request).site.clocks.vote_abandon(game_id, need_user(request), agree == "yes")
    return redirect(request, f"/games/{game_id}")


# ----------------------------------------------------------------------------- the game page
def clock_by_seat(view: dict[str, Any] | None, lang: str) -> dict[int, dict[str, str]]:
    """Each seat's clock line for the board: time left, why it stands still, or who plays on."""
    out: dict[int, dict[str, str]] = {}
    for s in (view or {}).get("seats", []):
        line: dict[str, str] = {}
        if s["remaining_seconds"] is not None:
            line["left"] = t("clock_left", lang, time=duration_text(s["remaining_seconds"], lang))
        if s["away_until"]:
            line["away"] = t("away_until", lang, when=s["away_until"][:16].replace("T", " ") + " UTC")
        if s["left"]:
            line["gone"] = t(f"left_{s['left']}", lang)
        out[s["seat"]] = line
    return out


def duration_text(seconds: float, lang: str) -> str:
    """A remaining time as people read it: days and hours, or hours and minutes under a day."""
    minutes = int(seconds // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return t("clock_days", lang, d=days, h=hours)
    return t("clock_hours", lang, h=hours, m=mins)


def time_control_choices(lang: str) -> list[tuple[str, str]]:
    """The time controls the new-game form offers (the API accepts any valid bank too)."""
    from ludothek.storage.timecontrol import MOVE_DAYS

    out = [("none", t("tc_none", lang))]
    out += [(f"move:{d}", tn("tc_move", d, lang)) for d in MOVE_DAYS]
    out += [(f"bank:{a}+{b}/{c}", t("tc_bank", lang, start=a, add=b, most=c)) for a, b, c in ((3, 1, 14), (7, 1, 21))]
    return out


def board_helpers(legal: list[str], describe: Any) -> dict[str, Any]:
    legal_set = set(legal)

    def act(action: str) -> Markup:
        if action in legal_set:
            return Markup('data-action="{}"').format(escape(action))
        return Markup("")

    return {
        "act": act,
        "is_legal": lambda a: a in legal_set,
        "legal_with": lambda prefix: [a for a in legal if a.startswith(prefix)],
        "describe": describe,
    }


def game_fragment(request: Request, game_id: int, user: UserInfo | None, error: str | None = None,
                  status: int = 200, full: bool = False) -> Response:
    """The game page, or only its ``#game`` part (htmx swaps and live updates)."""
    portal = portal_of(request)
    lang = lang_of(request, user)
    with portal.site.play.state(game_id) as (info, tracked):
        game = eng.load(info.game)
        chat = _chat_context(request, info, user) if full else {}
        summary = game_summary(info, user, lang)
        ctx: dict[str, Any] = {
            "info": info, "summary": summary, "game": game, "error": error,
            "players": seat_names(info), "options": info.options,
            "board_template": _board_template(portal.templates, game.id),
            "board_js": f"boards/{game.id}.js" if _has_static(f"boards/{game.id}.js") else None,
            "board_css": f"boards/{game.id}.css" if _has_static(f"boards/{game.id}.css") else None,
            "clock": clock_by_seat(portal.site.clocks.clock_view(info), lang),
            "abandon_offered": any(s.abandon_vote and s.user_id == info.creator_id for s in info.seats),
            "my_abandon_vote": any(s.abandon_vote and user is not None and s.user_id == user.id for s in info.seats),
            **chat,
        }
        if tracked is not None:
            seat = info.seat_of(user.id) if user else None
            sc = seat_context(info, tracked, seat, lang)
            ctx.update(sc)
            names = ctx["players"]
            ctx["log"] = log_lines(sc["log"] or [], names, lang)
            ctx["breakdown"] = breakdown_table(sc["view"].get("breakdown"), lang)
            state = tracked.state
            ctx.update(board_helpers(sc["legal"], lambda a: state.describe(a, lang, names)))
            ctx["pickers"] = board_pickers(game.id, state, sc["legal"], lang, ctx["describe"])
            ctx["game_data"] = lambda name: game_data(game.id, name)
            return render(request, "game.html" if full else "_game.html", user, status=status, **ctx)
    return render(request, "game.html" if full else "_game.html", user, status=status, **ctx)


@router.get("/games/{game_id}", response_class=HTMLResponse)
def game_page(request: Request, game_id: GameId) -> Response:
    return game_fragment(request, game_id, current_user(request), full=True)


@router.get("/games/{game_id}/board", response_class=HTMLResponse)
def game_board(request: Request, game_id: GameId) -> Response:
    return game_fragment(request, game_id, current_user(request))


@router.post("/games/{game_id}/act", response_class=HTMLResponse)
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
        else:
            site.play.submit(game_id, action, seq_no, seat=seat)
        portal_of(request).hub.wait_flushed()  # its live update is out before the answer (see live.py)
    except StoreError as exc:
        refused = game_fragment(request, game_id, user, error=message_of(exc, user.lang), status=exc.status)
        if exc.status == 429:
            refused.headers["Retry-After"] = str(exc.params["seconds"])
        return refused
    if not request.headers.get("hx-request"):
        return redirect(request, f"/games/{game_id}")
    return game_fragment(request, game_id, user)
