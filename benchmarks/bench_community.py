"""History and community pages: leaderboards, profiles and replays against a server subprocess (SQLite).

- A database with 10,000 users and 100,000 finished games (2 to 4 players, every kind, some users
  far more active than others) is written directly, and every rating is computed from it with
  ``Ratings.recompute_ratings`` (timed: the same work ``ludothek ratings --recompute`` does).
- GET ``/games/<kind>/leaderboard`` and ``/users/<name>`` (random users, the most active too) and
  their JSON counterparts: p50/p95 over sequential requests to a ``ludothek serve`` subprocess.
- A 1,000-entry game (Carpe Diem, four players, random play with undos until the history holds
  1,000 entries) is stored, and GET ``/games/<id>/replay?step=S&seat=V`` for random steps and views:
  p50/p95, and the first (cold) request alone, which replays the game once into its book.
- Each request also with the server's own CPU time (all its threads, from ``/proc``): on a shared
  machine the wall times grow with everyone else's load, the CPU a request costs does not.

Run alone: ``python -m benchmarks community``.  ``BENCH_COMMUNITY_GAMES`` / ``_USERS`` shrink the data.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import insert

from ludothek import engine as eng
from ludothek.engine.conformance import random_action
from ludothek.engine.registry import GAME_MODULES
from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.storage.models import ActionRow, GameRow, SeatRow, User

from .bench_portal import Server, _pct

Row = tuple[str, float, str, str]

USERS = int(os.environ.get("BENCH_COMMUNITY_USERS", "10000"))
GAMES = int(os.environ.get("BENCH_COMMUNITY_GAMES", "100000"))
REQUESTS = 200
REPLAY_LENGTH = 1000
#: Games waiting for players in the lobby's list (its page lists at most 200).
LOBBY_GAMES = 200
KINDS = tuple(GAME_MODULES)


def _fill(url: str, rng: random.Random) -> list[str]:
    """Users and finished games written in bulk; the user names."""
    engine = make_engine(url)
    migrate(engine)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    names = [f"user{i:05d}" for i in range(USERS)]
    with engine.begin() as conn:
        conn.execute(insert(User), [{"id": i + 1, "name": n, "name_key": n, "password_hash": None, "is_guest": False,
                                     "lang": "en", "created_at": now} for i, n in enumerate(names)])
    weights = list(itertools.accumulate(1.0 / (1 + i) ** 0.7 for i in range(USERS)))  # a few very active players
    games: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    for gid in range(1, GAMES + 1):
        kind = KINDS[gid % len(KINDS)]
        n = rng.choice((2, 2, 3, 4))
        players: set[int] = set()
        while len(players) < n:
            players.add(rng.choices(range(USERS), cum_weights=weights)[0] + 1)
        scores = [rng.randrange(40) for _ in range(n)]
        ranks = eng.ranks_from_keys(scores)
        finished = now + timedelta(minutes=gid)
        games.append({"id": gid, "game": kind, "rules_version": eng.load(kind).rules_version, "num_players": n,
                      "options_json": "{}", "status": "finished", "creator_id": min(players), "created_at": finished,
                      "started_at": finished, "finished_at": finished, "seq": 100, "to_move": -4,
                      "result_json": json.dumps([{"seat": s, "rank": ranks[s], "score": scores[s]} for s in range(n)])})
        for s, uid in enumerate(sorted(players, key=lambda _: rng.random())):
            seats.append({"game_id": gid, "seat": s, "kind": "player", "user_id": uid, "place": ranks[s]})
        if len(games) >= 5000:
            with engine.begin() as conn:
                conn.execute(insert(GameRow), games)
                conn.execute(insert(SeatRow), seats)
            games, seats = [], []
    if games:
        with engine.begin() as conn:
            conn.execute(insert(GameRow), games)
            conn.execute(insert(SeatRow), seats)
    engine.dispose()
    return names


def _open_games(url: str, count: int = LOBBY_GAMES) -> None:
    """``count`` games waiting for players, each by another creator (the lobby lists three per creator)."""
    engine = make_engine(url)
    now = datetime(2026, 7, 1, tzinfo=UTC)
    with engine.begin() as conn:
        conn.execute(insert(GameRow), [
            {"id": GAMES + 10 + i, "game": KINDS[i % len(KINDS)], "rules_version": eng.load(KINDS[i % len(KINDS)]).rules_version,
             "num_players": 2, "options_json": "{}", "status": "open", "creator_id": i + 1,
             "created_at": now + timedelta(seconds=i), "seq": 0, "to_move": -2} for i in range(count)])
        conn.execute(insert(SeatRow), [
            {"game_id": GAMES + 10 + i, "seat": s, "kind": "player" if s == 0 else "open",
             "user_id": i + 1 if s == 0 else None} for i in range(count) for s in (0, 1)])
    engine.dispose()


def _long_game(rng: random.Random) -> eng.State:
    """Carpe Diem for four, random play with undos (as people take moves back) until 1,000 entries."""
    while True:
        state = eng.load("carpediem").new_state(4)
        while not state.is_terminal() and state.move_number() < REPLAY_LENGTH:
            player = state.current_player()
            state.apply_action(random_action(state, rng))
            if player >= 0 and state.can_undo(player) and rng.random() < 0.45:
                state.undo(player)
        if state.move_number() >= REPLAY_LENGTH:
            return state


def _store_long_game(url: str, state: eng.State) -> int:
    """Stored as finished (though cut at 1,000 entries), so that every seat's view may be asked for."""
    engine = make_engine(url)
    now = datetime(2026, 6, 1, tzinfo=UTC)
    gid = GAMES + 1
    with engine.begin() as conn:
        conn.execute(insert(GameRow).values(
            id=gid, game="carpediem", rules_version=state.game.rules_version, num_players=4, options_json=json.dumps(
                state.options), status="finished", creator_id=1, created_at=now, started_at=now, seq=state.move_number(),
            to_move=state.current_player(), finished_at=now))
        conn.execute(insert(SeatRow), [{"game_id": gid, "seat": s, "kind": "player", "user_id": s + 1}
                                       for s in range(4)])
        conn.execute(insert(ActionRow), [{"game_id": gid, "seq": i, "seat": e.seat, "action": e.action,
                                          "created_at": now} for i, e in enumerate(state.history())])
    engine.dispose()
    return gid


