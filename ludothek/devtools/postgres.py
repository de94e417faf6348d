"""The project machines' PostgreSQL (127.0.0.1:5432, trust auth, database ``test``) for tests and benchmarks.

One place finds a usable URL and empties the database, so the storage tests and
the portal benchmark agree on where PostgreSQL is and what a clean slate means.
"""

from __future__ import annotations

import atexit
import os

from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from ludothek.devtools.services import POSTGRES, port_open
from ludothek.storage import make_engine

#: Trust auth accepts either role on the project machines; the first that connects is used.
PG_URLS = tuple(f"postgresql+psycopg://{user}@{POSTGRES[0]}:{POSTGRES[1]}/test" for user in ("postgres", "root"))

UNREACHABLE = f"PostgreSQL is not reachable on {POSTGRES[0]}:{POSTGRES[1]} (database 'test')"

#: The database this process works in, created on first use (see `postgres_url`).
_own_url: str | None = None


def _server_url() -> str | None:
    """A URL of the machine's ``test`` database that accepts a connection, or ``None``."""
    if not port_open(POSTGRES):
        return None
    for url in PG_URLS:
        engine = make_engine(url)
        try:
            with engine.connect():
                return url
        except Exception:  # a role that does not exist: try the next one
            continue
        finally:
            engine.dispose()
    return None


def postgres_url() -> str | None:
    """A URL of an empty database of this process's own, or ``None`` without PostgreSQL.

    Every test or benchmark process gets a database named after its process id,
    created here and dropped when the process exits.  Runs that happen at the
    same time on one machine (a developer's suite beside CI, or several
    worktrees) therefore never see each other's tables.  Server processes that a
    test starts are handed this URL; they do not call this function.
    """
    global _own_url
    if _own_url is not None:
        return _own_url
    base = _server_url()
    if base is None:
        return None
    name = f"ludothek_test_{os.getpid()}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    _own_url = base.rsplit("/", 1)[0] + "/" + name
    atexit.register(_drop, base, name)
    return _own_url


def _drop(base: str, name: str) -> None:
    admin = create_engine(base, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    except Exception:  # the server went away first: nothing left to tidy
        pass
    finally:
        admin.dispose()


def reset_database(url: str) -> None:
    """Empty the database: drop and recreate its ``public`` schema, whatever tables it holds.

    Dropping the schema rather than a list of tables keeps up with every migration.
    """
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
    finally:
        engine.dispose()
