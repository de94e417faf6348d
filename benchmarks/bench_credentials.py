"""What checking a credential on every request costs: a session or token lookup in the database.

Sessions and API tokens are looked up fresh on every request (never cached), so
that ending one works at once on every server process (``docs/security.md``).
This measures one lookup — ``Sessions.user_by_token`` and ``Sessions.session_user``
— on SQLite and, when reachable, PostgreSQL, in microseconds of wall time.

Run: ``.venv/bin/python -m benchmarks credentials`` (or ``make bench``).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable

from argon2 import PasswordHasher

from ludothek.devtools.postgres import postgres_url, reset_database
from ludothek.services import Site
from ludothek.storage import make_engine, migrate

Row = tuple[str, float, str, str]
CALLS = 5000


def _per_call(fn: Callable[[], object], calls: int = CALLS) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def _measure(url: str, label: str) -> list[Row]:
    engine = make_engine(url)
    migrate(engine)
    site = Site(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    user = site.accounts.register("bench", "password-bench")
    token = site.sessions.create_token(user.id, "bench")
    sid = site.sessions.open_session(user.id)
    rows: list[Row] = [
        (f"credentials {label}: token lookup", _per_call(lambda: site.sessions.user_by_token(token)), "µs", "per request"),
        (f"credentials {label}: session lookup", _per_call(lambda: site.sessions.session_user(sid)), "µs", "per request"),
        (f"credentials {label}: pool round trip", _per_call(lambda: _select_one(engine)), "µs",
         "checkout + SELECT 1 + return, for scale"),
    ]
    engine.dispose()
    return rows


def _select_one(engine: object) -> None:
    raw = engine.raw_connection()  # type: ignore[attr-defined]
    try:
        cur = raw.cursor()
        cur.execute("SELECT 1")
        cur.fetchone()
        cur.close()
    finally:
        raw.close()


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        rows = _measure(f"sqlite:///{tmp}/credentials.sqlite3", "SQLite")
    url = postgres_url()
    if url is not None:
        reset_database(url)
        try:
            rows += _measure(url, "PostgreSQL")
        finally:
            reset_database(url)
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
