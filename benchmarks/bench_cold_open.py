"""Opening a cold game: restored from its snapshot, or replayed from its first row (issue 34).

A *cold* game is one no cache of this process holds (after a restart, or on a site with more
running games than the cache keeps).  *Opening* it is `Site.play.state(id)`: reading its summary
and bringing its state to the stored move number, which every request about the game pays before
its own work (a view, a move, a bot's turn).  The log's sentences are not part of it: they are
written when a log is first read (`ludothek.services.tracked`).  Measured as the CPU time of the
opening thread (the database is SQLite in this process, so its work counts too).

1. **Length.**  Machi Koro games (2 players) of 50, 500 and 5,000 stored entries; the long ones are
   real play followed by move/undo pairs (no real game is that long; issue 28's records are).  Each
   game's snapshot lies ``every - 1`` entries behind its end: the worst case, so a restore applies
   that many rows.  Each game is opened cold (dropped from the caches of state and summary first) in
   a `Site` with snapshots, and in one with snapshots off (a replay of every row); the ratio is printed.
2. **5,000 games opened twice.**  5,000 stored games of 60 to 120 entries (snapshots as the move
   path writes them: up to ``every - 1`` entries behind), opened one after the other in one new
   `Site`, then all again: CPU per game of each pass.  Then the same with snapshots off and a cache
   of 4,096 games' worth of bytes, as before issue 34.
3. **When to write.**  The CPU of writing one snapshot against a move's; every N entries it costs
   a move 1/N of that.

``python -m benchmarks.bench_cold_open [games]`` (default 5,000; the smoke test runs a few).
Targets (issue 34): opening ≤ 1 ms and independent of the length; the second pass ≥ 10× cheaper
than the first, or both under 1 ms a game.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ludothek import engine as eng
from ludothek.engine import CHANCE, UNDO, snapshots
from ludothek.services import Site
from ludothek.services.snapkeeper import SNAPSHOT_EVERY
from ludothek.storage.db import make_engine, migrate
from ludothek.storage.models import utcnow

Row = tuple[str, float, str, str]
GAME = "machikoro"


def _cpu(work: Callable[[], Any]) -> float:
    start = time.thread_time()
    work()
    return time.thread_time() - start


def _entries(state: eng.State, rng: random.Random, length: int) -> list[tuple[int, str]]:
    """Entries that take ``state`` (changed in place) to ``length`` history entries, never to the end:
    random play while the game is young, then move/undo pairs by the seat to move."""
    out: list[tuple[int, str]] = []
    while state.move_number() < length:
        seat = state.current_player()
        if seat == CHANCE:
            action = eng.sample_chance(state, rng)
        else:
            legal = state.legal_actions()
            if state.move_number() > 60 or length - state.move_number() < 8:  # pairs keep the game running
                if length - state.move_number() >= 2:
                    action = legal[0]
                    state.apply_action(action)
                    state.undo(seat)
                    out += [(seat, action), (seat, UNDO)]
                    continue
                action = "pass" if "pass" in legal else legal[0]
            else:
                action = rng.choice(legal)
        state.apply_action(action)
        out.append((seat, action))
        if state.is_terminal():
            raise RuntimeError("the generated game ended")
    return out


class Store:
    """A SQLite database of stored games, written directly (rows, summary, snapshot) for speed."""

    def __init__(self, folder: str, every: int) -> None:
        self.url = f"sqlite:///{folder}/cold-open.sqlite3"
        engine = make_engine(self.url)
        migrate(engine)
        self.site = Site(engine, snapshot_every=every)
        self.every = every
        self.users = [self.site.accounts.register(f"player{i}", "password-long-enough") for i in range(2)]

    def game(self, length: int, rng: random.Random, behind: int) -> int:
        """A running game of ``length`` entries with its snapshot ``behind`` entries before the end."""
        site = self.site
        gid = site.lobby.create_game(self.users[0], GAME, 2, {})
        site.lobby.join(gid, self.users[1])
        rec = site.play.record(gid)
        state = eng.replay(rec)
        start = state.move_number()
        rows = _entries(state, rng, length)
        at = max(start, length - behind)
        if at > 0:
            snap = eng.replay({**rec, "actions": rec["actions"] + [
                {"seat": "chance" if s == CHANCE else s, "action": a} for s, a in rows[:at - start]]})
            site.snapshots.rows.write(gid, at, snap.game.rules_version, snapshots.dump(snap), utcnow())
        db = site.db
        with site.engine.begin() as conn:
            db.insert_actions(conn, gid, start, rows, utcnow())
            conn.exec_driver_sql(f"UPDATE games SET seq = {db.mark}, to_move = {db.mark} WHERE id = {db.mark}",
                                 (state.move_number(), state.current_player(), gid))
        return gid

    def fresh(self, every: int, cache_bytes: int | None = None) -> Site:
        """A new `Site` on the same database: what a new process sees (nothing cached)."""
        return Site(make_engine(self.url), snapshot_every=every, cache_bytes=cache_bytes)


def _open(site: Site, gid: int) -> None:
    with site.play.state(gid) as (info, tracked):
        assert tracked is not None and tracked.state.move_number() == info.seq


def lengths(folder: str, every: int, per_length: int = 20) -> list[Row]:
    Path(folder + "/lengths").mkdir()
    store = Store(folder + "/lengths", every)
    rng = random.Random(34)
    rows: list[Row] = []
    for length in (50, 500, 5_000):
        games = [store.game(length, rng, every - 1) for _ in range(per_length)]
        timed: dict[str, list[float]] = {"snapshot": [], "replay": []}
        sites = {"snapshot": store.fresh(every), "replay": store.fresh(0)}
        for gid in games:  # interleaved: the machine's load falls on both alike
            for mode, site in sites.items():
                # Cold: in no cache of this process (its summary neither), as after a restart.
                site.states.drop(gid)
                site.games.info_cache.pop(gid, None)
                restored = site.snapshots.restored
                timed[mode].append(_cpu(lambda s=site, g=gid: _open(s, g)))  # type: ignore[misc]
                assert site.snapshots.restored == restored + (mode == "snapshot")
                site.states.drop(gid)  # the caches stay small: the heap (and its garbage collection) alike for all
        for site in sites.values():
            site.engine.dispose()
        snap, replay = (statistics.median(timed[m]) * 1000 for m in ("snapshot", "replay"))
        rows.append((f"cold_open_{length}_snapshot", snap, "ms", f"median of {per_length}; ≤ {every - 1} rows applied"))
        rows.append((f"cold_open_{length}_replay", replay, "ms", "snapshots off: every row replayed"))
        rows.append((f"cold_open_{length}_ratio", replay / snap, "x", "replay / snapshot, same run"))
    return rows


def two_passes(folder: str, every: int, games: int) -> list[Row]:
    Path(folder + "/passes").mkdir()
    store = Store(folder + "/passes", every)
    rng = random.Random(35)
    ids = [store.game(rng.randint(60, 120), rng, rng.randrange(every)) for _ in range(games)]
    rows: list[Row] = []
    for label, n, cache in (("snapshot", every, None), ("replay_4096", 0, None)):
        site = store.fresh(n, cache)
        if label == "replay_4096":  # before issue 34: replay, and a cache of 4,096 games (here: their bytes)
            with site.play.state(ids[0]) as (_, tracked):
                assert tracked is not None
                site.states.max_bytes = 4096 * tracked.size_estimate()
        passes = []
        for _ in range(2):
            passes.append(sum(_cpu(lambda s=site, g=gid: _open(s, g)) for gid in ids) / len(ids) * 1000)  # type: ignore[misc]
        rows.append((f"open_{games}_games_{label}_pass1", passes[0], "ms/game", f"cache {len(site.states)} games, "
                     f"{site.states.bytes / 2**20:.0f} MB"))
        rows.append((f"open_{games}_games_{label}_pass2", passes[1], "ms/game",
                     f"{passes[0] / passes[1]:.1f}x cheaper than pass 1"))
        site.engine.dispose()
    return rows


def when_to_write(folder: str, every: int) -> list[Row]:
    """A snapshot's CPU (dump and write) against a stored move's, on the same database."""
    Path(folder + "/write").mkdir()
    store = Store(folder + "/write", every)
    site = store.fresh(0)  # snapshots off: only the moves are timed
    rng = random.Random(36)
    gid = store.game(0, rng, 0)
    moves: list[float] = []
    writes: list[float] = []
    for _ in range(200):
        info = site.games.game(gid)
        if info.status != "running":
            break
        with site.play.state(gid) as (_, tracked):
            assert tracked is not None
            action = rng.choice(tracked.state.legal_actions())
        moves.append(_cpu(lambda: site.play.submit(gid, action, info.seq, seat=info.to_move)))  # noqa: B023
        with site.play.state(gid) as (_, tracked):
            assert tracked is not None
            writes.append(_cpu(lambda t=tracked: site.snapshots.write(gid, t)))  # type: ignore[misc]
    move, write = statistics.median(moves) * 1000, statistics.median(writes) * 1000
    site.engine.dispose()
    return [
        ("snapshot_write", write, "ms", f"dump + write; a stored move {move:.2f} ms"),
        ("snapshot_each_commit", write / move * 100, "% move", "added to every move if written on each commit"),
        (f"snapshot_every_{every}", write / move / every * 100, "% move", "the same, every N entries (the default)"),
    ]


def run(games: int = 5_000, per_length: int = 20) -> list[Row]:
    every = SNAPSHOT_EVERY
    with tempfile.TemporaryDirectory(prefix="ludothek-cold-open-") as folder:
        return lengths(folder, every, per_length) + two_passes(folder, every, games) + when_to_write(folder, every)


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000
    for bench, value, unit, note in run(count, per_length=20 if count >= 1000 else 3):
        print(f"{bench:<40} {value:>10.3f} {unit:<8} {note}")
