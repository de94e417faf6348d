"""Machi Koro speed: complete random games per second, engine actions per second, record replay time.

Everything goes through the public engine contract: ``legal_actions()`` and
``apply_action()`` for the seats (a uniformly random legal action, as
`ludothek.bots.RandomBot` picks), and `ludothek.engine.sample_chance` for
dice and draws.  Default options, one process, so one core.

Run: ``.venv/bin/python -m benchmarks machikoro`` (or ``make bench``), or this
file directly with ``--seconds`` to change the measuring time per row.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from ludothek.engine import CHANCE, TERMINAL, load, record, replay, sample_chance

Row = tuple[str, float, str, str]


def play_random_game(num_players: int, rng: random.Random, options: dict[str, str] | None = None) -> int:
    """One complete game with random bots; returns the number of actions applied."""
    state = load("machikoro").new_state(num_players, options)
    choice = rng.choice
    n = 0
    while True:
        player = state.current_player()
        if player == TERMINAL:
            return n
        if player == CHANCE:
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(choice(state.legal_actions()))
        n += 1


def games_per_second(num_players: int, seconds: float, seed: int = 1) -> tuple[float, float, float, float]:
    """(games/s, actions/s, mean actions per game, wall-clock games/s) over about ``seconds`` of play.

    The rates are per second of this process's CPU time, i.e. of one core even
    when other work shares the machine; the wall-clock rate is given as well.
    """
    rng = random.Random(seed)
    games = actions = 0
    wall = time.perf_counter()
    start = time.process_time()
    deadline = start + seconds
    while True:
        actions += play_random_game(num_players, rng)
        games += 1
        if games % 20 == 0 and time.process_time() >= deadline:
            break
    cpu = time.process_time() - start
    wall = time.perf_counter() - wall
    return games / cpu, actions / cpu, actions / games, games / wall


def replay_seconds(num_players: int = 4, repeats: int = 50, seed: int = 7) -> tuple[float, int]:
    """Mean time to replay one complete random game's record (validated action by action)."""
    rng = random.Random(seed)
    state = load("machikoro").new_state(num_players)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    rec = record(state)
    start = time.process_time()
    for _ in range(repeats):
        replay(rec)
    return (time.process_time() - start) / repeats, len(rec["actions"])


def run(seconds: float = 5.0) -> list[Row]:
    rows: list[Row] = []
    play_random_game(2, random.Random(0))  # warm up imports and caches
    for players in (2, 4):
        gps, aps, length, wall = games_per_second(players, seconds)
        note = f"per CPU second, random bots, default options, {length:.0f} actions/game, wall {wall:,.0f}/s"
        rows.append((f"machikoro {players}p random games/s", gps, "games/s", note))
        rows.append(
            (f"machikoro {players}p engine actions/s", aps, "actions/s", "legal_actions + apply_action")
        )
    secs, n = replay_seconds()
    rows.append(
        (
            "machikoro 4p record replay",
            secs * 1000,
            "ms",
            f"{n} actions, replay() of a complete game, CPU time",
        )
    )
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring time per row")
    args = parser.parse_args(argv)
    for name, value, unit, note in run(args.seconds):
        print(f"{name:<36} {value:>12,.1f} {unit:<9} {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
