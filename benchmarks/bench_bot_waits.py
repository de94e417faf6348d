"""How long a person waits for the bots in Roll Through the Ages, and on which bots (issue 29).

A person plays a 4-seat Roll Through the Ages game against three `hard` bots, answering at once (a
scripted player: the game's fast policy), while ``ludothek bots`` worker processes (2, at the delay
and CPU priority of ``serve``) play the bots.  Measured: the time from the person's move that hands
the turn on to the person's next decision ("wait per round"), and, from a look at the game's row
every 20 ms, what it was made of: for each bot decision the pause before a worker claimed it (the
0.4 s people need to follow a bot, plus finding it) and the time from the claim to the stored move
(thinking and storing).

Scenarios: ``alone`` (this game only), and ``busy``: as many more games as there are workers, where
other people (answering at once, as fast as this one) play against `hard` bots too.  A worker thinks
about one turn at a time; in ``busy`` the person also waits while the workers think about bots of the
other tables, bots that are not before the person in turn order.  That extra wait is what the
workers' order of claiming decides (`ludothek.storage.botturns`; docs/bots.md, "Who waits on whom").

Run alone: ``python -m benchmarks.bench_bot_waits [rounds] [sqlite|postgres] [alone|busy]`` (default 3
rounds of both on SQLite; ``BENCH_BOT_NICE`` sets the workers' ``--nice``, default 10 as under ``serve``); ``make bench``
runs 2 rounds of each scenario.
"""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from ludothek.services import Site
from ludothek.storage import make_engine, migrate

Row = tuple[str, float, str, str]

WORKERS = 2
DELAY = 0.4
LOOK = 0.02


@dataclass
class Table:
    """One game with one scripted person; what the person waited for."""

    game_id: int
    seat: int
    waits: list[float] = field(default_factory=list)
    #: Per bot decision of this game: (pause before the claim, claim to stored move), seconds.
    decisions: list[tuple[float, float]] = field(default_factory=list)
    #: Seconds in the person's waits during which no worker held this game's turn although a bot was
    #: to move and the pause was over: the turn waited for a worker busy elsewhere.
    queued: list[float] = field(default_factory=list)


def _row(site: Site, gid: int) -> tuple[int, int, str, int | None, float | None, float | None]:
    sql = (f"SELECT seq, to_move, status, bot_claim_seq, turn_since, bot_lease_until FROM games "
           f"WHERE id = {site.db.mark}")
    seq, to_move, status, claim, since, lease = site.db.single(sql, (gid,))
    from ludothek.storage.database import when

    s, le = when(since), when(lease)
    return seq, to_move, status, claim, s.timestamp() if s else None, le.timestamp() if le else None


def _person(site: Site, table: Table, rounds: int, stop: threading.Event) -> None:
    """Answer at once with the game's fast policy; time each wait from handing on to the next decision."""
    from ludothek.bots.strategy import strategy_for

    policy = strategy_for("rolltheages").policy
    assert policy is not None
    rng = random.Random(table.game_id)
    handed_on: float | None = None
    last_seq, claim_seen, claim_at, since_at = -1, None, 0.0, 0.0
    queued_from: float | None = None
    queued = 0.0
    while not stop.is_set() and len(table.waits) < rounds:
        seq, to_move, status, claim, since, lease = _row(site, table.game_id)
        now = time.time()
        if status != "running":
            break
        if seq != last_seq:  # a move was stored: the decision before it is done
            if claim_seen is not None and handed_on is not None:
                table.decisions.append((claim_at - since_at, now - claim_at))
            last_seq, claim_seen, since_at = seq, None, since or now
            queued_from = None
        if to_move != table.seat and claim == seq and claim_seen is None and lease and lease > now:
            claim_seen, claim_at = seq, now
            if queued_from is not None:
                queued += now - queued_from
                queued_from = None
        elif (handed_on is not None and to_move != table.seat and claim_seen is None and queued_from is None
              and since and now > since + DELAY + 0.3):
            queued_from = since + DELAY + 0.3  # due (and then some), yet no worker took it
        if to_move == table.seat:
            if handed_on is not None:
                table.waits.append(now - handed_on)
                table.queued.append(queued)
                handed_on, queued = None, 0.0
            with site.play.state(table.game_id) as (_, tracked):
                assert tracked is not None
                state = tracked.state.clone()
            action = policy(state, rng)
            event = site.play.submit(table.game_id, action, seq, seat=table.seat)
            if event.to_move != table.seat:
                handed_on = time.time()
                last_seq = event.seq
            continue
        time.sleep(LOOK)