def _server_cpu_ns(pid: int) -> int:
    """CPU time (ns) of every thread of the server process so far (``schedstat``: ns, not clock ticks).

    The server answers one request at a time here, so the difference around a request is what that
    request cost, whatever else the (shared) machine runs meanwhile; wall times are not.
    """
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that just ended
    return total


def _timed_gets(client: httpx.Client, paths: list[str], pid: int | None = None,
                cpu: list[float] | None = None) -> list[float]:
    """Wall ms per GET; with ``pid``, the server's CPU ms per GET appended to ``cpu``."""
    times = []
    for path in paths:
        before = _server_cpu_ns(pid) if pid is not None else 0
        start = time.perf_counter()
        r = client.get(path)
        times.append((time.perf_counter() - start) * 1000)
        if pid is not None and cpu is not None:
            cpu.append((_server_cpu_ns(pid) - before) / 1e6)
        if r.status_code != 200:
            raise RuntimeError(f"GET {path}: {r.status_code} {r.text[:200]}")
    return times


def run() -> list[Row]:
    rng = random.Random(12)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/community.sqlite3"
        start = time.perf_counter()
        names = _fill(url, rng)
        fill_s = time.perf_counter() - start
        engine = make_engine(url)
        site = Site(engine)
        start = time.perf_counter()
        rated, players = site.ratings.recompute_ratings()
        recompute_s = time.perf_counter() - start
        engine.dispose()
        note = f"{USERS:,} users, {GAMES:,} finished games, SQLite"
        rows.append(("community: write the data", fill_s, "s", note))
        rows.append(("community: ratings --recompute", recompute_s, "s", f"{rated:,} games, {players:,} players"))
        state = _long_game(rng)
        gid = _store_long_game(url, state)
        _open_games(url)
        server = Server(url)
        try:
            with httpx.Client(base_url=server.base, timeout=30) as client:
                client.get("/games/machikoro/leaderboard")  # warm-up: imports, templates
                active = names[:20]
                for label, paths in [
                    ("leaderboard page", [f"/games/{rng.choice(KINDS)}/leaderboard?page={rng.randint(1, 20)}"
                                          for _ in range(REQUESTS)]),
                    ("leaderboard API", [f"/api/v1/games/{rng.choice(KINDS)}/leaderboard?offset={rng.randrange(1000)}"
                                         for _ in range(REQUESTS)]),
                    ("profile page (random users)", [f"/users/{rng.choice(names)}" for _ in range(REQUESTS)]),
                    ("profile page (most active users)", [f"/users/{rng.choice(active)}" for _ in range(REQUESTS)]),
                    ("profile API (random users)", [f"/api/v1/users/{rng.choice(names)}" for _ in range(REQUESTS)]),
                    (f"lobby page ({LOBBY_GAMES} open games)", ["/"] * (REQUESTS // 4)),
                ]:
                    cpu: list[float] = []
                    times = _timed_gets(client, paths, server.proc.pid, cpu)
                    rows.append((f"community: {label} p50", _pct(times, 50), "ms", note))
                    rows.append((f"community: {label} p95", _pct(times, 95), "ms", note))
                    rows.append((f"community: {label} server CPU p95", _pct(cpu, 95), "ms", note))
                length = state.move_number()
                cold_cpu: list[float] = []
                cold = _timed_gets(client, [f"/games/{gid}/replay?step={length // 2}&seat=-"], server.proc.pid, cold_cpu)[0]
                paths = [f"/games/{gid}/replay?step={rng.randint(0, length)}&seat={rng.choice(['-', '0', '1', '2', '3'])}"
                         for _ in range(REQUESTS)]
                cpu = []
                times = _timed_gets(client, paths, server.proc.pid, cpu)
                api_cpu: list[float] = []
                api = _timed_gets(client, [f"/api/v1/games/{gid}/replay/{rng.randint(0, length)}"
                                           for _ in range(REQUESTS)], server.proc.pid, api_cpu)
                note2 = f"Carpe Diem 4p, {length} entries ({sum(e.action == 'undo' for e in state.history())} undos)"
                rows.append(("community: replay page, first request (builds the book)", cold, "ms", note2))
                rows.append(("community: replay page, first request, server CPU", cold_cpu[0], "ms", note2))
                rows.append(("community: replay page, any step p50", _pct(times, 50), "ms", note2))
                rows.append(("community: replay page, any step p95", _pct(times, 95), "ms", note2))
                rows.append(("community: replay page, any step server CPU p95", _pct(cpu, 95), "ms", note2))
                rows.append(("community: replay API, any step p95", _pct(api, 95), "ms", note2))
                rows.append(("community: replay API, any step server CPU p95", _pct(api_cpu, 95), "ms", note2))
        finally:
            server.stop()
    return rows


if __name__ == "__main__":  # pragma: no cover
    for row in run():
        print(row)
