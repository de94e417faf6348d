"""Operations: what the operator sees of a running portal (health, metrics, logs).

- ``GET /healthz``: the process lives (no database involved: a load balancer may ask often).
- ``GET /readyz``: the database and Redis (if configured) answer; 503 with the failing part otherwise.
- ``GET /metrics``: Prometheus text format, only for the operator's addresses (``metrics_allow``).
  (These three routes are in `ludothek.portal.routes.operations`; the figures and logs are here.)
- One access-log line per request (route template, status, latency), and the application's
  logs, as text or as JSON lines (``LUDOTHEK_LOG_FORMAT=json``).

Several server processes (``ludothek serve --workers N``): the counters and histograms live in
``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode, set up by `serve`), so any
process answers ``/metrics`` with the sum over all of them; the figures read from the database
(games by status, bot queue, outbox) are deployment-wide anyway and are read once per scrape.

Nothing secret is ever logged: access lines carry the route *template* (never the path with its
ids, never the query string, where a socket's ``?token=`` lives), and no header, cookie or body.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import sys
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import Engine, text
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ludothek.storage.botturns import count_pending

from .contract import api_paths

ACCESS = logging.getLogger("ludothek.access")
log = logging.getLogger("ludothek.portal")

#: Where every process of a deployment keeps its metric values (prometheus-client multiprocess mode).
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

#: Move latency buckets (seconds): a move is a few milliseconds when all is well.
MOVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

#: The routes that submit a move (the API under each of its prefixes, and the page's click).
MOVE_ROUTES = frozenset({*api_paths("/games/{game_id}/actions"), *api_paths("/games/{game_id}/undo"),
                         "/games/{game_id}/act"})


#: Every status a game can have, reported even when no game has it.
GAME_STATUSES = ("open", "running", "finished", "cancelled", "abandoned")


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


class DatabaseFigures(Collector):
    """Figures read from the database at scrape time: the same for every process of a deployment."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self) -> Iterable[Metric]:
        games = GaugeMetricFamily("ludothek_games", "Games by status", labels=["status"])
        bots = GaugeMetricFamily("ludothek_bot_queue", "Bot turns waiting for a bot worker (no live claim)")
        outbox = GaugeMetricFamily("ludothek_outbox", "Notices not yet handed over: outbox rows not yet fanned out, "
                                   "and deliveries to channels not yet done (pending, claimed or being sent)")
        try:
            with self.engine.connect() as conn:
                counts = dict.fromkeys(GAME_STATUSES, 0)
                for status, count in conn.execute(text("SELECT status, count(*) FROM games GROUP BY status")):
                    counts[str(status)] = count
                for status, count in counts.items():
                    games.add_metric([status], float(count))
                # The bot turns no worker holds: counted by the definition the bot workers claim by.
                bots.add_metric([], float(count_pending(conn, datetime.now(UTC))))
                outbox.add_metric([], float(conn.execute(text(
                    "SELECT (SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')) + "
                    "(SELECT count(*) FROM deliveries WHERE status IN ('pending', 'claimed', 'sending'))")).scalar_one()))
        except Exception:  # the scrape still shows the process's own figures; /readyz says what is wrong
            log.exception("could not read the database figures for /metrics")
            return
        yield games
        yield bots
        yield outbox


