"""Accounts: register, log in and out, guests, API tokens, who I am, the password, the account page, the language.

Every change here that concerns credentials is made in the database, so it
holds on every server process at once (see ``ludothek.storage.sessions``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, Path, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from ludothek import engine as eng
from ludothek.services.handover import GRACE_CHOICES
from ludothek.services.sessions import TokenInfo
from ludothek.storage import BadRequest, StoreError, Unauthorized, UserInfo
from ludothek.storage.models import MAX_ID

from .. import apimodels as m
from ..apibodies import Credentials, PasswordChange, PasswordConfirm, PlaySettingsIn, Registration
from ..contract import DEFAULT_LIMIT, Cursor, Limit, paginate, refusals
from ..deps import (
    CsrfField,
    Lang,
    User,
    check_csrf,
    client_address,
    credential_of,
    current_user,
    lang_of,
    log_in,
    log_out,
    need_user,
    portal_of,
    session_of,
)
from ..hardening import local_path
from ..jsonroute import BoundedRoute
from ..pushview import push_section
from ..render import message_of, redirect, redirect_with_notice, render, take_notice
from ..webhook_view import hook_views
from .opendata import export_section

pages = APIRouter(route_class=BoundedRoute, include_in_schema=False)
api = APIRouter(route_class=BoundedRoute, tags=["api"])


# ----------------------------------------------------------------------------- pages
#: Where the login, registration and guest forms send the browser afterwards (a path on this site).
NextField = Annotated[str, Form(max_length=2000)]


def return_path(target: str | None) -> str:
    """The page to come back to after logging in: ``target`` if it is a path on this site, else ``/``.

    Never the login pages themselves (a loop), and never anything `local_path` refuses (another
    host, a scheme, backslashes, control characters).
    """
    path = local_path(target or "/")
    return "/" if path.split("?", 1)[0] in ("/login", "/register", "/logout", "/guest") else path


@pages.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str = "/") -> Response:
    return render(request, "login.html", current_user(request), mode="login", next=return_path(next))


@pages.get("/register", response_class=HTMLResponse)
def register_form(request: Request, next: str = "/") -> Response:
    return render(request, "login.html", current_user(request), mode="register", next=return_path(next))


@pages.post("/login")
def login(request: Request, csrf: CsrfField, name: Annotated[str, Form()], password: Annotated[str, Form()],
          next: NextField = "/") -> Response:
    check_csrf(request, csrf)
    portal = portal_of(request)
    address = client_address(request)
    try:
        portal.throttle.attempt(name, address)  # counted before the check: bursts cannot slip past
        user, gen = portal.site.accounts.check_login(name, password)
        log_in(request, user, gen)  # refused if the password changed since it was checked
    except StoreError as exc:
        status = exc.status
        response = render(request, "login.html", None, status=status, mode="login", name=name,
                          error=message_of(exc, lang_of(request)), next=return_path(next))
        if status == 429:
            response.headers["Retry-After"] = str(exc.params.get("seconds", 1))
        return response
    portal.throttle.succeeded(name, address)
    return redirect(request, return_path(next))


@pages.post("/register", name="register")
def register_submit(request: Request, csrf: CsrfField, name: Annotated[str, Form()], password: Annotated[str, Form()],
                    next: NextField = "/") -> Response:
    check_csrf(request, csrf)
    portal = portal_of(request)
    site = portal.site
    lang = lang_of(request)
    try:
        portal.limits.hit("register", client_address(request))
        user = site.accounts.register(name, password, lang)
    except StoreError as exc:
        return render(request, "login.html", None, status=exc.status, mode="register", name=name,
                      error=message_of(exc, lang), next=return_path(next))
    log_in(request, user)
    return redirect(request, return_path(next))


@pages.post("/guest", name="guest")
def guest_form(request: Request, csrf: CsrfField, next: NextField = "/") -> Response:
    check_csrf(request, csrf)
    portal = portal_of(request)
    portal.limits.hit("guest", client_address(request))
    user = portal.site.accounts.create_guest(lang_of(request))
    log_in(request, user)
    return redirect(request, return_path(next))


@pages.post("/logout")
def logout(request: Request, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    log_out(request)
    return redirect(request, "/")


@pages.post("/lang")
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


# ----------------------------------------------------------------------------- the account page
def change_password_braked(request: Request, user: UserInfo, current: str, new: str) -> None:
    """Change the password; wrong current passwords count as failed logins (the same brake).

    Otherwise a stolen session could guess the password here without limit.
    """
    portal = portal_of(request)
    address = client_address(request)
    portal.throttle.attempt(user.name, address)
    portal.site.sessions.change_password(user.id, current, new, keep=credential_of(request))
    portal.throttle.succeeded(user.name, address)


def confirm_password_braked(request: Request, user: UserInfo, password: str | None) -> None:
    """Ask for the current password before a sensitive change (address, tokens, password).

    A stolen session or token alone must not be able to take the account over.  A wrong password
    counts as a failed login for the login brake.  Guests have no password and nothing the check
    could protect beyond what their session already is: they pass without one.
    """
    if user.is_guest:
        return
    if not password:
        raise Unauthorized("this change needs your current password", code_key="password_needed")
    portal = portal_of(request)
    address = client_address(request)
    portal.throttle.attempt(user.name, address)
    portal.site.accounts.confirm_password(user.id, password)
    portal.throttle.succeeded(user.name, address)


def account_page(request: Request, user: UserInfo, status: int = 200, **ctx: Any) -> Response:
    site = portal_of(request).site
    used = site.clocks.vacation_days_used(user.id, datetime.now(UTC).year)
    vacations = site.clocks.vacations(user.id)
    prefs = site.notify.prefs(user.id)
    return render(request, "account.html", user, status=status, tokens=site.sessions.tokens(user.id),
                  sessions=site.sessions.session_count(user.id), vacation_left=f"{max(0.0, 30 - used):g}",
                  vacations=vacations, email=site.notify.email_of(user.id), prefs=prefs,
                  webhooks=hook_views(site.webhooks.hooks(user.id), user.lang, prefs.timezone),
                  webhook_limit=site.webhooks.policy.max_per_user,
                  grace=site.play.grace_setting(user.id), grace_choices=GRACE_CHOICES,
                  default_grace=site.play.default_grace, **push_section(request, user),
                  notice_channels=notice_channels(site, user, portal_of(request).channels),
                  **export_section(request, user), **ctx)


def notice_channels(site: Any, user: UserInfo, running: list[str]) -> list[dict[str, Any]]:
    """The account page's choices per channel that runs here (`_notice_prefs.html`).

    Mail's turn, invitation and end-of-game choices are the mail settings above them, so they are not
    repeated; a guest, who has no address, sees no mail choices.
    """
    from ludothek.services.notices.kinds import CHANNELS
    from ludothek.services.notices.prefs import MAIL_MAPPED

    table = site.notices.table(user.id)
    shown = []
    for name in running:
        info = CHANNELS.get(name)
        if info is None or (name == "mail" and user.is_guest):
            continue
        kinds = [k for k in info.kinds if not (name == "mail" and k in MAIL_MAPPED)]
        shown.append({"name": name, "kinds": kinds, "table": table.get(name, {})})
    return shown


@pages.get("/account", response_class=HTMLResponse)
def account(request: Request) -> Response:
    user = need_user(request)
    # The message a form's redirect left (POST-redirect-GET), shown once.
    return account_page(request, user, notice=take_notice(request, user.lang))


@pages.post("/account/convert")
def convert(request: Request, csrf: CsrfField, name: Annotated[str, Form()], password: Annotated[str, Form()]) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        user = portal_of(request).site.sessions.convert_guest(user.id, name, password)
    except StoreError as exc:
        return account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    log_in(request, user)  # every credential of the guest has ended: this browser gets a new session
    return redirect(request, "/account")


def refused_page(request: Request, user: UserInfo, exc: StoreError) -> Response:
    """The account page with the refusal (and ``Retry-After`` while the login brake holds)."""
    response = account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    if exc.status == 429:
        response.headers["Retry-After"] = str(exc.params.get("seconds", 1))
    return response


@pages.post("/account/tokens")
def new_token(request: Request, csrf: CsrfField, label: Annotated[str, Form()] = "",
              expires_in_days: Annotated[str, Form()] = "", password: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        days = int(expires_in_days) if expires_in_days.strip() else None
    except ValueError:
        raise BadRequest("the expiry is a number of days", code_key="bad_expiry") from None
    try:
        confirm_password_braked(request, user, password)
        token = portal_of(request).site.sessions.create_token(user.id, label, days)
    except StoreError as exc:
        return refused_page(request, user, exc)
    # The token is shown this once, so this page is the POST's answer (never a cookie or an address
    # holding the token); the page swaps its address for /account in the history (ludothek.js), so
    # that a reload asks for nothing again.
    return account_page(request, user, new_token=token, replace_url="/account")


@pages.post("/account/tokens/{token_id}/revoke", name="revoke_token")
def revoke_token_form(request: Request, token_id: Annotated[int, Path(ge=1, le=MAX_ID)], csrf: CsrfField,
                      password: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        confirm_password_braked(request, user, password)
    except StoreError as exc:
        return refused_page(request, user, exc)
    portal_of(request).site.sessions.revoke_token(user.id, token_id)
    return redirect(request, "/account")


@pages.post("/account/password", name="change_password")
def change_password_form(request: Request, csrf: CsrfField, current: Annotated[str, Form()],
                         new: Annotated[str, Form()]) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        change_password_braked(request, user, current, new)
    except StoreError as exc:
        response = account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
        if exc.status == 429:
            response.headers["Retry-After"] = str(exc.params.get("seconds", 1))
        return response
    return redirect_with_notice(request, "/account", "password_changed")


@pages.post("/account/logout-everywhere", name="logout_everywhere")
def logout_everywhere_form(request: Request, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    portal_of(request).site.sessions.end_sessions(user.id)
    log_out(request)
    return redirect(request, "/")


# ----------------------------------------------------------------------------- JSON API
def user_json(user: UserInfo) -> dict[str, Any]:
    return {
        "id": user.id,
        "name": user.name,
        "guest": user.is_guest,
        "lang": user.lang,
        "guest_expires_at": user.guest_expires_at.isoformat() if user.guest_expires_at else None,
    }


@api.post("/users", status_code=201, response_model=m.TokenOut, responses=refusals(409, 429),
          summary="Register and get an API token")
def register(body: Registration, request: Request) -> dict[str, Any]:
    """400 for a name or password the site does not accept, 409 when the name is taken."""
    portal = portal_of(request)
    site = portal.site
    portal.limits.hit("register", client_address(request))
    user = site.accounts.register(body.name, body.password, body.lang)
    return {"token": site.sessions.create_token(user.id, "api registration"), "user": user_json(user)}


@api.post("/guests", status_code=201, response_model=m.TokenOut, responses=refusals(429),
          summary="A 24-hour guest account")
async def guest(request: Request, lang: Lang = None) -> dict[str, Any]:
    portal = portal_of(request)
    site = portal.site

    def make_guest() -> dict[str, Any]:
        portal.limits.hit("guest", client_address(request))
        user = site.accounts.create_guest(lang or "en")
        return {"token": site.sessions.create_token(user.id, "guest"), "user": user_json(user)}

    return await portal.offload(make_guest)


@api.post("/tokens", status_code=201, response_model=m.TokenOut, responses=refusals(401, 403, 429),
          summary="Log in: a new API token")
def token(body: Credentials, request: Request) -> dict[str, Any]:
    """401 for a wrong name or password, 403 for a blocked account, 429 while the login brake holds."""
    portal = portal_of(request)
    address = client_address(request)
    portal.throttle.attempt(body.name, address)  # counted before the check: bursts cannot slip past
    user, gen = portal.site.accounts.check_login(body.name, body.password)
    # Created only if the password checked is still the password (a change meanwhile: 401).
    token = portal.site.sessions.create_token(user.id, body.label, body.expires_in_days, gen=gen)
    portal.throttle.succeeded(body.name, address)
    return {"token": token, "user": user_json(user)}


@api.get("/me", response_model=m.UserOut, summary="Who I am")
async def me(user: User) -> dict[str, Any]:
    return user_json(user)


def play_settings(request: Request, user_id: int) -> dict[str, Any]:
    chosen, in_force = portal_of(request).site.play.grace_setting(user_id)
    return {"handover_seconds": chosen, "in_force": in_force, "choices": list(GRACE_CHOICES)}


@api.get("/me/play", response_model=m.PlaySettingsOut, summary="My play settings: how long my turns wait")
def get_play_settings(request: Request, user: User) -> dict[str, Any]:
    """How long my ended turns wait for my confirmation before they are handed on (docs/portal.md, "Undo")."""
    return play_settings(request, user.id)


@api.put("/me/play", response_model=m.PlaySettingsOut, summary="Change how long my turns wait for my confirmation")
def put_play_settings(body: PlaySettingsIn, request: Request, user: User) -> dict[str, Any]:
    """``handover_seconds``: 0, 5, 10 or 30 (0: hand on at once), or null for the site's default."""
    portal_of(request).site.play.set_grace(user.id, body.handover_seconds)
    return play_settings(request, user.id)


