"""The application factory: `create_app(settings)` wires storage, live updates, bots, pages and API."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
import os
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from importlib import resources
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from ludothek.services import Site
from ludothek.services.community.replaylimits import ReplayLimits, replay_gate
from ludothek.services.webhooks import WebhookPolicy
from ludothek.storage import GameEvent, NotFound, StoreError, make_engine, migrate
from ludothek.workers.channels.push import PushChannel, push_channel
from ludothek.workers.clocks import ClockJob
from ludothek.workers.mail_links import MailLinks
from ludothek.workers.runner import Runner
from ludothek.workers.tournaments import TournamentJob

from . import render, routes
from .bodylimit import BodyLimit
from .botprocs import BotProcesses
from .connections import with_request_deadline
from .contract import api_paths
from .deps import GameId, Portal, admit, portal_of, release
from .gameweb import StaticWithGames, add_game_templates
from .hardening import SecurityHeaders
from .hotpath import HotPath
from .jsonroute import BoundedRoute
from .limits import (
    DEFAULT_RULES,
    GatedHasher,
    HashGate,
    LoginBrake,
    RateLimits,
    SocketCounter,
    open_file_limit,
    raise_open_file_limit,
    socket_cap,
)
from .live.botstream import bot_listener
from .live.dbwatch import DatabaseWatch
from .live.hub import Hub, RedisHub, turn_listener
from .live.sockets import relay
from .observe import AccessLog, Metrics, configure_logging, parse_networks, prepare_multiprocess_dir
from .offload import Offload
from .sessions import SessionCodec
from .settings import Settings, vapid_subject
from .warmup import warm_up

if TYPE_CHECKING:  # imported where they are used (`BotWorker` only when bots play in this process)
    from ludothek.workers.bots import BotWorker
    from ludothek.workers.mail import MailJob

PACKAGE = resources.files("ludothek.portal")
log = logging.getLogger("ludothek.portal")

#: `serve --workers N` hands each worker process its settings in this variable (JSON).
SERVE_ENV = "LUDOTHEK_SERVE"


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


def allowed_methods(app: FastAPI, path: str) -> str | None:
    """Every method the API's schema documents at ``path``, for a 405's ``Allow`` (None: not an API path).

    Starlette names the methods of the first route with this path, but the methods of one path are
    spread over several routes (PUT and DELETE /friends/{name}); the schema knows them all.
    """
    table: list[tuple[re.Pattern[str], str]] | None = getattr(app.state, "allow_table", None)
    if table is None:
        table = [(re.compile("^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)) + "$"),
                  ", ".join(sorted(m.upper() for m in ops)))
                 for template, ops in app.openapi().get("paths", {}).items()]
        app.state.allow_table = table
    for pattern, methods in table:
        if pattern.match(path):
            return methods
    return None


def create_app(settings: Settings | None = None) -> FastAPI:
    """A complete portal for ``settings`` (migrates the database first)."""
    settings = settings or Settings()
    engine = make_engine(settings.db_url)
    migrate(engine)
    hasher = GatedHasher(settings.hasher, HashGate(settings.hash_concurrency, settings.hash_queue))
    site = Site(engine, cache_bytes=settings.state_cache_bytes, hasher=hasher)
    site.lobby.max_open_games = settings.max_open_games
    site.play.default_grace = settings.handover_seconds
    site.lobby.lobby_per_creator = settings.lobby_per_creator
    site.webhooks.policy = webhook_policy(settings)
    site.history.configure(
        ReplayLimits(settings.replay_max_entries, settings.replay_max_undos, settings.replay_cpu_seconds),
        replay_gate(settings.replay_concurrency, settings.replay_queue),
        settings.replay_cache_bytes, settings.replay_import_cache_bytes)
    secret = settings.secret_key or site.db.meta("session_secret", lambda: secrets.token_urlsafe(48))
    # The signing secret is shared by every server of a deployment (it lives in the database).
    hub: Hub = (RedisHub(settings.redis_url, deployment=secret, reconnect_min=settings.live_resubscribe_min,
                         reconnect_max=settings.live_resubscribe_max) if settings.redis_url else Hub())
    site.listeners.append(hub.publish)
    # A bot worker in this process (tests, `bot_step`) says on the bot's panel that it thinks; workers
    # of their own say it through Redis, or the database watch sees their claims.
    site.bots.thinking_listeners.append(hub.publish_thinking)
    # Bots think in worker processes of their own (`ludothek.portal.botprocs`, started by `serve`);
    # only tests and embedders play them in a thread here.
    bots: BotWorker | None = None
    if settings.bots_in_process:
        from ludothek.workers.bots import BotWorker

        bots = BotWorker(site, delay=settings.bot_delay, interval=0.05)
        site.listeners.append(bots.on_event)
    templates = Jinja2Templates(directory=str(PACKAGE / "templates"))
    add_game_templates(templates)  # boards/<g>.html from the game's own web/ folder
    # Rate-limit counters are shared through Redis when it is configured (one brake for all servers),
    # in a namespace of this deployment's own (its signing secret and database).
    namespace = "ludothek:" + hashlib.sha256(f"{secret} {settings.db_url}".encode()).hexdigest()[:16]
    limits = RateLimits(settings.redis_url, {**DEFAULT_RULES, **settings.limit_rules},
                        enabled=settings.rate_limits, namespace=namespace,
                        redis_timeout=settings.redis_timeout, redis_retry=settings.redis_retry)
    portal = Portal(settings, site, hub, bots, templates, SessionCodec(secret), LoginBrake(limits), limits,
                    SocketCounter(settings.sockets_per_user, settings.sockets_per_address, _socket_cap(settings)))
    site.listeners.append(turn_listener(site, hub))
    # Issue 33: bot accounts' event streams hear of their games' starts, ends and invitations.
    wake_bots = bot_listener(site, hub)
    site.listeners.append(wake_bots)
    site.lobby.created_listeners.append(lambda game_id: wake_bots(GameEvent(game_id, 0, -2, "open")))
    portal.offload = Offload.for_database(engine.dialect.name, settings.db_threads)
    portal.metrics = Metrics(engine)
    portal.metrics_allow = parse_networks(settings.metrics_allow)
    site.listeners.append(portal.metrics.on_event)
    if isinstance(hub, RedisHub):
        # After Redis comes back, the sockets hear of what moved meanwhile from the database.
        hub.on_resubscribed = DatabaseWatch(site, hub, 0).catch_up
    if not settings.redis_url and settings.db_watch_interval > 0:
        # Moves stored by other processes (bot workers) reach this process's sockets through the database.
        portal.dbwatch = DatabaseWatch(site, hub, settings.db_watch_interval)
        site.listeners.append(portal.dbwatch.on_event)
        site.bots.thinking_listeners.append(portal.dbwatch.on_thinking)
    portal.links = MailLinks(secret, settings.base_url, settings.email_undo_days)
    # The open-tab channel reaches this process's tabs (and, through Redis, every server's).
    site.user_messages.append(hub.publish_user)
    portal.push = make_push_channel(settings, site)
    mail_job = make_mail_job(settings, site, portal.links, push=portal.push)
    portal.channels = [channel.name for channel in mail_job.channels]
    if settings.mail_interval > 0:
        # The notice worker: a runner for the fan-out and one per channel, so that no channel holds back
        # another; every stored move of this process, and a verification or reset mail, wakes it at once.
        from ludothek.workers.notices import NoticeRunners

        portal.mail = NoticeRunners(mail_job, interval=min(settings.mail_interval, settings.notice_interval))
        site.listeners.append(portal.mail.on_event)

    # Background jobs (clocks) run in a thread of their own, never on the event loop.
    app_jobs = Runner([ClockJob(site), TournamentJob(site)], interval=settings.jobs_interval)
    # The monthly open-data export and the nightly statistics (issue 32): a runner of their own, so that
    # writing a month or rebuilding the statistics never delays a clock.
    from ludothek.workers.exports import ExportJob
    from ludothek.workers.statistics import StatisticsJob

    export_jobs = Runner([ExportJob(site, settings.export_dir)] * settings.exports
                         + [StatisticsJob(site)] * settings.statistics, interval=60.0)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        site.accounts.purge_expired_guests()
        site.sessions.purge_expired_sessions()
        portal.sockets.per_process = _socket_cap(settings)  # `serve` may have raised the limit since
        await hub.start()
        if settings.jobs_interval > 0:
            app_jobs.start()
            if export_jobs.jobs:
                export_jobs.start()
        if bots is not None:
            bots.start()
        if portal.dbwatch is not None:
            await portal.dbwatch.start()
        if portal.mail is not None:
            portal.mail.start()
        if settings.warm_up:  # the first request's costs, paid before uvicorn accepts a connection
            portal.warm_up_seconds = await warm_up(app)
        try:
            yield
        finally:
            if portal.mail is not None:
                await asyncio.to_thread(portal.mail.stop)
            app_jobs.stop()
            export_jobs.stop()
            if bots is not None:
                await asyncio.to_thread(bots.stop)
            if portal.dbwatch is not None:
                await portal.dbwatch.stop()
            await hub.stop()
            portal.offload.shutdown()
            engine.dispose()

    app = FastAPI(
        title="Ludothek",
        description="Asynchronous turn-based board games: the JSON API, version 1 (`/api/v1/...`). "
        "The same operations under `/api/...` (marked deprecated here) are an alias of the current "
        "version, kept until the changelog in docs/api.md says otherwise. "
        "Authenticate with `Authorization: Bearer <token>` (see POST /api/v1/tokens). "
        "Every refusal is `{\"detail\", \"code\"}`; lists take `limit` and `cursor`. "
        "The contract in words: docs/api.md.",
        version="1",
        lifespan=lifespan,
        # No OpenTelemetry here (Prometheus metrics and the access log instead): FastAPI would otherwise
        # ask on every request whether a tracer, meter or logger provider has been configured meanwhile.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.router.route_class = BoundedRoute  # the routes declared here read bodies as every other route (jsonroute)
    app.state.portal = portal
    app.state.mail_job = mail_job
    app.state.jobs = app_jobs
    # Innermost: the two requests of every move skip FastAPI's routing (the same endpoints and answers).
    app.add_middleware(HotPath, settings=settings)
    app.add_middleware(SecurityHeaders, hsts=settings.secure_cookies)
    # Every request counted and logged (one line each), whatever answers it.
    app.add_middleware(AccessLog, metrics=portal.metrics, enabled=settings.access_log)
    # Outermost: an oversized body is refused before anything reads it.
    app.add_middleware(BodyLimit, api=settings.max_body_api, form=settings.max_body_form)
    render.setup_templates(templates)
    app.mount("/static", StaticWithGames(directory=str(PACKAGE / "static")), name="static")
    # Routes are matched in order: the two requests every move makes are tried first (`routes.mount`).
    routes.mount(app)
    favicon = str(PACKAGE / "static" / "favicon.ico")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon_ico() -> Response:
        return FileResponse(favicon, media_type="image/x-icon", headers={"Cache-Control": "public, max-age=86400"})

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> Response:
        headers = {"Retry-After": str(exc.params["seconds"])} if exc.status == 429 else None
        if _wants_json(request):
            return JSONResponse({"detail": exc.message, "code": exc.code}, status_code=exc.status, headers=headers)
        return render.error_page(request, exc, headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        errors = exc.errors()
        if errors and all(e.get("loc", ("",))[0] == "path" for e in errors):
            # An id no game (or token) can have: the same answer as for one that does not exist.
            return await store_error(request, NotFound(f"there is nothing at {request.url.path}"))
        if any(e.get("type") == "json_invalid" for e in errors):
            return JSONResponse({"detail": "malformed JSON in the request body", "code": "malformed"}, 400)
        parts = []
        fields = []
        for e in errors:
            loc = [p if isinstance(p, int) else str(p) for p in e.get("loc", ())]
            where = ".".join(str(p) for p in loc if p != "body")
            parts.append(f"{where or 'body'}: {e.get('msg')}")
            # Never the input itself: it may be a password.
            fields.append({"loc": loc, "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))})
        return JSONResponse({"detail": "malformed request: " + "; ".join(parts), "code": "malformed",
                             "errors": fields}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405 and (allow := allowed_methods(app, request.url.path)) is not None:
            exc.headers = {**(exc.headers or {}), "Allow": allow}
        if _wants_json(request):
            # The headers matter: a 405 names the allowed methods in `Allow`.
            return JSONResponse({"detail": exc.detail, "code": "http"}, exc.status_code, headers=exc.headers)
        return render.error_page(request, StoreError(str(exc.detail)), dict(exc.headers or {}), status=exc.status_code)

    @app.websocket("/live/me")
    @app.websocket(api_paths("/me/live")[0])
    @app.websocket(api_paths("/me/live")[1])
    async def live_me(websocket: WebSocket) -> None:
        await routes.notify.user_socket(websocket)

    @app.websocket("/games/{game_id}/live")
    @app.websocket(api_paths("/games/{game_id}/live")[0])
    @app.websocket(api_paths("/games/{game_id}/live")[1])
    async def live(websocket: WebSocket, game_id: GameId) -> None:
        await live_socket(websocket, game_id)

    return app


async def live_socket(websocket: WebSocket, game_id: int) -> None:
    """Send ``{"type": "update", "seq": ...}`` whenever the game moves (the client fetches its own view),
    and ``{"type": "chat", "message": ...}`` for each chat message this user may read (`ludothek.portal.routes.chat`)."""
    admitted = await admit(websocket)
    if admitted is None:
        return
    portal = portal_of(websocket)
    queue = None
    try:
        try:
            info = await portal.offload(portal.site.games.game, game_id)
        except StoreError:
            await websocket.close(code=1008)
            return
        user = admitted[0]
        queue = portal.hub.watch(game_id, user.id)  # with its user: chat reaches only whom it may
        if portal.dbwatch is not None:
            portal.dbwatch.note(game_id, info.seq)  # the hello says this much already
        await relay(websocket, queue, {"type": "hello", "game": game_id, "seq": info.seq, "status": info.status,
                                       "seat": info.seat_of(user.id)})
    finally:
        if queue is not None:
            portal.hub.unwatch(game_id, queue)
        release(websocket, admitted)


def _socket_cap(settings: Settings) -> int:
    """The most live sockets this process may hold now (its open-file limit less the reserves)."""
    return socket_cap(open_file_limit(), settings.fd_reserve_http, settings.fd_reserve_services,
                      settings.socket_cap)


def webhook_policy(settings: Settings) -> WebhookPolicy:
    """The webhook settings as the service and the channel take them."""
    return WebhookPolicy(allow_loopback=settings.webhook_allow_loopback, max_per_user=settings.webhook_max_per_user,
                         max_failures=max(1, settings.webhook_max_failures), timeout=settings.webhook_timeout,
                         max_answer=settings.webhook_max_answer)


def make_push_channel(settings: Settings, site: Site) -> PushChannel | None:
    """The Web Push channel for ``settings`` (None with ``LUDOTHEK_PUSH=off``): the VAPID keys are the
    setting's, or the database's (made now on the first start)."""
    if not settings.push:
        return None
    return push_channel(site.push, subject=vapid_subject(settings), private_key=settings.vapid_private_key,
                        private_key_file=settings.vapid_private_key_file, allow_loopback=settings.push_allow_loopback)


def make_mail_job(settings: Settings, site: Site, links: MailLinks, push: PushChannel | None = None) -> MailJob:
    """The notice worker for ``settings`` (`MailJob`): its channels from ``LUDOTHEK_CHANNELS``, mail by SMTP
    when ``smtp_url`` is set, else as ``.eml`` files (for the ``ludothek worker`` runner too); Web Push
    (``push``, or made here from the settings) and webhooks under the same settings as the portal's."""
    from ludothek.workers.mail import FileTransport, MailJob, SmtpTransport, Transport

    site.webhooks.policy = webhook_policy(settings)
    if push is None:
        push = make_push_channel(settings, site)

    transport: Transport = SmtpTransport(settings.smtp_url) if settings.smtp_url else FileTransport(settings.mail_dir)
    env = {**os.environ, **({"LUDOTHEK_CHANNELS": settings.channels} if settings.channels else {})}
    return MailJob(site, links, transport, sender=settings.mail_from,
                   keep=timedelta(days=max(1, settings.mail_keep_days)), env=env, extra={"push": push})


