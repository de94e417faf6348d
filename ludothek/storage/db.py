"""Database engines and migrations.

The schema is owned by the Alembic migrations that ship inside this package,
so a fresh database and an old one are brought to the same schema by the same
code path (`migrate`), with no ``alembic.ini`` to find on disk.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool


def normalize_url(url: str) -> str:
    """Accept ``postgresql://`` and ``postgres://`` and use the psycopg 3 driver for them."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite files get WAL mode and a busy timeout so that threads can share them."""
    url = normalize_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        kwargs: dict[str, Any] = {
            "connect_args": {"check_same_thread": False, "timeout": 30},
            "pool_size": 20,
            "max_overflow": 20,
        }
        if database in ("", ":memory:"):
            kwargs = {"connect_args": kwargs["connect_args"], "poolclass": StaticPool}
        else:
            Path(database).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, **kwargs)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            if database not in ("", ":memory:"):
                cur.execute("PRAGMA journal_mode=WAL")
            # WAL with synchronous=NORMAL is durable against process crashes, which is what a restart needs.
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


def _alembic_config(engine: Engine) -> Config:
    cfg = Config()
    location = resources.files("ludothek.storage") / "migrations"
    cfg.set_main_option("script_location", str(location))
    cfg.attributes["engine"] = engine
    return cfg


def migrate(engine: Engine) -> None:
    """Bring the database to the newest schema (creating it when empty)."""
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
