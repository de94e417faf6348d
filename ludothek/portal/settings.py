"""The portal's settings: everything has a default, so ``ludothek serve`` needs no configuration."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from argon2 import PasswordHasher

from ludothek.services.handover import DEFAULT_GRACE
from ludothek.services.runtime import state_cache_bytes_from_env

from .offload import DB_THREADS

DEFAULT_DB_DIR = Path("var")
DEFAULT_DB_URL = f"sqlite:///{DEFAULT_DB_DIR / 'ludothek.sqlite3'}"


@dataclass
class Settings:
    #: SQLAlchemy URL; ``postgresql://...`` works as well as SQLite.
    db_url: str = DEFAULT_DB_URL
    #: Key that signs session cookies; by default a random key kept in the database.
    secret_key: str | None = None
    #: Optional Redis URL for live-update fan-out across several server processes.
    redis_url: str | None = None
    #: Seconds between two bot moves, so a person can follow them.
    bot_delay: float = 0.4
    #: Seconds a person's ended turn waits for their confirmation when they chose no time of their own
    #: (``LUDOTHEK_HANDOVER_SECONDS``; `ludothek.services.handover`; 0: hand on at once).
    handover_seconds: int = field(
        default_factory=lambda: int(os.environ.get("LUDOTHEK_HANDOVER_SECONDS", str(DEFAULT_GRACE))))
    #: Render the first pages once at start-up, before the port serves (``LUDOTHEK_WARM_UP``, default on;
    #: `ludothek.portal.warmup`).  The tests switch it off: they start hundreds of applications.
    warm_up: bool = field(default_factory=lambda: os.environ.get("LUDOTHEK_WARM_UP", "on") != "off")
    #: Bot worker processes ``serve`` starts and stops with the server (``LUDOTHEK_BOT_WORKERS``;
    #: 0: none, run ``ludothek bots`` yourself).  Each thinks about one bot turn at a time.
    bot_workers: int = 2
    #: Play bot turns in a thread of this process instead (tests and embedding only: a bot's
    #: thinking then competes with the requests; ``serve`` never sets it).
    bots_in_process: bool = False
    #: Without Redis: how often a server looks in the database for moves other processes stored
    #: (a bot worker's), for the games and users it has live sockets for; 0: never.
    db_watch_interval: float = 0.25
    #: Mark cookies ``Secure`` (behind HTTPS).
    secure_cookies: bool = False
    #: Bytes the in-memory cache of game states may hold (``LUDOTHEK_STATE_CACHE_BYTES``; issue 34:
    #: by memory, not by a count of games; `ludothek.services.runtime.StateCache`).
    state_cache_bytes: int = field(default_factory=state_cache_bytes_from_env)
    #: Password hashing; tests pass a cheaper one.
    hasher: PasswordHasher = field(default_factory=PasswordHasher)
    #: Rate limits (registrations, guests, logins, game creation); off only for load tests.
    rate_limits: bool = True
    #: The requests of every move bypass FastAPI's routing (`ludothek.portal.hotpath`; off: tests compare).
    hot_path: bool = True
    #: Seconds before the live hub subscribes to Redis again after losing it, doubling from the first
    #: to the second (each shortened by a random part): a restarted Redis is heard within about the second.
    live_resubscribe_min: float = 0.1
    live_resubscribe_max: float = 2.0
    #: Seconds the rate limits wait for Redis before counting in this process instead (Redis down or hung).
    redis_timeout: float = 1.0
    #: Seconds between tries of a Redis that failed, for the rate limits (meanwhile: this process's counts).
    redis_retry: float = 5.0
    #: Overrides of `ludothek.portal.limits.DEFAULT_RULES`, e.g. ``{"register": "20/hour"}``.
    limit_rules: dict[str, str] = field(default_factory=dict)
    #: Days during which the notice sent to a replaced or removed e-mail address can undo the change.
    email_undo_days: int = 7
    #: Password hashes at once per process, and how many may wait for one (past that: 429).
    hash_concurrency: int = 1
    hash_queue: int = 8
    #: Imported records (`ludothek.services.community.replaylimits`, docs/security.md, "Replays and
    #: imported records"): the most entries and undo entries one may have (refused with 413 past them),
    #: and the CPU seconds replaying one may take.
    replay_max_entries: int = 5_000
    replay_max_undos: int = 1_000
    replay_cpu_seconds: float = 1.5
    #: Records replayed at once per process, and how many may wait for that (past that: 429).
    replay_concurrency: int = 1
    replay_queue: int = 4
    #: Bytes the replay books of stored games, and of imported records, may take in each process.
    replay_cache_bytes: int = 64 * 1024 * 1024
    replay_import_cache_bytes: int = 16 * 1024 * 1024
    #: Games one user may have waiting for players at once, and how many of them the lobby lists.
    max_open_games: int = 10
    lobby_per_creator: int = 3
    #: Request bodies: the most the API and the pages accept (checked before reading).
    max_body_api: int = 1024 * 1024
    max_body_form: int = 256 * 1024
    #: Seconds between two passes of the background jobs (clocks); 0: none in this process.
    jobs_interval: float = 1.0
    #: Live sockets per user and per address (per server process).
    sockets_per_user: int = 16
    sockets_per_address: int = 64
    #: Live sockets one server process may hold in all: 0 derives it from the open-file limit, keeping
    #: the two reserves below free (`ludothek.portal.limits.socket_cap`); a number is used as it is,
    #: but never above that.  Past the cap a new socket is closed with 1013 "try again later".
    socket_cap: int = 0
    #: Open files kept free of live sockets for HTTP connections (requests, idle keep-alives, slow
    #: clients within `request_deadline`), and for everything else: the database pool (and SQLite's
    #: files), Redis connections, logs and the process's own files.  See docs/operations.md.
    fd_reserve_http: int = 256
    fd_reserve_services: int = 128
    #: Seconds a client has to send a whole HTTP request once its connection is open or idle again
    #: (`ludothek.portal.connections`): idle and slow connections are closed after it.
    request_deadline: float = 15.0
    #: Where the portal is reached from outside: links in mails start with it.
    base_url: str = "http://127.0.0.1:8000"
    #: ``smtp://user:pass@host:587`` (STARTTLS) or ``smtps://...``; unset: mails become files in ``mail_dir``.
    smtp_url: str | None = None
    mail_dir: Path = DEFAULT_DB_DIR / "mail"
    mail_from: str = "Ludothek <noreply@localhost>"
    #: Seconds between two looks at the outbox by the in-process sender; 0: no sender in this process.
    mail_interval: float = 2.0
    #: Days the outbox keeps mails that are done with (sent, failed, skipped) before deleting them.
    mail_keep_days: int = 30
    #: Web Push (`ludothek.workers.channels.push`; off: no push channel, no subscribe button).
    push: bool = True
    #: The site's VAPID private key (PEM, or base64url DER or raw); unset: a pair made on the first start
    #: and kept in the database.  ``vapid_private_key_file`` names a PEM file instead.
    vapid_private_key: str | None = None
    vapid_private_key_file: str | None = None
    #: Whom push services may contact about this site (``mailto:`` or ``https:``); unset: ``base_url`` if it
    #: is https, else ``mailto:`` the address of ``mail_from``.
    vapid_subject: str | None = None
    #: Accept push endpoints on ``http://127.0.0.1`` and send to loopback addresses (tests only).
    push_allow_loopback: bool = False
    #: Seconds between two looks of the notice worker's runners (fan-out, each channel) when nothing woke
    #: them; a stored move of this process wakes them at once (issue 30).
    notice_interval: float = 0.5
    #: The notification channels that run, comma-separated, in order (empty: every known channel).
    channels: str = ""
    #: Who may read ``/metrics``: addresses or networks, comma-separated (``LUDOTHEK_METRICS_ALLOW``).
    metrics_allow: str = "127.0.0.1/32,::1/128"
    #: Threads for the async handlers' database calls (PostgreSQL; SQLite calls run on the event loop).
    db_threads: int = DB_THREADS
    #: One log line per request (``LUDOTHEK_ACCESS_LOG=off`` switches it off).
    access_log: bool = True
    #: Webhooks (`ludothek.services.webhooks`, docs/notifications.md): allow ``http://`` and loopback
    #: addresses (``LUDOTHEK_WEBHOOK_ALLOW_LOOPBACK=1``: tests with a receiver on this machine only; private,
    #: link-local and other inside addresses stay refused), hooks per user, failed attempts in a row
    #: before a hook is switched off, seconds one delivery may take in all, and bytes of an answer read.
    webhook_allow_loopback: bool = False
    webhook_max_per_user: int = 5
    webhook_max_failures: int = 10
    webhook_timeout: float = 5.0
    webhook_max_answer: int = 16 * 1024
    #: Open data (issue 32, docs/open_data.md): the folder the monthly exports are written to and served
    #: from (``LUDOTHEK_EXPORT_DIR``), and whether this process runs the export job (``LUDOTHEK_EXPORTS``).
    export_dir: Path = DEFAULT_DB_DIR / "exports"
    exports: bool = True
    #: Whether this process runs the nightly statistics rebuild (``LUDOTHEK_STATISTICS``; issue 32).
    statistics: bool = True

    @classmethod
    def from_env(cls, db_url: str | None = None) -> Settings:
        """Defaults, overridden by ``LUDOTHEK_*`` environment variables."""
        return cls(
            db_url=db_url or os.environ.get("LUDOTHEK_DB", DEFAULT_DB_URL),
            secret_key=os.environ.get("LUDOTHEK_SECRET") or None,
            redis_url=os.environ.get("LUDOTHEK_REDIS") or None,
            bot_delay=float(os.environ.get("LUDOTHEK_BOT_DELAY", "0.4")),
            bot_workers=int(os.environ.get("LUDOTHEK_BOT_WORKERS", "2")),
            secure_cookies=os.environ.get("LUDOTHEK_SECURE_COOKIES") == "1",
            rate_limits=os.environ.get("LUDOTHEK_RATE_LIMITS", "on") != "off",
            limit_rules=parse_limit_rules(os.environ.get("LUDOTHEK_RATE_LIMIT_RULES", "")),
            base_url=os.environ.get("LUDOTHEK_BASE_URL") or "http://127.0.0.1:8000",
            smtp_url=os.environ.get("LUDOTHEK_SMTP_URL") or None,
            mail_from=os.environ.get("LUDOTHEK_MAIL_FROM") or "Ludothek <noreply@localhost>",
            mail_interval=float(os.environ.get("LUDOTHEK_MAIL_INTERVAL", "2")),
            mail_keep_days=int(os.environ.get("LUDOTHEK_MAIL_KEEP_DAYS", "30")),
            push=os.environ.get("LUDOTHEK_PUSH", "on") != "off",
            vapid_private_key=os.environ.get("LUDOTHEK_VAPID_PRIVATE_KEY") or None,
            vapid_private_key_file=os.environ.get("LUDOTHEK_VAPID_PRIVATE_KEY_FILE") or None,
            vapid_subject=os.environ.get("LUDOTHEK_VAPID_SUBJECT") or None,
            push_allow_loopback=os.environ.get("LUDOTHEK_PUSH_ALLOW_LOOPBACK") == "1",
            notice_interval=float(os.environ.get("LUDOTHEK_NOTICE_INTERVAL", "0.5")),
            channels=os.environ.get("LUDOTHEK_CHANNELS", ""),
            metrics_allow=os.environ.get("LUDOTHEK_METRICS_ALLOW") or "127.0.0.1/32,::1/128",
            access_log=os.environ.get("LUDOTHEK_ACCESS_LOG", "on") != "off",
            sockets_per_user=int(os.environ.get("LUDOTHEK_SOCKETS_PER_USER", "16")),
            sockets_per_address=int(os.environ.get("LUDOTHEK_SOCKETS_PER_ADDRESS", "64")),
            socket_cap=int(os.environ.get("LUDOTHEK_SOCKET_CAP", "0")),
            fd_reserve_http=int(os.environ.get("LUDOTHEK_FD_RESERVE_HTTP", "256")),
            fd_reserve_services=int(os.environ.get("LUDOTHEK_FD_RESERVE_SERVICES", "128")),
            webhook_allow_loopback=os.environ.get("LUDOTHEK_WEBHOOK_ALLOW_LOOPBACK") == "1",
            webhook_max_per_user=int(os.environ.get("LUDOTHEK_WEBHOOK_MAX_PER_USER", "5")),
            webhook_max_failures=int(os.environ.get("LUDOTHEK_WEBHOOK_MAX_FAILURES", "10")),
            webhook_timeout=float(os.environ.get("LUDOTHEK_WEBHOOK_TIMEOUT", "5")),
            export_dir=Path(os.environ.get("LUDOTHEK_EXPORT_DIR") or DEFAULT_DB_DIR / "exports"),
            exports=os.environ.get("LUDOTHEK_EXPORTS", "on") != "off",
            statistics=os.environ.get("LUDOTHEK_STATISTICS", "on") != "off",
        )


def vapid_subject(settings: Settings) -> str:
    """The VAPID ``sub`` for ``settings``: the setting, else an https ``base_url``, else ``mailto:`` the sender."""
    if settings.vapid_subject:
        return settings.vapid_subject
    if settings.base_url.startswith("https://"):
        return settings.base_url.rstrip("/")
    from email.utils import parseaddr

    address = parseaddr(settings.mail_from)[1] or "noreply@localhost"
    return f"mailto:{address}"


def parse_limit_rules(spec: str) -> dict[str, str]:
    """``"register=20/hour, move_user=300/minute"`` (``LUDOTHEK_RATE_LIMIT_RULES``) -> overrides by name."""
    from limits import parse

    from .limits import DEFAULT_RULES

    rules: dict[str, str] = {}
    for item in spec.replace(";", ",").split(","):
        if not item.strip():
            continue
        name, sep, rule = item.partition("=")
        name, rule = name.strip(), rule.strip()
        if not sep or name not in DEFAULT_RULES:
            raise ValueError(f"LUDOTHEK_RATE_LIMIT_RULES: {item.strip()!r} is not name=rule with a name of "
                             f"{', '.join(DEFAULT_RULES)}")
        try:
            parse(rule)
        except ValueError:
            raise ValueError(f"LUDOTHEK_RATE_LIMIT_RULES: {rule!r} is not a rate such as 20/hour") from None
        rules[name] = rule
    return rules
