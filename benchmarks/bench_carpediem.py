"""Carpe Diem: random playouts per second (games and actions), one core, per player count."""

from __future__ import annotations

import random
import time

from ludothek.engine.conformance import random_action
from ludothek.games.carpediem import GAME

Row = tuple[str, float, str, str]


def _random_games(num_players: int, seconds: float = 2.0) -> tuple[float, float]:
    rng = random.Random(num_players)
    games = actions = 0
    # CPU time of this process, so that other work on a shared machine does not skew the figure.
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = GAME.new_state(num_players)
        while not state.is_terminal():
            state.apply_action(random_action(state, rng))
            actions += 1
        games += 1
    elapsed = time.process_time() - start
    return games / elapsed, actions / elapsed


def run() -> list[Row]:
    rows: list[Row] = []
    for n in (2, 3, 4):
        games, actions = _random_games(n)
        rows.append((f"carpediem {n}p random games/s", games, "games/s", "1 core (CPU time), legal_actions + apply"))
        rows.append((f"carpediem {n}p random actions/s", actions, "actions/s", "1 core, chance outcomes included"))
    return rows


if __name__ == "__main__":  # pragma: no cover
    for row in run():
        print(row)
