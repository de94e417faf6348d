"""Statistics (issue 32): the nightly rebuild from many stored games, on one core.

Writes ``BENCH_STATS_GAMES`` (default 100,000) finished games into a fresh SQLite database: a pool of
real random playouts of all four games (`ludothek.devtools.gamefill.playout`, with undos) stored again
and again under other players, so that writing the data does not take longer than the rebuild; a fifth
of the games of three or four have a bot seat.  Then times `Statistics.rebuild` (CPU seconds of this
process, and wall): reading every game's actions, seats and ratings, the figures, storing them.
Target (issue 32): 100,000 games in at most 60 s of one core.

``python -m benchmarks statistics``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from ludothek import engine as eng
from ludothek.devtools.gamefill import KINDS, add_users, playout
from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.storage.models import ActionRow, GameRow, RatingChange, SeatRow

Row = tuple[str, float, str, str]

GAMES = int(os.environ.get("BENCH_STATS_GAMES", "100000"))
POOL = int(os.environ.get("BENCH_STATS_POOL", "400"))


def _store(engine: Any, games: int, users: list[int], rng: random.Random) -> int:
    pool = []
    size = min(POOL, games)
    for i in range(size):
        state = playout(KINDS[i % len(KINDS)], rng.choice((2, 2, 3, 4)), rng)
        pool.append((state.game.id, state.num_players, json.dumps(state.options), json.dumps(state.result_json()),
                     [(e.seat, e.action) for e in state.history()], {r["seat"]: r["rank"] for r in state.result_json()}))
    start = datetime(2026, 1, 1, tzinfo=UTC)
    actions_total = 0
    rows: dict[str, list[dict[str, Any]]] = {"g": [], "s": [], "a": [], "r": []}
    for gid in range(1, games + 1):
        kind, n, options, result, actions, ranks = pool[gid % size]
        people = rng.sample(users, n)
        bot = rng.randrange(n) if n > 2 and rng.random() < 0.2 else None
        when = start + timedelta(minutes=gid)
        rows["g"].append({"id": gid, "game": kind, "rules_version": eng.load(kind).rules_version, "num_players": n,
                          "options_json": options, "status": "finished", "creator_id": people[0], "created_at": when,
                          "finished_at": when, "seq": len(actions), "to_move": eng.TERMINAL, "result_json": result})
        for s in range(n):
            rows["s"].append({"game_id": gid, "seat": s, "kind": "bot" if s == bot else "player",
                              "user_id": None if s == bot else people[s], "place": ranks[s], "ended_at": when})
            if s != bot:
                rows["r"].append({"game_id": gid, "user_id": people[s], "game": kind, "place": ranks[s],
                                  "mu_before": rng.gauss(25, 3), "sigma_before": 5.0, "mu": 25.0, "sigma": 5.0,
                                  "at": when})
        rows["a"].extend({"game_id": gid, "seq": i, "seat": seat, "action": action, "created_at": when}
                         for i, (seat, action) in enumerate(actions))
        actions_total += len(actions)
        if len(rows["g"]) >= 500 or gid == games:
            with engine.begin() as conn:
                conn.execute(insert(GameRow), rows["g"])
                conn.execute(insert(SeatRow), rows["s"])
                conn.execute(insert(ActionRow), rows["a"])
                conn.execute(insert(RatingChange), rows["r"])
            for value in rows.values():
                value.clear()
    return actions_total


def run(games: int = GAMES) -> list[Row]:
    rng = random.Random(32)
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'stats.sqlite3'}")
        migrate(engine)
        users = add_users(engine, 2000)
        wall = time.perf_counter()
        actions = _store(engine, games, users, rng)
        stored = time.perf_counter() - wall
        site = Site(engine)
        wall, cpu = time.perf_counter(), time.process_time()
        counted = site.statistics.rebuild(datetime(2026, 11, 5, 3, tzinfo=UTC))
        rebuild = (time.process_time() - cpu, time.perf_counter() - wall)
        tables = [site.statistics.table(k) for k in KINDS]
        rows = sum(len(table.figures) for table in tables if table is not None)
        engine.dispose()
    return [("statistics: rebuild", rebuild[0], "s CPU",
             f"{counted} games, {actions} stored actions, {rows} figures; {rebuild[1]:.1f} s wall; "
             f"target <= 60 s for 100,000 (data written in {stored:.0f} s)")]


if __name__ == "__main__":
    for name, value, unit, note in run(int(sys.argv[1]) if len(sys.argv) > 1 else GAMES):
        print(f"{name:25} {value:10.2f} {unit:6} {note}")
