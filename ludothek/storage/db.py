"""Database engines and migrations.

The schema is owned by the Alembic migrations that ship inside this package,
so a fresh database and an old one are brought to the same schema by the same
code path (`migrate`), with no ``alembic.ini`` to find on disk.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool


def normalize_url(url: str) -> str:
    """Accept ``postgresql://`` and ``postgres://`` and use the psycopg 3 driver for them."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


#: A pooled PostgreSQL connection idle longer than this is pinged before use (seconds).
IDLE_PING_SECONDS = 5.0
#: Connections per server process (PostgreSQL): the pool, and as many again under a burst
#: (``LUDOTHEK_DB_POOL``).  A move holds one for a commit, and a commit waits for the database's disk:
#: moves in flight at once, not CPU, bound the throughput (``docs/operations.md``).
PG_POOL_SIZE = 32
SQLITE_SYNC = ("normal", "full")


def sqlite_sync() -> str:
    """``LUDOTHEK_SQLITE_SYNC``: ``normal`` (default) or ``full`` (an acknowledged move survives a power cut)."""
    value = (os.environ.get("LUDOTHEK_SQLITE_SYNC") or "normal").lower()
    if value not in SQLITE_SYNC:
        raise ValueError(f"LUDOTHEK_SQLITE_SYNC must be one of {', '.join(SQLITE_SYNC)}, not {value!r}")
    return value


