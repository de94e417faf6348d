"""The storage side of a move, without the web layer: CPU time per move of one process.

Per move it does what a server process does for one move and the other seat's view of it: look up
the mover's API token, store the move (the cached fast path), and read the game and its state for
the other seat.  Every third round another store (another server process, or a bot worker) plays
the next moves, so this store's cached game falls behind and must catch up when it is read.

``python -m benchmarks.bench_store_moves [sqlite|postgres] [moves]`` prints the CPU milliseconds per
move (``time.process_time``: load-independent enough to compare two versions run one after another).
"""

from __future__ import annotations

import random
import sys
import tempfile
import time

from argon2 import PasswordHasher

from ludothek.devtools.postgres import postgres_url, reset_database
from ludothek.services import Site
from ludothek.storage import make_engine, migrate

GAME = "machikoro"


def _site(url: str) -> Site:
    engine = make_engine(url)
    migrate(engine)
    return Site(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


def measure(url: str, moves: int, games: int = 20, seed: int = 1) -> float:
    """CPU milliseconds per move (this process; the database server's own work not counted)."""
    site, other = _site(url), _site(url)
    rng = random.Random(seed)
    users = [site.accounts.register(f"user{seed}x{i}", f"password-{i}") for i in range(2)]
    tokens = {u.id: site.sessions.create_token(u.id) for u in users}
    gids = []
    for _ in range(games):
        gid = site.lobby.create_game(users[0], GAME, 2, {})
        site.lobby.join(gid, users[1])
        gids.append(gid)
    done = 0
    cpu = 0.0
    rounds = 0
    while done < moves:
        rounds += 1
        for k, gid in enumerate(list(gids)):
            with site.play.state(gid) as (info, tracked):
                if info.status != "running" or tracked is None:
                    gid2 = site.lobby.create_game(users[0], GAME, 2, {})
                    site.lobby.join(gid2, users[1])
                    gids[k] = gid2
                    continue
                legal = tracked.state.legal_actions()
                mover = info.seats[info.to_move].user_id
                assert mover is not None
                action = rng.choice(legal)
            if (rounds + k) % 3 == 0:  # another process moves: this store's cache falls behind
                other.play.submit_as(gid, mover, action, info.seq)
                continue
            start = time.process_time()
            assert site.sessions.user_by_token(tokens[mover]) is not None
            site.play.submit_as(gid, mover, action, info.seq)
            site.games.game(gid)
            with site.play.state(gid):
                pass
            cpu += time.process_time() - start
            done += 1
    for s in (site, other):
        s.engine.dispose()
    return cpu / done * 1000


def run() -> list[tuple[str, float, str, str]]:
    """The rows `make bench` prints: SQLite always, PostgreSQL when it is reachable."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows.append(("store alone: CPU per move, SQLite", measure(f"sqlite:///{tmp}/moves.sqlite3", 3000), "ms",
                     "token, move, the other seat's read; no web layer"))
    url = postgres_url()
    if url is not None:
        reset_database(url)
        rows.append(("store alone: CPU per move, PostgreSQL", measure(url, 3000), "ms",
                     "the same; this process only, not the database's"))
        reset_database(url)
    return rows


def main() -> None:
    kind = sys.argv[1] if len(sys.argv) > 1 else "sqlite"
    moves = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    if kind == "postgres":
        url = postgres_url()
        if url is None:
            print("postgres: PostgreSQL not reachable")
            return
        reset_database(url)
        print(f"postgres: {measure(url, moves):.3f} ms CPU per move")
        reset_database(url)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"sqlite: {measure(f'sqlite:///{tmp}/moves.sqlite3', moves):.3f} ms CPU per move")


if __name__ == "__main__":
    main()
