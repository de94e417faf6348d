"""Per-request helpers shared by pages and the API: the portal object, the user, the language."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Path, Request
from fastapi.templating import Jinja2Templates
from starlette.responses import Response

from ludothek.services import Site
from ludothek.services.sessions import Credential
from ludothek.storage import UserInfo
from ludothek.storage.models import MAX_ID

from .i18n import choose_lang
from .limits import LoginBrake, RateLimits, SocketCounter
from .live import Hub
from .offload import Offload
from .sessions import COOKIE, SESSION_MAX_AGE, Session, SessionCodec, new_csrf
from .settings import Settings

if TYPE_CHECKING:  # the mail worker imports portal helpers: no import cycle at run time
    from ludothek.portal.dbwatch import DatabaseWatch
    from ludothek.portal.observe import Metrics
    from ludothek.workers.bots import BotWorker
    from ludothek.workers.mail_links import MailLinks
    from ludothek.workers.runner import Runner

#: A game id in a path: bounded like the column (int4 on PostgreSQL), so an id beyond it is
#: "no such game" (404) on every route instead of a driver's overflow error.
GameId = Annotated[int, Path(ge=1, le=MAX_ID, description="the game's id")]


@dataclass
class Portal:
    settings: Settings
    site: Site
    hub: Hub
    #: Bot turns played in this process (``Settings.bots_in_process``: tests); ``None``: by bot workers.
    bots: BotWorker | None
    templates: Jinja2Templates
    codec: SessionCodec
    throttle: LoginBrake
    limits: RateLimits
    sockets: SocketCounter

    #: Signed links in mails (verification, reset, unsubscribe).
    links: MailLinks | None = None
    #: The in-process mail sender (``None``: another process sends).
    mail: Runner | None = None
    #: Where the async handlers' store calls run (`ludothek.portal.offload`).
    offload: Offload = field(default_factory=lambda: Offload(0))
    #: The operator's figures (``/metrics``) and who may read them.
    metrics: Metrics | None = None
    metrics_allow: tuple[Any, ...] = ()
    #: Without Redis: the look into the database for moves other processes stored (bot workers).
    dbwatch: DatabaseWatch | None = None

def client_address(request: Any) -> str:
    """The client's address, as the key of per-address limits."""
    return request.client.host if request.client else "?"


def limit_per_user_and_address(request: Any, user: UserInfo, kind: str) -> None:
    """Count one ``kind`` ("game", "move", "chat") for the user and for the address; 429 past either limit.

    The counters are shared by every server process when Redis is configured (`RateLimits`).
    """
    limits = portal_of(request).limits
    limits.hit(f"{kind}_user", str(user.id))
    limits.hit(f"{kind}_addr", client_address(request))


def limit_game_creation(request: Any, user: UserInfo) -> None:
    """Count one new game for the user and for the address; 429 past either limit."""
    limit_per_user_and_address(request, user, "game")


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
        user = portal.site.sessions.user_by_token(token)
        request.state.via_token = True
    else:
        request.state.via_token = False
        session = session_of(request)
        if session.sid is not None:
            user = portal.site.sessions.session_user(session.sid)
            if user is None:  # ended, expired, an expired guest or a deleted user: forget it
                session.sid = None
                session.dirty = True
    if user is not None:
        portal.site.social.touch(user.id)  # last activity, as friends see it (written every few minutes at most)
    request.state.user = user
    return user


def credential_of(request: Request) -> Credential:
    """The credential this request came with (a change to the account keeps exactly that one)."""
    token = bearer_token(request)
    if token is not None:
        return Credential(token=token)
    return Credential(session=session_of(request).sid)


def log_in(request: Request, user: UserInfo) -> None:
    """Start a new server-side session for ``user`` in this browser (ending the one it had)."""
    site = portal_of(request).site
    session = session_of(request)
    if session.sid is not None:
        site.sessions.end_session(session.sid)
    session.sid = site.sessions.open_session(user.id)
    session.lang = user.lang
    session.csrf = new_csrf()  # a new CSRF secret with every login
    session.dirty = True
    request.state.user = user


def log_out(request: Request) -> None:
    """End this browser's session on the server: a copy of the cookie stops working too."""
    session = session_of(request)
    if session.sid is not None:
        portal_of(request).site.sessions.end_session(session.sid)
    session.sid = None
    session.csrf = new_csrf()
    session.dirty = True
    request.state.user = None


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
