"""Rendering pages: the templates' helpers, formatting (dates, numbers, durations, bot levels),
`render`, `redirect`, `message_of`, `error_page` and the context every page gets.

Imports no route module: what the base context needs (how many games wait for the user) lives here.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import Request
from fastapi.responses import RedirectResponse
from fastapi.templating import Jinja2Templates
from starlette.responses import Response

from ludothek.engine.plural import plural
from ludothek.services.lobby import BOT_LEVELS, PORTAL_BOTS
from ludothek.storage import StoreError, UserInfo
from ludothek.texts import pick as pick_text
from ludothek.texts import t, tn
from ludothek.texts.dates import Part, local_when

from .deps import lang_of, portal_of, save_session, session_of
from .hardening import local_path
from .hyphenate import soft_hyphens


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


def format_day(when: Any, lang: str, timezone: str | None = None) -> str:
    """A day as people of ``lang`` write it (Babel): "24.11.2026", "Nov 24, 2026"; a moment's day in ``timezone``."""
    from babel.dates import format_date

    if isinstance(when, datetime):
        return local_when(when, lang, timezone, "date")
    return str(format_date(when, format="medium", locale=lang))


def reader_timezone(request: Request, user: UserInfo | None) -> str:
    """The time zone the reader chose (their mail settings' zone; UTC for visitors), once per request."""
    if user is None:
        return "UTC"
    cached = getattr(request.state, "timezone", None)
    if cached is None:
        cached = portal_of(request).site.notify.prefs(user.id).timezone
        request.state.timezone = cached
    return str(cached)


def format_decimal_1(value: float, lang: str) -> str:
    """A rating with one decimal in the reader's notation (Babel): "3,4" in German, "3.4" in English."""
    from babel.numbers import format_decimal

    return str(format_decimal(value, format="0.0", locale=lang))


def format_number(value: Any) -> str:
    """Scores as people write them: ``4`` rather than ``4.0``, one decimal otherwise."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.1f}"
    return str(value)


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


def waiting_count(request: Request, user: UserInfo | None) -> int:
    """How many games wait for the user's move (the tab title shows it), once per request."""
    if user is None:
        return 0
    cached = getattr(request.state, "waiting", None)
    if cached is None:
        cached = len(portal_of(request).site.notify.waiting_games(user.id))
        request.state.waiting = cached
    return int(cached)


def path_without_lang(request: Request) -> str:
    """The page's path with its query but without ``lang``: where the language switch returns to.

    A ``lang`` in the query would override the newly chosen language; every other parameter (a rules
    page's ``mode``, a list's filter) is the reader's choice and stays.
    """
    query = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "lang"])
    return f"{request.url.path}?{query}" if query else request.url.path


#: Pages that never ask to be come back to after logging in.
NO_WAY_BACK = ("/", "/login", "/register", "/logout", "/guest")


def back_query(request: Request) -> str:
    """``?next=<this page>`` for the login and registration links, so that logging in comes back here
    (issue 30, item 7); empty where there is nothing to come back to."""
    path = request.url.path
    if request.method != "GET" or path in NO_WAY_BACK or path.startswith("/password-reset"):
        return ""
    return "?" + urlencode({"next": path_without_lang(request)}, quote_via=quote)


def base_context(request: Request, user: UserInfo | None) -> dict[str, Any]:
    lang = lang_of(request, user)
    return {
        "request": request,
        "user": user,
        "lang": lang,
        "csrf": session_of(request).csrf,
        "path": request.url.path,
        "here": path_without_lang(request),
        "back_query": back_query(request),
        "tr": lambda key, **kw: t(key, lang, **kw),
        "trn": lambda key, n, **kw: tn(key, n, lang, **kw),
        # Every moment a person reads: in their language and time zone (`ludothek.texts.dates`).
        "fmt_date": lambda when: format_day(when, lang, reader_timezone(request, user)),
        "fmt_when": lambda when, part="datetime": moment_text(request, user, when, part),
        "fmt_time": lambda when: moment_text(request, user, when, "time"),
        "reader_tz": lambda: reader_timezone(request, user),
        "fmt_decimal": lambda value: format_decimal_1(value, lang),
        "pick": lambda texts: pick_text(texts, lang),
        # boards' counted words: plural(n, "{n} Gleis", "{n} Gleise") by the language's CLDR rule
        "plural": lambda n, one, other: plural(int(n), lang, one, other),
        "waiting": waiting_count(request, user),
    }


def moment_text(request: Request, user: UserInfo | None, when: datetime | None, part: Part = "datetime") -> str:
    """``when`` as the request's reader reads it (empty for no moment)."""
    if when is None:
        return ""
    return local_when(when, lang_of(request, user), reader_timezone(request, user), part)


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


def redirect_with_notice(request: Request, url: str, key: str, **params: Any) -> Response:
    """POST-redirect-GET: see ``url``, which shows the text ``key`` once (a reload sends nothing again)."""
    session = session_of(request)
    session.flash = (key, {k: str(v) for k, v in params.items()})
    session.dirty = True
    return redirect(request, url)


def take_notice(request: Request, lang: str) -> str | None:
    """The message a redirect left for this page (`redirect_with_notice`), once."""
    session = session_of(request)
    if session.flash is None:
        return None
    key, params = session.flash
    session.flash = None
    session.dirty = True
    return t(key, lang, **params)


def message_of(exc: StoreError, lang: str) -> str:
    key = exc.params.get("code_key") or exc.code
    text = t(f"err_{key}", lang, **exc.params)
    return exc.message if text == f"err_{key}" else text


def error_page(
    request: Request, exc: StoreError, headers: dict[str, str] | None, status: int | None = None
) -> Response:
    user = getattr(request.state, "user", None)
    if exc.params.get("code_key") == "login_needed" and request.method == "GET" and user is None:
        # A page for logged-in people, opened logged out: log in, then come back here (issue 30, item 7).
        return redirect(request, "/login" + back_query(request))
    lang = lang_of(request, user)
    response = render(request, "error.html", user, status=status or exc.status, message=message_of(exc, lang))
    if headers:
        response.headers.update(headers)
    return response
