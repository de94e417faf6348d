"""The account page: turning a guest into an account, API tokens, password, logins.

Every change here that concerns credentials is made in the database, so it
holds on every server process at once (see ``ludothek.storage.sessions``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from ludothek.storage import BadRequest, StoreError, UserInfo
from ludothek.storage.models import MAX_ID

from .context import client_address, credential_of, log_in, log_out, portal_of
from .i18n import t
from .pages import CsrfField, check_csrf, message_of, need_user, redirect, render

router = APIRouter(include_in_schema=False)


def change_password_braked(request: Request, user: UserInfo, current: str, new: str) -> None:
    """Change the password; wrong current passwords count as failed logins (the same brake).

    Otherwise a stolen session could guess the password here without limit.
    """
    portal = portal_of(request)
    address = client_address(request)
    portal.throttle.attempt(user.name, address)
    portal.site.sessions.change_password(user.id, current, new, keep=credential_of(request))
    portal.throttle.succeeded(user.name, address)


def account_page(request: Request, user: UserInfo, status: int = 200, **ctx: Any) -> Response:
    site = portal_of(request).site
    used = site.clocks.vacation_days_used(user.id, datetime.now(UTC).year)
    vacations = [(s.strftime("%Y-%m-%d %H:%M"), e.strftime("%Y-%m-%d %H:%M")) for s, e in site.clocks.vacations(user.id)]
    return render(request, "account.html", user, status=status, tokens=site.sessions.tokens(user.id),
                  sessions=site.sessions.session_count(user.id), vacation_left=f"{max(0.0, 30 - used):g}",
                  vacations=vacations, email=site.notify.email_of(user.id), prefs=site.notify.prefs(user.id), **ctx)


@router.get("/account", response_class=HTMLResponse)
def account(request: Request) -> Response:
    return account_page(request, need_user(request))


@router.post("/account/convert")
def convert(request: Request, csrf: CsrfField, name: Annotated[str, Form()], password: Annotated[str, Form()]) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        user = portal_of(request).site.sessions.convert_guest(user.id, name, password)
    except StoreError as exc:
        return account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    log_in(request, user)  # every credential of the guest has ended: this browser gets a new session
    return redirect(request, "/account")


@router.post("/account/tokens")
def new_token(request: Request, csrf: CsrfField, label: Annotated[str, Form()] = "",
              expires_in_days: Annotated[str, Form()] = "") -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        days = int(expires_in_days) if expires_in_days.strip() else None
    except ValueError:
        raise BadRequest("the expiry is a number of days", code_key="bad_expiry") from None
    try:
        token = portal_of(request).site.sessions.create_token(user.id, label, days)
    except StoreError as exc:
        return account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return account_page(request, user, new_token=token)


@router.post("/account/tokens/{token_id}/revoke")
def revoke_token(request: Request, token_id: Annotated[int, Path(ge=1, le=MAX_ID)], csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    portal_of(request).site.sessions.revoke_token(user.id, token_id)
    return redirect(request, "/account")


@router.post("/account/password")
def change_password(request: Request, csrf: CsrfField, current: Annotated[str, Form()],
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
    return account_page(request, user, notice=t("password_changed", user.lang))


@router.post("/account/logout-everywhere")
def logout_everywhere(request: Request, csrf: CsrfField) -> Response:
    check_csrf(request, csrf)
    user = need_user(request)
    portal_of(request).site.sessions.end_sessions(user.id)
    log_out(request)
    return redirect(request, "/")


@router.post("/account/vacation")
def declare_vacation(request: Request, csrf: CsrfField, days: Annotated[str, Form()]) -> Response:
    """An absence from now on: the user's clocks pause while it lasts."""
    check_csrf(request, csrf)
    user = need_user(request)
    try:
        amount = float(days)
        portal_of(request).site.clocks.declare_vacation(user, amount)
    except ValueError:
        return account_page(request, user, status=400, error=t("vacation_days", user.lang) + ": 1–30")
    except StoreError as exc:
        return account_page(request, user, status=exc.status, error=message_of(exc, user.lang))
    return redirect(request, "/account")
