"""The request dependencies every route shares (the FastAPI "dependencies" module).

The portal object of a request, the current user (optional or required, for pages and for the API),
the CSRF check and field, the language, the session cookie's contents, the admission of live sockets,
and the ``Annotated`` parameter types routes declare (`GameId`, `Lang`, `User`, `MaybeUser`).
A leaf inside the portal: it imports no route module and nothing that renders.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Depends, Form, Path, Query, Request, WebSocket
from fastapi.templating import Jinja2Templates
from starlette.responses import Response

from ludothek.services import Site
from ludothek.services.sessions import Credential
from ludothek.storage import StoreError, Unauthorized, UserInfo
from ludothek.storage.models import MAX_ID
from ludothek.texts import choose_lang

from .contract import AUTH_OPTIONAL, AUTH_REQUIRED
from .limits import LoginBrake, RateLimits, SocketCounter
from .live.dbwatch import DatabaseWatch
from .live.hub import Hub
from .observe import Metrics
from .offload import Offload
from .sessions import COOKIE, SESSION_MAX_AGE, Session, SessionCodec, csrf_ok, new_csrf
from .settings import Settings

if TYPE_CHECKING:
    from ludothek.workers.bots import BotWorker
    from ludothek.workers.channels.push import PushChannel
    from ludothek.workers.mail_links import MailLinks
    from ludothek.workers.notices import NoticeRunners

#: A game id in a path: bounded like the column (int4 on PostgreSQL), so an id beyond it is
#: "no such game" (404) on every route instead of a driver's overflow error.
GameId = Annotated[int, Path(ge=1, le=MAX_ID, description="the game's id")]


Lang = Annotated[Literal["de", "en"] | None, Query(description="language of texts; default: the user's")]


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
    #: The in-process notice worker (``None``: another process sends).
    mail: NoticeRunners | None = None
    #: The notification channels this deployment runs, in order (the account page lists their kinds).
    channels: list[str] = field(default_factory=list)
    #: Where the async handlers' store calls run (`ludothek.portal.offload`).
    offload: Offload = field(default_factory=lambda: Offload(0))
    #: The operator's figures (``/metrics``) and who may read them.
    metrics: Metrics | None = None
    metrics_allow: tuple[Any, ...] = ()
    #: Without Redis: the look into the database for moves other processes stored (bot workers).
    dbwatch: DatabaseWatch | None = None
    #: The Web Push channel (``None``: ``Settings.push`` is off).
    push: PushChannel | None = None
    #: CPU seconds the start-up's warm-up spent (`ludothek.portal.warmup`; ``None``: none ran).
    warm_up_seconds: float | None = None


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


def log_in(request: Request, user: UserInfo, gen: int | None = None) -> None:
    """Start a new server-side session for ``user`` in this browser (ending the one it had).

    ``gen``: the credentials generation read with the password the login checked; the session is
    created only if it is still current (`ludothek.services.sessions.claim_user`).
    """
    site = portal_of(request).site
    session = session_of(request)
    new_sid = site.sessions.open_session(user.id, gen)
    if session.sid is not None:
        site.sessions.end_session(session.sid)
    session.sid = new_sid
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


# ----------------------------------------------------------------------------- the current user in the API
class CsrfError(StoreError):
    status = 403
    code = "csrf"


async def api_user(request: Request) -> UserInfo:
    """The calling user; 401 if none.  Cookie-authenticated writes must carry the CSRF header.

    A user already looked up for this request (a route with a body checks credentials before it
    reads the body: `ludothek.portal.jsonroute`) is checked again without a trip to the store's thread.
    """
    if hasattr(request.state, "user"):
        return authenticated(request)
    return await portal_of(request).offload(authenticated, request)


def authenticated(request: Request) -> UserInfo:
    """`api_user`'s check, where the store may be called (a database thread on PostgreSQL)."""
    user = current_user(request)
    if user is None:
        raise Unauthorized("log in or send an API token (Authorization: Bearer ...)", code_key="login_needed")
    unsafe = request.method not in ("GET", "HEAD", "OPTIONS") and not request.state.via_token
    if unsafe and not csrf_ok(session_of(request), request.headers.get("x-csrf-token")):
        raise CsrfError("missing or wrong X-CSRF-Token header", code_key="csrf")
    return user