class Metrics:
    """The portal's own metrics; in multiprocess mode their values live in files shared by all processes."""

    def __init__(self, engine: Engine) -> None:
        self.multiprocess = multiprocess_dir() is not None
        # One registry per application (tests build many); in multiprocess mode the values are
        # read back from the shared files at scrape time instead.
        self.registry = CollectorRegistry(auto_describe=True)
        reg = None if self.multiprocess else self.registry
        self.requests = Counter("ludothek_http_requests", "HTTP requests by route template and status",
                                ["method", "route", "status"], registry=reg)
        self.move_seconds = Histogram("ludothek_move_seconds", "Time to handle a move request (API or page)",
                                      buckets=MOVE_BUCKETS, registry=reg)
        self.moves = Counter("ludothek_moves", "Moves stored (a player's or a bot's, with its chance outcomes)",
                             registry=reg)
        self.sockets = Gauge("ludothek_open_sockets", "Live sockets open (game updates and users' own channels)",
                             registry=reg, multiprocess_mode="livesum")
        self.database = DatabaseFigures(engine)
        if not self.multiprocess:
            self.registry.register(self.database)

    def on_event(self, _event: object) -> None:
        """Store listener: one more move stored."""
        self.moves.inc()

    def exposition(self) -> bytes:
        if not self.multiprocess:
            return generate_latest(self.registry)
        _reap_dead_processes()
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(self.database)
        return generate_latest(registry)


def _reap_dead_processes() -> None:
    """Forget the live gauges of processes that died (a killed worker's open sockets are gone)."""
    directory = multiprocess_dir()
    if directory is None:
        return
    for path in Path(directory).glob("gauge_live*_*.db"):
        try:
            pid = int(path.stem.rsplit("_", 1)[1])
        except ValueError:
            continue
        if not _alive(pid):
            multiprocess.mark_process_dead(pid, directory)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def prepare_multiprocess_dir(path: str | None = None) -> str:
    """Set up (and empty) the directory multiprocess metrics live in, for the processes started next."""
    import tempfile

    directory = path or multiprocess_dir() or tempfile.mkdtemp(prefix="ludothek-metrics-")
    Path(directory).mkdir(parents=True, exist_ok=True)
    for old in Path(directory).glob("*.db"):
        old.unlink()
    os.environ[MULTIPROC_ENV] = directory
    return directory