def _serve_settings(db_url: str | None, host: str, port: int, overrides: dict[str, Any]) -> Settings:
    settings = Settings.from_env(db_url)
    for key, value in overrides.items():
        setattr(settings, key, value)
    if not os.environ.get("LUDOTHEK_BASE_URL"):
        settings.base_url = f"http://{host}:{port}"
    return settings


def _uvicorn_options(settings: Settings) -> dict[str, Any]:
    """How every server process runs uvicorn.

    Live messages are a few dozen bytes of JSON: compressing them costs CPU on both ends and saves nothing.
    Sockets: a live message over 64 KB closes the socket (1009); a peer that does not answer a ping
    within 20 s is dropped; an idle HTTP keep-alive connection is closed after 5 s, and a connection
    that does not deliver a whole request within `request_deadline` seconds is closed.
    ``log_config=None``: the logs are ours (`configure_logging`), uvicorn's own lines go through them.
    """
    return {"ws": "websockets-sansio", "ws_ping_interval": 20, "ws_ping_timeout": 20, "ws_max_size": 64 * 1024,
            "timeout_keep_alive": 5, "ws_per_message_deflate": False, "log_config": None, "access_log": False,
            # Issue 33: a bot's event stream never ends by itself; a stopping server cancels what still
            # runs after 10 s instead of waiting for it (the bot reconnects and resumes elsewhere).
            "timeout_graceful_shutdown": 10}


