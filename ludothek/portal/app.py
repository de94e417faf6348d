"""The application factory: `create_app(settings)` wires storage, live updates, bots, pages and API."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from ludothek.storage import NotFound, Store, StoreError, make_engine, migrate
from ludothek.workers.clocks import ClockJob
from ludothek.workers.mail_links import MailLinks
from ludothek.workers.runner import Runner

from . import account, api, helppages, notify, pages
from .bodylimit import BodyLimit
from .botrunner import BotRunner
from .connections import with_request_deadline
from .context import GameId, Portal, portal_of
from .hardening import SecurityHeaders
from .limits import (
    DEFAULT_RULES,
    GatedHasher,
    HashGate,
    LoginBrake,
    RateLimits,
    SocketCounter,
    raise_open_file_limit,
)
from .live import Hub, RedisHub
from .sessions import SessionCodec
from .settings import Settings
from .sockets import admit, relay, release

if TYPE_CHECKING:  # the mail worker uses portal helpers: imported where needed, never in a cycle
    from ludothek.workers.mail import MailJob

PACKAGE = resources.files("ludothek.portal")


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


def create_app(settings: Settings | None = None) -> FastAPI:
    """A complete portal for ``settings`` (migrates the database first)."""
    settings = settings or Settings()
    engine = make_engine(settings.db_url)
    migrate(engine)
    hasher = GatedHasher(settings.hasher, HashGate(settings.hash_concurrency, settings.hash_queue))
    store = Store(engine, cache_size=settings.cache_size, hasher=hasher)
    store.max_open_games = settings.max_open_games
    store.lobby_per_creator = settings.lobby_per_creator
    secret = settings.secret_key or store.meta("session_secret", lambda: secrets.token_urlsafe(48))
    # The signing secret is shared by every server of a deployment (it lives in the database).
    hub: Hub = RedisHub(settings.redis_url, deployment=secret) if settings.redis_url else Hub()
    bots = BotRunner(store, delay=settings.bot_delay)
    store.listeners.append(hub.publish)
    store.listeners.append(bots.on_event)
    templates = Jinja2Templates(directory=str(PACKAGE / "templates"))
    # Rate-limit counters are shared through Redis when it is configured (one brake for all servers),
    # in a namespace of this deployment's own (its signing secret and database).
    namespace = "ludothek:" + hashlib.sha256(f"{secret} {settings.db_url}".encode()).hexdigest()[:16]
    limits = RateLimits(settings.redis_url, {**DEFAULT_RULES, **settings.limit_rules},
                        enabled=settings.rate_limits, namespace=namespace)
    portal = Portal(settings, store, hub, bots, templates, SessionCodec(secret), LoginBrake(limits), limits,
                    SocketCounter(settings.sockets_per_user, settings.sockets_per_address))
    store.listeners.append(notify.turn_listener(store, hub))
    portal.links = MailLinks(secret, settings.base_url)
    mail_job = make_mail_job(settings, store, portal.links)
    if settings.mail_interval > 0:
        # The sender runs in a runner of its own, so a verification or reset mail can wake it at once.
        portal.mail = Runner([mail_job], interval=settings.mail_interval)

    # Background jobs (clocks) run in a thread of their own, never on the event loop.
    app_jobs = Runner([ClockJob(store)], interval=settings.jobs_interval)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store.purge_expired_guests()
        store.purge_expired_sessions()
        await hub.start()
        if settings.jobs_interval > 0:
            app_jobs.start()
        bots.start()
        if portal.mail is not None:
            portal.mail.start()
        try:
            yield
        finally:
            if portal.mail is not None:
                await asyncio.to_thread(portal.mail.stop)
            app_jobs.stop()
            bots.stop()
            await hub.stop()
            engine.dispose()

    app = FastAPI(
        title="Ludothek",
        description="Asynchronous turn-based board games: the JSON API. "
        "Authenticate with `Authorization: Bearer <token>` (see POST /api/tokens).",
        version="1",
        lifespan=lifespan,
    )
    app.state.portal = portal
    app.state.mail_job = mail_job
    app.state.jobs = app_jobs
    app.add_middleware(SecurityHeaders, hsts=settings.secure_cookies)
    # Outermost: an oversized body is refused before anything reads it.
    app.add_middleware(BodyLimit, api=settings.max_body_api, form=settings.max_body_form)
    pages.setup_templates(templates)
    app.mount("/static", StaticFiles(directory=str(PACKAGE / "static")), name="static")
    app.include_router(api.router)
    app.include_router(helppages.router)  # before pages: /games/<kind> must not meet /games/{game_id}
    app.include_router(pages.router)
    app.include_router(account.router)
    app.include_router(notify.pages)
    app.include_router(notify.api)
    # Routes are matched in order: the two requests every move makes are tried first.
    hot = {"/api/games/{game_id}/actions", "/api/games/{game_id}"}
    app.router.routes.sort(key=lambda r: 0 if getattr(r, "path", None) in hot else 1)

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> Response:
        headers = {"Retry-After": str(exc.params["seconds"])} if exc.status == 429 else None
        if _wants_json(request):
            return JSONResponse({"detail": exc.message, "code": exc.code}, status_code=exc.status, headers=headers)
        return pages.error_page(request, exc, headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        errors = exc.errors()
        if errors and all(e.get("loc", ("",))[0] == "path" for e in errors):
            # An id no game (or token) can have: the same answer as for one that does not exist.
            return await store_error(request, NotFound(f"there is nothing at {request.url.path}"))
        if any(e.get("type") == "json_invalid" for e in errors):
            return JSONResponse({"detail": "malformed JSON in the request body", "code": "malformed"}, 400)
        parts = []
        for e in errors:
            where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
            parts.append(f"{where or 'body'}: {e.get('msg')}")
        return JSONResponse({"detail": "malformed request: " + "; ".join(parts), "code": "malformed"}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if _wants_json(request):
            return JSONResponse({"detail": exc.detail, "code": "http"}, exc.status_code)
        return pages.error_page(request, StoreError(str(exc.detail)), None, status=exc.status_code)

    @app.websocket("/live/me")
    async def live_me(websocket: WebSocket) -> None:
        await notify.user_socket(websocket)

    @app.websocket("/games/{game_id}/live")
    @app.websocket("/api/games/{game_id}/live")
    async def live(websocket: WebSocket, game_id: GameId) -> None:
        await live_socket(websocket, game_id)

    return app


async def live_socket(websocket: WebSocket, game_id: int) -> None:
    """Send ``{"type": "update", "seq": ...}`` whenever the game moves; the client fetches its own view."""
    admitted = await admit(websocket)
    if admitted is None:
        return
    portal = portal_of(websocket)
    queue = None
    try:
        try:
            # The store is called directly, as in the API: a short read, no thread pool contending for the GIL.
            info = portal.store.game(game_id)
        except StoreError:
            await websocket.close(code=1008)
            return
        queue = portal.hub.watch(game_id)
        user = admitted[0]
        await relay(websocket, queue, {"type": "hello", "game": game_id, "seq": info.seq, "status": info.status,
                                       "seat": info.seat_of(user.id)})
    finally:
        if queue is not None:
            portal.hub.unwatch(game_id, queue)
        release(websocket, admitted)


def make_mail_job(settings: Settings, store: Store, links: MailLinks) -> MailJob:
    """The mail sender for ``settings``: SMTP when ``smtp_url`` is set, else ``.eml`` files (for the runner too)."""
    from ludothek.workers.mail import FileTransport, MailJob, SmtpTransport, Transport

    transport: Transport = SmtpTransport(settings.smtp_url) if settings.smtp_url else FileTransport(settings.mail_dir)
    return MailJob(store, links, transport, sender=settings.mail_from)


def serve(db_url: str, host: str = "127.0.0.1", port: int = 8000, **overrides: Any) -> None:
    """Start the portal with uvicorn (``ludothek serve`` calls this)."""
    import uvicorn

    settings = Settings.from_env(db_url)
    for key, value in overrides.items():
        setattr(settings, key, value)
    if not os.environ.get("LUDOTHEK_BASE_URL"):
        settings.base_url = f"http://{host}:{port}"
    app = create_app(settings)
    # Everything built so far (modules, routes, the ORM, templates) lives as long as the process:
    # moved out of the collector's sight, a full garbage collection no longer walks it on every move's thread.
    gc.collect()
    gc.freeze()
    files = raise_open_file_limit()
    print(f"Ludothek on http://{host}:{port} (database {settings.db_url}); "
          f"open-file limit {files}: about {max(0, files - 64)} connections at once", flush=True)
    from ludothek.workers.mail import SmtpTransport

    mail_to = SmtpTransport(settings.smtp_url).describe() if settings.smtp_url else f"files in {settings.mail_dir}/"
    print(f"Mail goes to {mail_to}" + ("" if settings.mail_interval > 0 else " (sent by another process)"),
          flush=True)
    # Live messages are a few dozen bytes of JSON: compressing them costs CPU on both ends and saves nothing.
    # Sockets: a live message over 64 KB closes the socket (1009); a peer that does not answer a ping
    # within 20 s is dropped; an idle HTTP keep-alive connection is closed after 5 s, and a connection
    # that does not deliver a whole request within `request_deadline` seconds is closed.
    uvicorn.run(app, host=host, port=port, log_level="warning", http=with_request_deadline(settings.request_deadline),
                ws="websockets-sansio", ws_ping_interval=20,
                ws_ping_timeout=20, ws_max_size=64 * 1024, timeout_keep_alive=5, ws_per_message_deflate=False)
