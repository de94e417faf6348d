"""Snowdonia: random games per second (solo, 2 and 4 players) and actions per second, on one core."""

from __future__ import annotations

import random
import time

from ludothek.bots import RandomBot, play_to_end
from ludothek.engine import load

Row = tuple[str, float, str, str]


def _games(num_players: int, seconds: float = 2.0) -> tuple[float, float]:
    game = load("snowdonia")
    bots = [RandomBot()] * num_players
    rng = random.Random(1)
    games = actions = 0
    # CPU time of this process, so that other work on a shared machine does not skew the figure.
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_state(num_players)
        play_to_end(state, bots, rng)
        games += 1
        actions += state.move_number()
    elapsed = time.process_time() - start
    return games / elapsed, actions / elapsed


def run() -> list[Row]:
    rows: list[Row] = []
    for n in (1, 2, 4):
        games, actions = _games(n)
        rows.append((f"snowdonia {n}p random games/s", games, "games/s", "1 core (CPU time), RandomBot, chance by its probabilities"))
        rows.append((f"snowdonia {n}p actions/s", actions, "actions/s", "chance outcomes included"))
    return rows


def play_fixed(num_players: int, games: int) -> int:
    """Play a fixed number of seeded random games (the same ones every time) and return the actions.

    For instruction counts, which do not depend on the machine's load::

        valgrind --tool=callgrind python -m benchmarks.bench_snowdonia PLAYERS GAMES

    minus the same with 0 games (the start-up), divided by GAMES.
    """
    game = load("snowdonia")
    bots = [RandomBot()] * num_players
    rng = random.Random(1)
    actions = 0
    for _ in range(games):
        state = game.new_state(num_players)
        play_to_end(state, bots, rng)
        actions += state.move_number()
    return actions


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 3:
        print(play_fixed(int(sys.argv[1]), int(sys.argv[2])), "actions")
    else:
        for row in run():
            print(row)
