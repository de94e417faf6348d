"""Finished, rated games written straight into a database, fast: for the open-data tests and benchmark.

Each game is a real game: random playouts (`random_action`, chance outcomes sampled too), with an
occasional undo as people take moves back, so its stored actions replay to its stored result.  Some
games have a bot seat, some a player who resigned or timed out (placed last, as the site stores it).
The rows are what the move path leaves: the game row (finished, with its result), its seats with
their places, every action, and a ``rating_changes`` row per person (what makes a game *rated*).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, func, insert, select

from ludothek import engine as eng
from ludothek.engine.conformance import random_action
from ludothek.storage.models import ActionRow, GameRow, RatingChange, SeatRow, User
from ludothek.storage.timecontrol import placed_last

KINDS = ("machikoro", "rolltheages", "snowdonia", "carpediem")
#: A playout longer than this is dropped (none of the games needs nearly as many entries).
MAX_ENTRIES = 5000


def playout(kind: str, players: int, rng: random.Random, undo_rate: float = 0.02) -> eng.State:
    """A finished random game of ``kind`` (undos now and then)."""
    while True:
        state = eng.load(kind).new_state(players)
        while not state.is_terminal() and state.move_number() < MAX_ENTRIES:
            player = state.current_player()
            state.apply_action(random_action(state, rng))
            if player >= 0 and not state.is_terminal() and rng.random() < undo_rate and state.can_undo(player):
                state.undo(player)
        if state.is_terminal():
            return state


def add_users(engine: Engine, count: int, prefix: str = "player") -> list[int]:
    """``count`` users named ``<prefix><n>``; their ids."""
    with engine.begin() as conn:
        first = (conn.execute(select(func.max(User.id))).scalar() or 0) + 1
        conn.execute(insert(User), [{"id": first + i, "name": f"{prefix}{first + i}", "name_key": f"{prefix}{first + i}",
                                     "password_hash": None, "is_guest": False, "lang": "en"} for i in range(count)])
    return list(range(first, first + count))


def fill(engine: Engine, games: int, users: Sequence[int], start: datetime, end: datetime, seed: int = 0,
         kinds: Sequence[str] = KINDS, batch: int = 200) -> list[int]:
    """``games`` finished, rated games that ended between ``start`` and ``end``; their ids."""
    rng = random.Random(seed)
    with engine.begin() as conn:
        first = (conn.execute(select(func.max(GameRow.id))).scalar() or 0) + 1
    span = (end - start).total_seconds()
    rows: dict[str, list[dict[str, Any]]] = {"games": [], "seats": [], "actions": [], "ratings": []}
    ids = []
    for n in range(games):
        gid = first + n
        ids.append(gid)
        kind = kinds[n % len(kinds)]
        players = rng.choice((2, 2, 3, 4))
        state = playout(kind, players, rng)
        people = rng.sample(list(users), players)
        bot_seat = rng.randrange(players) if players > 2 and rng.random() < 0.2 else None
        left = {rng.randrange(players): rng.choice(("resigned", "timed_out"))} if rng.random() < 0.1 else {}
        left.pop(bot_seat, None)  # type: ignore[arg-type]
        result = placed_last(state.result_json(), left)
        finished = start + timedelta(seconds=rng.uniform(0, span))
        rows["games"].append({
            "id": gid, "game": kind, "rules_version": state.game.rules_version, "num_players": players,
            "options_json": json.dumps(state.options), "status": "finished", "creator_id": people[0],
            "created_at": finished - timedelta(days=1), "started_at": finished - timedelta(days=1),
            "finished_at": finished, "seq": state.move_number(), "to_move": eng.TERMINAL,
            "result_json": json.dumps(result)})
        places = {r["seat"]: r["rank"] for r in result}
        for seat in range(players):
            bot = seat == bot_seat
            kind_of = "bot" if bot or seat in left else "player"
            rows["seats"].append({"game_id": gid, "seat": seat, "kind": kind_of,
                                  "user_id": None if bot else people[seat], "bot": "random" if kind_of == "bot" else None,
                                  "left_as": left.get(seat), "place": places[seat], "ended_at": finished})
            if not bot:
                rows["ratings"].append({"game_id": gid, "user_id": people[seat], "game": kind, "place": places[seat],
                                        "mu_before": 25.0, "sigma_before": 8.3, "mu": 25.0, "sigma": 8.3,
                                        "at": finished})
        rows["actions"].extend({"game_id": gid, "seq": i, "seat": e.seat, "action": e.action, "created_at": finished}
                               for i, e in enumerate(state.history()))
        if len(rows["games"]) >= batch:
            _flush(engine, rows)
    _flush(engine, rows)
    return ids


def _flush(engine: Engine, rows: dict[str, list[dict[str, Any]]]) -> None:
    if not rows["games"]:
        return
    with engine.begin() as conn:
        conn.execute(insert(GameRow), rows["games"])
        conn.execute(insert(SeatRow), rows["seats"])
        conn.execute(insert(ActionRow), rows["actions"])
        conn.execute(insert(RatingChange), rows["ratings"])
    for value in rows.values():
        value.clear()