def _start_up_notes(settings: Settings, workers: int) -> None:
    from sqlalchemy.engine import make_url

    from ludothek.storage.db import normalize_url
    from ludothek.workers.mail import SmtpTransport

    files = raise_open_file_limit()
    database = make_url(normalize_url(settings.db_url)).render_as_string(hide_password=True)
    log.info("Ludothek on %s (database %s, %d server process%s); open-file limit %d: at most %d live sockets "
             "per process, %d connections at once kept for HTTP and %d files for the database, Redis and logs",
             settings.base_url, database, workers, "es" if workers > 1 else "", files, _socket_cap(settings),
             settings.fd_reserve_http, settings.fd_reserve_services)
    mail_to = SmtpTransport(settings.smtp_url).describe() if settings.smtp_url else f"files in {settings.mail_dir}/"
    log.info("Mail goes to %s%s", mail_to, "" if settings.mail_interval > 0 else " (sent by another process)")


def _frozen(app: FastAPI) -> FastAPI:
    # Everything built so far (modules, routes, the ORM, templates) lives as long as the process:
    # moved out of the collector's sight, a full garbage collection no longer walks it on every move's thread.
    gc.collect()
    gc.freeze()
    return app


def _json_overrides(overrides: dict[str, Any]) -> dict[str, Any]:
    """The settings overrides a worker process can be handed (plain JSON values: numbers, texts, rules)."""
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        try:
            json.dumps(value)
        except TypeError:
            raise SystemExit(f"ludothek: the setting {key} cannot be passed to worker processes") from None
        out[key] = value
    return out


