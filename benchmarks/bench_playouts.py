"""Random playouts, one core, 2 players: playouts per second of CPU time for every game and Snowdonia map.

A playout is what analysis and the bots' rollouts do: `ludothek.bots.play_to_end` with a
`RandomBot` per seat (chance by its probabilities through `sample_chance`, every decision uniformly
among the legal actions), from the start state to the end.  Only the engine contract is used, so the
figure covers legal actions, apply, chance and the terminal checks of each game.

Two ways to run it:

- ``python -m benchmarks playouts`` (or ``make bench``): playouts/s of this process's CPU time,
  about 2 s per setup;
- ``python -m benchmarks.bench_playouts SETUP GAMES``: exactly GAMES seeded playouts of one setup
  (the same games every time, for any version of the engine whose random draws are unchanged).
  Under ``valgrind --tool=callgrind`` the instructions of GAMES playouts minus those of 0 playouts,
  divided by GAMES, are a figure that does not move with the machine's load; timed as a whole
  process, two versions can be run in turn and compared pair by pair.
"""

from __future__ import annotations

import random
import sys
import time

from ludothek.bots import RandomBot, play_to_end
from ludothek.engine import load

Row = tuple[str, float, str, str]

#: name -> (game id, options); every setup is played with 2 players.
SETUPS: dict[str, tuple[str, dict[str, str]]] = {
    "rolltheages": ("rolltheages", {}),
    "snowdonia": ("snowdonia", {"map": "mount_snowdon"}),
    "snowdonia-daffodil": ("snowdonia", {"map": "daffodil_line"}),
    "snowdonia-blaenau": ("snowdonia", {"map": "blaenau_ffestiniog"}),
    "carpediem": ("carpediem", {}),
    "machikoro": ("machikoro", {}),
}

PLAYERS = 2


def play_fixed(setup: str, games: int, seed: int = 1) -> int:
    """Play ``games`` seeded random playouts of ``setup``; return how many actions they took."""
    game_id, options = SETUPS[setup]
    game = load(game_id)
    bots = [RandomBot()] * PLAYERS
    rng = random.Random(seed)
    actions = 0
    for _ in range(games):
        state = play_to_end(game.new_state(PLAYERS, options), bots, rng)
        actions += state.move_number()
    return actions


def playouts_per_second(setup: str, seconds: float = 2.0, seed: int = 1) -> tuple[float, float, int]:
    """(playouts/s, actions/s, playouts) over about ``seconds`` of this process's CPU time."""
    game_id, options = SETUPS[setup]
    game = load(game_id)
    bots = [RandomBot()] * PLAYERS
    rng = random.Random(seed)
    play_to_end(game.new_state(PLAYERS, options), bots, random.Random(0))  # imports and tables made once
    games = actions = 0
    start = time.process_time()
    while True:
        state = play_to_end(game.new_state(PLAYERS, options), bots, rng)
        games += 1
        actions += state.move_number()
        elapsed = time.process_time() - start
        if elapsed >= seconds and games >= 5:
            return games / elapsed, actions / elapsed, games


def run(seconds: float = 2.0) -> list[Row]:
    rows: list[Row] = []
    for setup in SETUPS:
        per_s, actions_s, games = playouts_per_second(setup, seconds)
        note = f"2 players, 1 core (CPU time), RandomBot, {games} playouts, {actions_s:,.0f} actions/s"
        rows.append((f"playouts {setup}", per_s, "games/s", note))
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(play_fixed(sys.argv[1], int(sys.argv[2])), "actions")
    else:
        for bench, value, unit, note in run():
            print(f"{bench:<30} {value:>10,.1f} {unit:<8} {note}")