def make_engine(url: str, sync: str | None = None) -> Engine:
    """An engine for ``url``; SQLite files get WAL mode and a busy timeout so that threads can share them.

    ``sync`` (SQLite): ``normal`` or ``full``, default `sqlite_sync`.  Statement parameters never appear
    in error messages or logs (``hide_parameters``): they can hold e-mail addresses and hashes.
    """
    url = normalize_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        synchronous = (sync or sqlite_sync()).upper()
        if synchronous.lower() not in SQLITE_SYNC:
            raise ValueError(f"SQLite synchronous must be one of {', '.join(SQLITE_SYNC)}, not {sync!r}")
        kwargs: dict[str, Any] = {
            "connect_args": {"check_same_thread": False, "timeout": 30},
            "pool_size": 20,
            "max_overflow": 20,
        }
        if database in ("", ":memory:"):
            kwargs = {"connect_args": kwargs["connect_args"], "poolclass": StaticPool}
        else:
            Path(database).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, hide_parameters=True, **kwargs)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            if database not in ("", ":memory:"):
                cur.execute("PRAGMA journal_mode=WAL")
            # WAL with synchronous=NORMAL is durable against process crashes (what a restart needs), not
            # against a power cut: the last commits may be lost then.  FULL syncs the log at every commit.
            cur.execute(f"PRAGMA synchronous={synchronous}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    pool = int(os.environ.get("LUDOTHEK_DB_POOL") or PG_POOL_SIZE)
    engine = create_engine(url, pool_size=pool, max_overflow=pool, hide_parameters=True)
    _ping_when_idle(engine)
    return engine


def _ping_when_idle(engine: Engine) -> None:
    """Ping a pooled connection before use only if it sat idle: a busy server pays no round trip for it.

    SQLAlchemy's ``pool_pre_ping`` pings at every checkout, a round trip per request.  A connection
    that was in use a moment ago is alive; one idle for `IDLE_PING_SECONDS` may have been cut (a
    database restart, a firewall), and a failed ping makes the pool replace it (``DisconnectionError``).
    """

    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_conn: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is not None and time.monotonic() - idle_since < IDLE_PING_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except Exception as error:
            raise exc.DisconnectionError(f"a pooled connection did not answer: {error}") from error


#: Autocommit connections a `DirectConnections` keeps per server process (the hot single statements).
DIRECT_CONNECTIONS = 16


class DirectConnections:
    """Autocommit DB-API connections to PostgreSQL for the hot single-statement calls (reading a game's
    live columns, a token, a move stored in one statement), outside SQLAlchemy's pool.

    Through the pool each of those statements also paid a checkout with its events, switching the
    connection to autocommit and back, and a checkin: about as much of the process's CPU as running
    the statement.  These connections stay in autocommit (each statement is its own transaction),
    and a checkout is a ``list.pop``.  Each keeps one cursor for all its statements: psycopg builds
    a cursor with its own copy of the adapters map, about a third of a short statement's CPU in this
    process.  At most `DIRECT_CONNECTIONS` exist (``get`` answers ``None`` beyond that and the caller
    uses the pool); one idle for `IDLE_PING_SECONDS` is pinged before use, and one that failed is
    closed, not reused.  ``engine.dispose()`` closes them all.
    """

    def __init__(self, engine: Engine, size: int = DIRECT_CONNECTIONS) -> None:
        self._engine = engine
        self._size = size
        self._idle: list[tuple[Any, Any, float]] = []
        self._count = 0
        self._lock = threading.Lock()
        cargs, cparams = engine.dialect.create_connect_args(engine.url)
        self._connect_args = (tuple(cargs), {**cparams, "autocommit": True})
        event.listen(engine, "engine_disposed", lambda _engine: self.close())

    def get(self) -> tuple[Any, Any] | None:
        """An idle connection and its cursor, or a new pair while fewer than ``size`` exist; ``None``
        when all are in use."""
        while True:
            try:
                conn, cur, since = self._idle.pop()
            except IndexError:
                break
            if conn.closed:
                self._forget(conn)
                continue
            if time.monotonic() - since >= IDLE_PING_SECONDS:
                try:
                    cur.execute("SELECT 1")
                except Exception:
                    self._forget(conn)
                    continue
            return conn, cur
        with self._lock:
            if self._count >= self._size:
                return None
            self._count += 1
        try:
            cargs, cparams = self._connect_args
            conn = self._engine.dialect.loaded_dbapi.connect(*cargs, **cparams)
            return conn, conn.cursor()
        except BaseException:
            with self._lock:
                self._count -= 1
            raise

    def put(self, conn: Any, cur: Any, broken: bool = False) -> None:
        """Give ``conn`` and its cursor back (``broken``: the statement failed in a way that may have cut
        it: close it)."""
        if broken or conn.closed or conn.info.transaction_status != 0:  # 0: idle, outside a transaction
            self._forget(conn)
        else:
            self._idle.append((conn, cur, time.monotonic()))

    def _forget(self, conn: Any) -> None:
        with contextlib.suppress(Exception):
            conn.close()
        with self._lock:
            self._count -= 1

    def close(self) -> None:
        while True:
            try:
                conn, _cur, _since = self._idle.pop()
            except IndexError:
                return
            self._forget(conn)


def _alembic_config(engine: Engine) -> Config:
    cfg = Config()
    location = resources.files("ludothek.storage") / "migrations"
    cfg.set_main_option("script_location", str(location))
    cfg.attributes["engine"] = engine
    return cfg


#: The PostgreSQL advisory lock that lets one process at a time migrate (any number may start at once).
MIGRATION_LOCK = 0x1D07E4


@contextmanager
def _migration_lock(engine: Engine) -> Iterator[None]:
    """One migrating process at a time: several servers started together on an empty database would
    otherwise all try to create the same tables.  SQLite: a lock file beside the database."""
    database = engine.url.database or ""
    if engine.dialect.name != "sqlite" or database in ("", ":memory:"):
        yield
        return
    import fcntl

    with open(f"{database}.migrate-lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def migrate(engine: Engine) -> None:
    """Bring the database to the newest schema (creating it when empty); safe to run from several processes."""
    with _migration_lock(engine):
        _migrate(engine)


def _migrate(engine: Engine) -> None:
    cfg = _alembic_config(engine)
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if sqlite:
            # Batch migrations rebuild a table by copying it and dropping the old one.  With
            # foreign keys enforced, that drop would delete every referencing row (ON DELETE
            # CASCADE), so enforcement is off meanwhile; the pragma only works outside a transaction.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        try:
            with connection.begin():
                if engine.dialect.name == "postgresql":
                    # Held until this transaction ends: a second server waits here, then finds nothing to do.
                    connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
                cfg.attributes["connection"] = connection
                command.upgrade(cfg, "head")
                if sqlite:
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise RuntimeError(f"the migration left dangling foreign keys: {broken[:5]}")
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()


def schema_revision(engine: Engine) -> str | None:
    """The schema revision the database is at (``None`` for an empty database)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    """The newest revision the shipped migrations know."""
    return ScriptDirectory.from_config(_alembic_config(create_engine("sqlite://"))).get_current_head()