def app_from_env() -> FastAPI:
    """The application of one worker process of `serve` (``--workers N``): settings from `SERVE_ENV`."""
    from .connections import DeadlineProtocol

    spec = json.loads(os.environ[SERVE_ENV])
    configure_logging()
    settings = _serve_settings(spec["db_url"], spec["host"], spec["port"], spec["overrides"])
    DeadlineProtocol.request_deadline = settings.request_deadline
    raise_open_file_limit()
    return _frozen(create_app(settings))


def serve(db_url: str | None, host: str = "127.0.0.1", port: int = 8000, workers: int = 1,
          **overrides: Any) -> None:
    """Start the portal with uvicorn (``ludothek serve`` calls this); ``workers`` server processes on one port.

    With several workers, live updates and rate limits must be shared between them: Redis is required.
    Background jobs (clocks, mail) run in every process and claim their work through the database, so
    each deadline fires once and each mail goes out once.  Bot turns are played by
    ``settings.bot_workers`` bot worker processes this process starts and stops (`BotProcesses`); the
    metrics of all processes are summed
    (prometheus-client's multiprocess mode, in ``PROMETHEUS_MULTIPROC_DIR`` or a fresh temporary folder).
    """
    import uvicorn

    configure_logging()
    settings = _serve_settings(db_url, host, port, overrides)
    if workers < 1:
        raise SystemExit("ludothek: --workers must be at least 1")
    if workers == 1:
        app = _frozen(create_app(settings))
        _start_up_notes(settings, 1)
        bots = BotProcesses(settings, 0 if settings.bots_in_process else settings.bot_workers)
        bots.start(after_listening=(host, port))
        try:
            uvicorn.run(app, host=host, port=port, http=with_request_deadline(settings.request_deadline),
                        **_uvicorn_options(settings))
        finally:
            bots.stop()
        return
    if not settings.redis_url:
        raise SystemExit("ludothek: several server processes need Redis (--redis or LUDOTHEK_REDIS): "
                         "live updates and rate limits must reach every process")
    # Migrate once, before the workers start (they would race each other on an empty database).
    engine = make_engine(settings.db_url)
    migrate(engine)
    engine.dispose()
    prepare_multiprocess_dir()
    os.environ[SERVE_ENV] = json.dumps({"db_url": settings.db_url, "host": host, "port": port,
                                        "overrides": _json_overrides(overrides)})
    _start_up_notes(settings, workers)
    # The bot workers belong to this supervising process: started once, not once per server process.
    bots = BotProcesses(settings, 0 if settings.bots_in_process else settings.bot_workers)
    bots.start(after_listening=(host, port))
    try:
        uvicorn.run("ludothek.portal.app:app_from_env", factory=True, workers=workers, host=host, port=port,
                    http="ludothek.portal.connections:DeadlineProtocol", **_uvicorn_options(settings))
    finally:
        bots.stop()