def _new_table(site: Site, name: str) -> Table:
    """A running 4-seat game: the person against three `hard` bots."""
    person = site.accounts.register(name, f"password-{name}")
    seats = [{"kind": "me"}] + [{"kind": "bot", "bot": "hard"}] * 3
    gid = site.lobby.create_game(person, "rolltheages", 4, {}, seats)
    seat = site.games.game(gid).seat_of(person.id)  # the seats are shuffled when the game starts
    assert seat is not None
    return Table(gid, seat)


@contextlib.contextmanager
def _workers(db: str, count: int, env: dict[str, str] | None = None) -> Iterator[list[subprocess.Popen[bytes]]]:
    nice = os.environ.get("BENCH_BOT_NICE", "10")  # serve's; 0 gives the workers a fair share of a busy machine
    procs = [subprocess.Popen([sys.executable, "-m", "ludothek.cli", "bots", "--db", db, "--delay", str(DELAY),
                               "--nice", nice],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})})
             for _ in range(count)]
    try:
        yield procs
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=30)


def scenario(db: str, others: int, rounds: int) -> list[Table]:
    """``1 + others`` tables played at once; the first is the one measured (all are returned)."""
    engine = make_engine(db)
    migrate(engine)
    site = Site(engine)
    tag = random.randrange(10**6)
    tables = [_new_table(site, f"p{tag}x{i}") for i in range(1 + others)]
    stop = threading.Event()
    with _workers(db, WORKERS):
        threads = [threading.Thread(target=_person, args=(Site(make_engine(db)), t, rounds, stop), daemon=True)
                   for t in tables]
        for t in threads:
            t.start()
        threads[0].join(timeout=rounds * 120)
        stop.set()
        for t in threads:
            t.join(timeout=30)
    engine.dispose()
    return tables


def _summary(name: str, table: Table) -> list[Row]:
    if not table.waits:
        return [(f"bot_waits {name}: no complete round", 0.0, "s", "")]
    thinks = [d[1] for d in table.decisions]
    pauses = [d[0] for d in table.decisions]
    per_round = len(table.decisions) / max(1, len(table.waits))
    return [
        (f"bot_waits {name}: person's wait per round, mean", statistics.mean(table.waits), "s",
         f"{len(table.waits)} rounds: " + ", ".join(f"{w:.1f}" for w in table.waits)),
        (f"bot_waits {name}: bot decisions per round", per_round, "", "3 hard bots before the person"),
        (f"bot_waits {name}: pause before a claim, mean", statistics.mean(pauses) if pauses else 0.0, "s",
         f"the delay is {DELAY} s"),
        (f"bot_waits {name}: claim to stored move, mean", statistics.mean(thinks) if thinks else 0.0, "s",
         "thinking and storing"),
        (f"bot_waits {name}: due but no worker free, per round", statistics.mean(table.queued), "s",
         "bots of other tables thinking"),
    ]


def _database(tmp: str, db_kind: str) -> str:
    if db_kind == "postgres":
        from ludothek.devtools.postgres import postgres_url, reset_database

        url = postgres_url()
        assert url is not None, "PostgreSQL is not reachable"
        reset_database(url)
        return url
    return f"sqlite:///{os.path.join(tmp, 'waits.sqlite3')}"


SCENARIOS = {"alone": 0, "busy": WORKERS}


def run(rounds: int = 2, db_kind: str = "sqlite", only: str | None = None) -> list[Row]:
    rows: list[Row] = []
    for name, others in SCENARIOS.items():
        if only is not None and name != only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            tables = scenario(_database(tmp, db_kind), others, rounds)
            rows += _summary(name, tables[0])
            for i, table in enumerate(tables):
                rows.append((f"bot_waits {name}: table {i}, wait per round, mean",
                             statistics.mean(table.waits) if table.waits else 0.0, "s",
                             "rounds " + ", ".join(f"{w:.1f}" for w in table.waits)
                             + "; no worker free " + ", ".join(f"{q:.1f}" for q in table.queued)))
            first = tables[0].decisions
            rows.append((f"bot_waits {name}: table 0, decisions claimed within 0.5 s of their pause",
                         float(sum(1 for pause, _ in first if pause <= DELAY + 0.1)), "",
                         f"of {len(first)}; start to claim: " + ", ".join(f"{p:.2f}" for p, _ in first)))
    return rows


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 3
    kind = argv[1] if len(argv) > 1 else "sqlite"
    only = argv[2] if len(argv) > 2 else None
    for bench, value, unit, note in run(rounds, kind, only):
        print(f"{bench:<68} {value:>8.2f} {unit:<2} {note}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