User = Annotated[UserInfo, Depends(api_user)]

AUTH_REQUIRED.add(api_user)


async def optional_user(request: Request) -> UserInfo | None:
    return await portal_of(request).offload(current_user, request)


MaybeUser = Annotated[UserInfo | None, Depends(optional_user)]

AUTH_OPTIONAL.add(optional_user)


# ----------------------------------------------------------------------------- the current user and CSRF in pages
class CsrfRefused(StoreError):
    status = 403
    code = "csrf"


class LoginNeeded(StoreError):
    status = 401
    code = "unauthorized"


def check_csrf(request: Request, token: str | None) -> None:
    if not csrf_ok(session_of(request), token or request.headers.get("x-csrf-token")):
        raise CsrfRefused("the form has expired (CSRF); reload the page", code_key="csrf")


def need_user(request: Request) -> UserInfo:
    user = current_user(request)
    if user is None:
        raise LoginNeeded("log in first", code_key="login_needed")
    return user


CsrfField = Annotated[str, Form()]


# ----------------------------------------------------------------------------- live sockets: who may open one
def _same_origin(websocket: WebSocket) -> bool:
    origin = websocket.headers.get("origin")
    host = websocket.headers.get("host")
    return origin is None or host is None or origin.split("://", 1)[-1] == host


def _user_of(websocket: WebSocket) -> UserInfo | None:
    portal = portal_of(websocket)
    token = websocket.query_params.get("token") or bearer_token(websocket)
    if token:
        return portal.site.sessions.user_by_token(token)
    session = portal.codec.load(websocket.cookies.get(COOKIE))
    return portal.site.sessions.session_user(session.sid) if session.sid is not None else None


async def admit(websocket: WebSocket) -> tuple[UserInfo, str] | None:
    """The socket's user and address, counted against the caps; None (and the socket closed) if refused.

    1008: a foreign origin, or nobody logged in; 1013: too many live sockets (of the user, of the
    address, or of the whole process: `SocketCounter`).
    The caller must `release` an admitted socket when it ends.
    """
    if not _same_origin(websocket):
        await websocket.close(code=1008)
        return None
    if portal_of(websocket).sockets.full():  # before any other work: the server is at its cap
        await refuse_socket(websocket, PROCESS_FULL)
        return None
    user = await portal_of(websocket).offload(_user_of, websocket)
    if user is None:
        # Live updates need a session or a token (a spectator who is not logged in reloads instead).
        await refuse_socket(websocket, "log in to follow games live", code=1008)
        return None
    address = websocket.client.host if websocket.client else "?"
    portal = portal_of(websocket)
    portal.site.social.touch(user.id)
    if not portal.sockets.open(user.id, address):
        await refuse_socket(websocket, PROCESS_FULL if portal.sockets.full() else USER_FULL)
        return None
    if portal.metrics is not None:
        portal.metrics.sockets.inc()
    websocket.state.user = user  # the access log names the user by id
    return user, address


#: Why a socket is refused, in its close frame (1013 "try again later"; at most 123 bytes).
PROCESS_FULL = "the server holds as many live connections as it can; try again later"
USER_FULL = "too many live connections; close another tab"


async def refuse_socket(websocket: WebSocket, reason: str, code: int = 1013) -> None:
    """Close with ``code`` and ``reason``.  Accepted first: a socket closed before its handshake is
    answered with a bare HTTP 403, and the client would never see the code or the reason (the page's
    script waits longer after 1013 and stops after 1008).  Foreign origins get the bare 403."""
    with contextlib.suppress(Exception):
        await websocket.accept()
        await websocket.close(code=code, reason=reason)


def release(websocket: WebSocket, admitted: tuple[UserInfo, str]) -> None:
    portal = portal_of(websocket)
    portal.sockets.close(admitted[0].id, admitted[1])
    if portal.metrics is not None:
        portal.metrics.sockets.dec()