# ----------------------------------------------------------------------------- access restriction
def parse_networks(spec: str | Iterable[str]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """``"127.0.0.1, 10.0.0.0/8"`` -> networks; a bad entry is a clear error at start-up."""
    items = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else list(spec)
    try:
        return tuple(ipaddress.ip_network(item, strict=False) for item in items if item)
    except ValueError as exc:
        raise ValueError(f"LUDOTHEK_METRICS_ALLOW: {exc}") from None


def address_allowed(address: str, networks: Iterable[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in net for net in networks)


# ----------------------------------------------------------------------------- access log and request metrics
class AccessLog:
    """Plain ASGI middleware: one log line and one counted request per HTTP request or socket.

    The route is the matched template (``/api/games/{game_id}``), so lines and metric labels never
    carry ids, query strings or anything a client typed; an unmatched path is ``-``.
    """

    def __init__(self, app: ASGIApp, metrics: Metrics, enabled: bool = True) -> None:
        self.app = app
        self.metrics = metrics
        self.enabled = enabled

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 0

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            t = message["type"]
            if t == "http.response.start":
                status = message["status"]
            elif t == "websocket.accept":
                status = 101
            elif t == "websocket.close" and status == 0:
                status = int(message.get("code", 1000))  # refused before accepting
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except BaseException:
            if status == 0:
                status = 500
            raise
        finally:
            seconds = time.perf_counter() - start
            route = route_template(scope, status)
            method = scope.get("method", "WS") if kind == "http" else "WS"
            self.metrics.requests.labels(method, route, str(status)).inc()
            if route in MOVE_ROUTES:
                self.metrics.move_seconds.observe(seconds)
            if self.enabled and ACCESS.isEnabledFor(logging.INFO):
                client = scope.get("client")
                user = (scope.get("state") or {}).get("user")
                fields = {"method": method, "route": route, "status": status, "ms": round(seconds * 1000, 2),
                          "client": client[0] if client else None, "user": getattr(user, "id", None)}
                # A record made here, not through ACCESS.info(): no walk up the stack for the caller's line
                # (the access log runs for every request; its caller is always this line).
                ACCESS.handle(ACCESS.makeRecord(ACCESS.name, logging.INFO, __file__, 0, "%s %s %s %.1fms",
                                                (method, route, status, seconds * 1000), None,
                                                extra={"fields": fields}))


def route_template(scope: Scope, status: int) -> str:
    """The template of the route that answered (``/api/v1/games/{game_id}``), ``/static``, or ``-``
    for a path that no route knows.

    A route of an included router knows only its own part of the path; FastAPI keeps the whole
    template of the route it chose in its scope entry ``fastapi.effective_route_context``.  The
    few routes that are not FastAPI's own (``/openapi.json``, ``/docs``) have fixed paths.
    """
    chosen = (scope.get("fastapi") or {}).get("effective_route_context")
    template = getattr(chosen, "path_format", None) or getattr(scope.get("route"), "path", None)
    if template:
        return str(template)
    path = str(scope.get("path", ""))
    if path.startswith("/static/"):
        return "/static"
    return path if status != 404 and path in FIXED_PATHS else "-"


#: Paths served by routes that are not FastAPI's ``APIRoute`` (the API's documentation).
FIXED_PATHS = frozenset({"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"})


# ----------------------------------------------------------------------------- log formats
class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the record's ``fields``, the exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s[%(process)d]: %(message)s"


class TextFormatter(logging.Formatter):
    """`TEXT_FORMAT` lines, with the time written once per second rather than once per line.

    The access log writes a line per request; turning its time into text (``localtime`` and
    ``strftime``) was about 1 % of a server's CPU at full load.  Within a second only the
    milliseconds change, so the rest is kept.  The text is the standard formatter's.
    """

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)
        self._second: int | None = None
        self._stamp = ""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt is not None:
            return super().formatTime(record, datefmt)
        second = int(record.created)
        if second != self._second:
            self._stamp = time.strftime(self.default_time_format, self.converter(record.created))
            self._second = second
        return f"{self._stamp},{int(record.msecs):03d}"  # the standard default_msec_format, '%s,%03d'


def configure_logging(fmt: str | None = None, level: str | None = None, file: str | None = None) -> None:
    """Logs to standard error (and ``file``), as text or JSON lines; replaces earlier handlers of ours.

    ``fmt``/``level``/``file`` default to ``LUDOTHEK_LOG_FORMAT`` (``text`` or ``json``),
    ``LUDOTHEK_LOG_LEVEL`` (``INFO``) and ``LUDOTHEK_LOG_FILE``.
    """
    fmt = (fmt or os.environ.get("LUDOTHEK_LOG_FORMAT") or "text").lower()
    if fmt not in ("text", "json"):
        raise ValueError(f"LUDOTHEK_LOG_FORMAT must be 'text' or 'json', not {fmt!r}")
    level = (level or os.environ.get("LUDOTHEK_LOG_LEVEL") or "INFO").upper()
    file = file or os.environ.get("LUDOTHEK_LOG_FILE") or None
    formatter: logging.Formatter = JsonFormatter() if fmt == "json" else TextFormatter()
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "ludothek", False):
            root.removeHandler(handler)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if file:
        handlers.append(logging.FileHandler(file, encoding="utf-8"))
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.ludothek = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
    # uvicorn's own loggers write through ours; its access log is replaced by `AccessLog`.
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
    logging.getLogger("uvicorn.access").disabled = True
    error_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, NoRawPaths) for f in error_log.filters):
        error_log.addFilter(NoRawPaths())


class NoRawPaths(logging.Filter):
    """Drop uvicorn's own line per WebSocket: it holds the raw path with its query, where a program's
    ``?token=`` is.  `AccessLog` writes the socket's line instead (route template, status, user id)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith('%s - "WebSocket %s"'))


def scrape_lines(body: bytes) -> Iterator[tuple[str, dict[str, str], float]]:
    """Parse an exposition into ``(name, labels, value)`` (for tests and the benchmark)."""
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            yield sample.name, dict(sample.labels), float(sample.value)
