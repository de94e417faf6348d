"""Roll Through the Ages: random legal games per second (2 and 4 players, solo, trade) and actions per second.

Random play here is the engine's own: chance outcomes by their probabilities,
every decision uniformly among the legal actions (``RandomBot``).  One core.
"""

from __future__ import annotations

import random
import time

from ludothek.bots import RandomBot, play_to_end
from ludothek.engine import load

Row = tuple[str, float, str, str]

SETUPS: list[tuple[str, int, dict[str, str]]] = [
    ("2p", 2, {}),
    ("4p", 4, {}),
    ("solo", 1, {"mode": "solo"}),
    ("4p trade", 4, {"trade": "on"}),
]


def measure(players: int, options: dict[str, str], budget: float = 2.0) -> tuple[float, float, int]:
    """Play random games for about ``budget`` seconds: (games/s, actions/s, games)."""
    game = load("rolltheages")
    rng = random.Random(2008)
    bots = [RandomBot() for _ in range(players)]
    games = actions = 0
    start = time.perf_counter()
    while True:
        state = play_to_end(game.new_state(players, options), bots, rng)
        games += 1
        actions += state.move_number()
        elapsed = time.perf_counter() - start
        if elapsed >= budget and games >= 10:
            return games / elapsed, actions / elapsed, games


def run() -> list[Row]:
    rows: list[Row] = []
    for label, players, options in SETUPS:
        games_s, actions_s, games = measure(players, options)
        note = f"1 core, random play, {games} games"
        rows.append((f"rolltheages {label} random games/s", games_s, "games/s", note))
        rows.append((f"rolltheages {label} actions/s", actions_s, "actions/s", note))
    return rows


if __name__ == "__main__":
    for row in run():
        print(f"{row[0]:<40} {row[1]:>10,.1f} {row[2]:<9} {row[3]}")
