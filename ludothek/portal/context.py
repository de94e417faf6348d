"""Per-request helpers shared by pages and the API: the portal object, the user, the language."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import Response

from ludothek.storage import Store, UserInfo

from .botrunner import BotRunner
from .i18n import choose_lang
from .live import Hub
from .security import COOKIE, SESSION_MAX_AGE, LoginThrottle, Session, SessionCodec
from .settings import Settings


@dataclass
class Portal:
    settings: Settings
    store: Store
    hub: Hub
    bots: BotRunner
    templates: Jinja2Templates
    codec: SessionCodec
    throttle: LoginThrottle


def portal_of(request: Any) -> Portal:
    portal: Portal = request.app.state.portal
    return portal


def session_of(request: Request) -> Session:
    """The request's session (decoded once, cached on the request)."""
    cached = getattr(request.state, "session", None)
    if cached is None:
        cached = portal_of(request).codec.load(request.cookies.get(COOKIE))
        request.state.session = cached
    return cached


def bearer_token(request: Any) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip() or None
    return None


def current_user(request: Request) -> UserInfo | None:
    """The user behind an API token, or else behind the session cookie (cached per request)."""
    if hasattr(request.state, "user"):
        user: UserInfo | None = request.state.user
        return user
    portal = portal_of(request)
    token = bearer_token(request)
    user = None
    if token is not None:
        user = portal.store.user_by_token(token)
        request.state.via_token = True
    else:
        request.state.via_token = False
        session = session_of(request)
        if session.uid is not None:
            user = portal.store.user(session.uid)
            if user is None:  # expired guest or deleted user: forget it
                session.uid = None
                session.dirty = True
    request.state.user = user
    return user


def lang_of(request: Request, user: UserInfo | None = None) -> str:
    if user is not None:
        return user.lang
    if bearer_token(request) is None:
        session = session_of(request)
        if session.lang:
            return session.lang
    query = request.query_params.get("lang")
    if query in ("de", "en"):
        return query
    return choose_lang(request.headers.get("accept-language"))


def save_session(request: Request, response: Response) -> Response:
    """Set the session cookie on ``response`` if the session changed."""
    session = getattr(request.state, "session", None)
    if session is not None and session.dirty:
        portal = portal_of(request)
        response.set_cookie(
            COOKIE,
            portal.codec.dump(session),
            max_age=SESSION_MAX_AGE,
            httponly=True,
            samesite="lax",
            secure=portal.settings.secure_cookies,
            path="/",
        )
    return response