@pages.post("/account/play")
def set_play_settings(request: Request, csrf: CsrfField, handover_seconds: Annotated[str, Form()]) -> Response:
    """The account page's choice of how long a turn waits for my confirmation."""
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        try:
            seconds: Any = None if handover_seconds == "default" else int(handover_seconds)
        except ValueError:
            seconds = handover_seconds
        portal_of(request).site.play.set_grace(user.id, seconds)
    except StoreError as exc:
        return account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return redirect_with_notice(request, "/account", "handover_saved")


def token_json(t: TokenInfo) -> dict[str, Any]:
    return {
        "id": t.id,
        "label": t.label,
        "created_at": t.created_at.isoformat(),
        "last_used_at": t.last_used_at.isoformat() if t.last_used_at else None,
        "expires_at": t.expires_at.isoformat() if t.expires_at else None,
    }


@api.get("/tokens", response_model=m.TokenPage,
         summary="My API tokens, newest first (label, creation, last use, expiry; never the token itself)")
async def list_tokens(request: Request, user: User, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
                      ) -> dict[str, Any]:
    tokens = sorted(portal_of(request).site.sessions.tokens(user.id), key=lambda t: t.id, reverse=True)
    page = paginate(tokens, lambda t: (t.id,), limit, cursor, descending=True)
    return {"items": [token_json(t) for t in page["items"]], "next_cursor": page["next_cursor"]}


@api.delete("/tokens/{token_id}", status_code=204, responses=refusals(401, 429),
            summary="Revoke one of my API tokens at once; needs my current password (guests: none)")
def revoke_token(
    token_id: Annotated[int, Path(ge=1, le=MAX_ID)], request: Request, user: User,
    body: Annotated[PasswordConfirm | None, Body()] = None,
) -> Response:
    """401 without the right current password (it counts as a failed login)."""
    confirm_password_braked(request, user, body.password if body is not None else None)
    portal_of(request).site.sessions.revoke_token(user.id, token_id)
    return Response(status_code=204)


@api.post("/password", status_code=204, responses=refusals(429),
          summary="Change my password; every other session and API token ends")
def change_password(body: PasswordChange, request: Request, user: User) -> Response:
    """400 for a new password the site does not accept, 401 for a wrong current one."""
    change_password_braked(request, user, body.current, body.new)
    return Response(status_code=204)


@api.post("/logout-everywhere", status_code=204,
          summary="End every browser session and revoke every API token of mine, this one too")
async def logout_everywhere(request: Request, user: User) -> Response:
    portal_of(request).site.sessions.end_sessions(user.id)
    return Response(status_code=204)
