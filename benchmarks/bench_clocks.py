"""Clock benchmark (issue 9, part 3): how long after a deadline the bot has taken over and moved.

A portal on SQLite with its job runner at the production interval (1 s) and
bots without their human pause.  ``GAMES`` two-player games with a time control
are started; then their deadlines are set to moments spread over the next few
seconds, as if each player's time ran out then.  Measured for each game: from
the deadline to the first stored action of the bot that took the seat over, and
from the deadline to the takeover itself (the seat handed to the bot).

Target from the issue: the takeover within 5 s of the deadline at p99.
Run alone: ``python -m benchmarks clocks``.
"""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from benchmarks.bench_portal import _pct
from ludothek.portal import Settings, create_app
from ludothek.storage.models import ActionRow, GameRow, SeatRow

Row = tuple[str, float, str, str]
GAMES = 60


def _user(client: TestClient, name: str) -> dict[str, str]:
    r = client.post("/api/v1/users", json={"name": name, "password": "password-" + name})
    return {"Authorization": f"Bearer {r.json()['token']}"}


def run() -> list[Row]:
    from argon2 import PasswordHasher

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(db_url=f"sqlite:///{tmp}/clocks.sqlite3", bot_delay=0.0, rate_limits=False, handover_seconds=0,
                            hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1), max_open_games=1000)
        with TestClient(create_app(settings)) as client:
            site: Any = client.app.state.portal.site  # type: ignore[attr-defined]
            ann, bob = _user(client, "ann"), _user(client, "bob")
            games = []
            for _ in range(GAMES):
                gid = client.post("/api/v1/games", json={"game": "machikoro", "players": 2, "time_control": "move:1"},
                                  headers=ann).json()["id"]
                client.post(f"/api/v1/games/{gid}/join", headers=bob)
                games.append(gid)
            start = datetime.now(UTC) + timedelta(seconds=1)
            deadlines: dict[int, datetime] = {}
            seqs: dict[int, int] = {}
            with site.engine.begin() as conn:
                for i, gid in enumerate(games):
                    due = start + timedelta(seconds=3 * i / GAMES)
                    conn.execute(update(GameRow).where(GameRow.id == gid).values(deadline=due))
                    deadlines[gid] = due
                    seqs[gid] = conn.execute(select(GameRow.seq).where(GameRow.id == gid)).scalar_one()
            for gid in games:
                site.games.info_cache.pop(gid, None)
            took_over: dict[int, float] = {}
            moved: dict[int, float] = {}
            stop = time.monotonic() + 30
            while len(moved) < GAMES and time.monotonic() < stop:
                now = datetime.now(UTC)
                with site.engine.begin() as conn:
                    for gid in games:
                        if gid not in took_over and conn.execute(
                            select(SeatRow.seat).where(SeatRow.game_id == gid, SeatRow.left_as == "timed_out")
                        ).first() is not None:
                            took_over[gid] = (now - deadlines[gid]).total_seconds()
                        if gid in took_over and gid not in moved:
                            first = conn.execute(
                                select(ActionRow.created_at).where(ActionRow.game_id == gid, ActionRow.seq >= seqs[gid],
                                                                   ActionRow.seat >= 0).order_by(ActionRow.seq).limit(1)
                            ).scalar()
                            if first is not None:
                                when = first if first.tzinfo else first.replace(tzinfo=UTC)
                                moved[gid] = (when - deadlines[gid]).total_seconds()
                time.sleep(0.05)
    over = [max(0.0, v) for v in took_over.values()]
    first_move = [max(0.0, v) for v in moved.values()]
    note = f"{GAMES} games, deadlines spread over 3 s, job runner every 1 s, SQLite"
    return [
        ("clocks: takeover after deadline p50", _pct(over, 50) * 1000, "ms", note),
        ("clocks: takeover after deadline p99", _pct(over, 99) * 1000, "ms", "target: under 5,000 ms"),
        ("clocks: bot's first move after deadline p99", _pct(first_move, 99) * 1000, "ms",
         f"{len(first_move)} of {GAMES} games moved by the bot"),
    ]
