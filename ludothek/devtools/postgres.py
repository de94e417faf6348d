"""The project machines' PostgreSQL (127.0.0.1:5432, trust auth, database ``test``) for tests and benchmarks.

One place finds a usable URL and empties the database, so the storage tests and
the portal benchmark agree on where PostgreSQL is and what a clean slate means.
"""

from __future__ import annotations

from sqlalchemy import text

from ludothek.devtools.services import POSTGRES, port_open
from ludothek.storage import make_engine

#: Trust auth accepts either role on the project machines; the first that connects is used.
PG_URLS = tuple(f"postgresql+psycopg://{user}@{POSTGRES[0]}:{POSTGRES[1]}/test" for user in ("postgres", "root"))

#: Every table the Ludothek migrations create, children first.
LUDOTHEK_TABLES = (
    "turn_mails", "outbox_attempts", "outbox", "user_emails", "notify_prefs", "used_links", "mail_lease",
    "actions", "seats", "games", "api_tokens", "sessions", "users", "meta", "alembic_version",
)

UNREACHABLE = f"PostgreSQL is not reachable on {POSTGRES[0]}:{POSTGRES[1]} (database 'test')"


def postgres_url() -> str | None:
    """A URL of the local test database that accepts a connection, or ``None``."""
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


def reset_database(url: str) -> None:
    """Drop Ludothek's tables so that the next start migrates an empty database."""
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            for table in LUDOTHEK_TABLES:
                conn.execute(text(f"DROP TABLE IF EXISTS {table} CASCADE"))
    finally:
        engine.dispose()
