"""How long the round job takes to start a tournament round (issue 31): ``python -m benchmarks tournament``.

256 entrants at tables of four Machi Koro players: one round start writes 64 games (rows, seats, the
first chance actions, deadlines), their table links and 256 notices in one transaction.  Measured for
round 1 (pairing by rating) and round 2 (after every game of round 1 ended), on SQLite and, where it
is reachable, PostgreSQL.  Pairing is whatever `ludothek.services.tournaments.formats` registers.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from argon2 import PasswordHasher

from ludothek.devtools.postgres import postgres_url, reset_database
from ludothek.devtools.tournamentraces import _later, end_round
from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.storage.models import utcnow

Row = tuple[str, float, str, str]


def measure(url: str, entrants: int, table_size: int) -> list[float]:
    """Seconds for the round job to start round 1, then round 2."""
    from datetime import timedelta

    engine = make_engine(url)
    migrate(engine)
    # Cheap password hashing: registering the entrants is not what is measured.
    site = Site(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    try:
        people = [site.accounts.register(f"bench{i}", f"password-bench{i}") for i in range(entrants)]
        tid = site.tournaments.create(people[0], {
            "name": "Bench cup", "game": "machikoro", "table_size": table_size, "rounds": 2,
            "time_control": "move:3", "max_entrants": entrants,
            "starts_at": (utcnow() + timedelta(hours=1)).isoformat()})
        for who in people:
            site.tournaments.enter(tid, who)
        out = []
        for round_no in (1, 2):
            start = time.perf_counter()
            assert site.tournaments.run_due(_later()) == 1
            out.append(time.perf_counter() - start)
            end_round(site, tid, round_no)
        return out
    finally:
        site.engine.dispose()


def run(entrants: int = 256, table_size: int = 4) -> list[Row]:
    rows: list[Row] = []
    games = entrants // table_size
    with tempfile.TemporaryDirectory() as tmp:
        first, second = measure(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}", entrants, table_size)
    rows += [(f"tournament round 1 start, SQLite ({entrants} entrants)", first * 1000, "ms", f"{games} games"),
             (f"tournament round 2 start, SQLite ({entrants} entrants)", second * 1000, "ms", f"{games} games")]
    url = postgres_url()
    if url is not None:
        reset_database(url)
        try:
            first, second = measure(url, entrants, table_size)
        finally:
            reset_database(url)
        rows += [(f"tournament round 1 start, PostgreSQL ({entrants} entrants)", first * 1000, "ms", f"{games} games"),
                 (f"tournament round 2 start, PostgreSQL ({entrants} entrants)", second * 1000, "ms",
                  f"{games} games")]
    return rows
