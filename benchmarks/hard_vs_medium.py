"""`hard` against `medium` at a fixed iteration budget: a load-independent strength check (not in `make bench`).

    python -m benchmarks.hard_vs_medium GAME ITERATIONS GAMES SEED ['{"rollout_depth": 8}' [OPPONENT]] [--first=N]

Game ``g`` is dealt from ``random.Random(SEED * 1000 + g)`` and gives `hard`
seat ``g % 2``.  An iteration budget (no clock) makes every game depend on the
seed alone, whatever else the machine runs, so two versions of the bots can be
compared on the same deals (run it with ``PYTHONPATH`` pointing at an export of
the other version).  The optional JSON overrides the game's ``SEARCH``
constants (``'{}'`` for none); the optional OPPONENT names another bot than
`medium` (``random``, ``easy``, or one of the game's scripted opponents the
arena knows, e.g. Machi Koro's ``expert``), the same deals again.  Prints one line per game, then a JSON summary with the Wilson
interval and `hard`'s CPU time per decision.  ``--first=N`` plays only games N to GAMES - 1 (the summary
counts those): a long run split over several processes, or continued after a stop, plays the very
same games as one run.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
import time

from ludothek.bots.arena import arena_bot, wilson
from ludothek.bots.ismcts import IsmctsBot
from ludothek.bots.strategy import strategy_for
from ludothek.engine import CHANCE, load, sample_chance


def main(argv: list[str]) -> None:
    first = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--first=")), 0)
    argv = [a for a in argv if not a.startswith("--first=")]
    game, iterations, games, seed = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    overrides = json.loads(argv[4]) if len(argv) > 4 else {}
    opponent = argv[5] if len(argv) > 5 else "medium"
    strategy = strategy_for(game)
    if overrides:  # the strategy is frozen and cached: replace its constants for this process only
        object.__setattr__(strategy, "search", dataclasses.replace(strategy.search, **overrides))
    hard, medium = IsmctsBot(seconds=None, iterations=iterations), arena_bot(game, opponent)
    wins = 0.0
    hard_scores: list[float] = []
    medium_scores: list[float] = []
    cpu: list[float] = []
    for g in range(first, games):
        rng = random.Random(seed * 1000 + g)
        state = load(game).new_state(2)
        seat = g % 2
        while not state.is_terminal():
            player = state.current_player()
            if player == CHANCE:
                state.apply_action(sample_chance(state, rng))
                continue
            if player == seat:
                start = time.thread_time()
                action = hard.choose(state, rng)
                cpu.append(time.thread_time() - start)
            else:
                action = medium.choose(state, rng)
            state.apply_action(action)
        won = state.returns()[seat]
        wins += won
        scores = {r.seat: r.score for r in state.result()}
        hard_scores.append(scores[seat])
        medium_scores.append(scores[1 - seat])
        print(f"game {g}: hard {scores[seat]}, {opponent} {scores[1 - seat]}, hard's win {won}", flush=True)
    played = len(hard_scores)
    low, high = wilson(wins, played)
    cpu.sort()
    print(json.dumps({
        "game": game, "opponent": opponent, "iterations": iterations, "games": played, "first": first, "seed": seed,
        "search": overrides, "hard_wins": wins, "win_rate": round(wins / played, 3),
        "win_rate_95": [round(low, 3), round(high, 3)], "hard_mean_score": round(sum(hard_scores) / played, 1),
        "opponent_mean_score": round(sum(medium_scores) / played, 1),
        "hard_cpu_ms_mean": round(1000 * sum(cpu) / len(cpu), 1),
        "hard_cpu_ms_p95": round(1000 * cpu[int(0.95 * len(cpu))], 1),
    }))


if __name__ == "__main__":
    main(sys.argv[1:])
