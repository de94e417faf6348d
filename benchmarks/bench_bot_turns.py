"""What a bot turn costs a bot worker's own thread: finding and claiming the turn, reading the game,
storing the move (the thinking runs in threads of its own and is not counted).

Twenty Machi Koro games, each a person against an `easy` bot; the person (this benchmark's main
thread) answers with a random legal move whenever it is their turn (their seat is drawn when the game
starts), and a `BotWorker` with no delay plays the bot's turns in its own thread, as ``ludothek bots``
does.  Measured: the CPU time of the worker's thread per bot turn, in claiming, reading and storing
turns (`BotWorker.run_once`; the looks that find nothing to do while the person moves are not in it),
and the wall time per turn.  Load-independent enough to compare two versions run one after another on
a quiet machine.

``python -m benchmarks.bench_bot_turns [sqlite|postgres] [TURNS]``
"""

from __future__ import annotations

import contextlib
import random
import sys
import tempfile
import time
from datetime import datetime

from argon2 import PasswordHasher

from ludothek.devtools.postgres import postgres_url, reset_database
from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.workers.bots import BotWorker

Row = tuple[str, float, str, str]

GAME = "machikoro"
#: Give up after this long (seconds), whatever was played: a benchmark never hangs a run.
LIMIT = 120.0


class _TimedWorker(BotWorker):
    """A `BotWorker` that adds up its thread's CPU time in claiming and playing turns."""

    cpu = 0.0

    def run_once(self, now: datetime | None = None) -> int:
        start = time.thread_time()
        try:
            return super().run_once(now)
        finally:
            self.cpu += time.thread_time() - start


def measure(url: str, turns: int = 1000, games: int = 20, seed: int = 1) -> tuple[float, float, int]:
    """(worker thread's CPU seconds per bot turn, wall seconds per bot turn, turns played)."""
    engine = make_engine(url)
    migrate(engine)
    site = Site(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    rng = random.Random(seed)
    person = site.accounts.register(f"person{seed}x{rng.randrange(10**6)}", "password-p")

    def new_game() -> int:
        return site.lobby.create_game(person, GAME, 2, {}, [{"kind": "me"}, {"kind": "bot", "bot": "easy"}])

    gids = [new_game() for _ in range(games)]
    worker = _TimedWorker(site, delay=0.0, interval=0.01, owner="bench")
    worker.start()
    try:
        played, cpu, start = worker.played, worker.cpu, time.perf_counter()
        while worker.played - played < turns and time.perf_counter() - start < LIMIT:
            for k, gid in enumerate(gids):
                with site.play.state(gid) as (info, tracked):
                    if info.status != "running" or tracked is None:
                        gids[k] = new_game()
                        continue
                    seat = info.to_move  # the person's seat is drawn when the game starts
                    if seat < 0 or info.is_bot_seat(seat):
                        continue
                    action = rng.choice(tracked.state.legal_actions())
                with contextlib.suppress(Exception):  # a stale read: the next round tries again
                    site.play.submit(gid, action, info.seq, seat=seat)
            time.sleep(0.001)
        done = worker.played - played
        used, wall = worker.cpu - cpu, time.perf_counter() - start
    finally:
        worker.stop()
        engine.dispose()
    return used / max(1, done), wall / max(1, done), done


def run() -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        cpu, wall, done = measure(f"sqlite:///{tmp}/bots.sqlite3", 500)
        rows.append(("bot worker, SQLite: thread CPU per bot turn", cpu * 1e3, "ms",
                     f"{done} turns, {wall * 1e3:.1f} ms wall each; thinking not counted"))
    url = postgres_url()
    if url is not None:
        reset_database(url)
        cpu, wall, done = measure(url, 1000)
        reset_database(url)
        rows.append(("bot worker, PostgreSQL: thread CPU per bot turn", cpu * 1e3, "ms",
                     f"{done} turns, {wall * 1e3:.1f} ms wall each; thinking not counted"))
    return rows


if __name__ == "__main__":
    kind = sys.argv[1] if len(sys.argv) > 1 else "postgres"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    if kind == "postgres":
        pg = postgres_url()
        if pg is None:
            sys.exit("PostgreSQL is not reachable")
        reset_database(pg)
        result = measure(pg, count)
        reset_database(pg)
    else:
        with tempfile.TemporaryDirectory() as tmp_dir:
            result = measure(f"sqlite:///{tmp_dir}/bots.sqlite3", count)
    print(f"{kind}: {result[2]} bot turns, worker thread CPU {result[0] * 1e3:.2f} ms per turn, "
          f"wall {result[1] * 1e3:.2f} ms per turn")
