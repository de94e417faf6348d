"""The research adapters' figures (issue 33; docs/research.md, "Figures").

1. **Overhead**: random playouts of each game, in actions per CPU second, through the engine itself
   (``legal_actions``/``apply_action``/``sample_chance``), through the OpenSpiel game (integer actions,
   ``chance_outcomes``) and through the PettingZoo environment (``last()`` with its observation tensor and
   action mask at every step, as a learner sees it); the ratio engine / adapter is the adapter's cost.
2. **OpenSpiel's MCTS against Ludothek's `hard`** in two-player Machi Koro: OpenSpiel's C++ MCTS bot
   (random-rollout evaluator) calling back into the Python game, against `hard` (ISMCTS with the Machi Koro
   strategy) at an iteration budget instead of its 2 s clock, so that the result depends on the seeds only,
   not on the machine's load. Seats alternate; the win rate comes with its 95 % Wilson interval.

    python -m benchmarks.bench_research --seconds 2                      # overhead rows only
    python -m benchmarks.bench_research --games 200 --simulations 100 --hard-iterations 300
    python -m benchmarks.bench_research --games 4 --first 2 ...          # games 2..3 only (split a long run)

`run()` (``make bench``) measures the overhead and plays a short match; ``smoke=True`` keeps both tiny
(tests/test_benchmarks.py).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable

import numpy as np
import pyspiel

from ludothek.bots.arena import wilson
from ludothek.bots.ismcts import IsmctsBot
from ludothek.engine import CHANCE, load, sample_chance
from ludothek.research import openspiel as O
from ludothek.research import pettingzoo as P
from ludothek.research.actions import GAME_IDS, load_table

Row = tuple[str, float, str, str]


def _rate(play_one: Callable[[int], int], seconds: float) -> float:
    """Actions per CPU second of ``play_one(seed) -> actions`` over about ``seconds``."""
    actions = 0
    seed = 0
    start = time.process_time()
    while True:
        actions += play_one(seed)
        seed += 1
        spent = time.process_time() - start
        if spent >= seconds:
            return actions / spent


def engine_playout(game_id: str, seed: int, max_moves: int | None = None) -> int:
    state = load(game_id).new_state(2)
    rng = random.Random(seed)
    n = 0
    while not state.is_terminal() and (max_moves is None or n < max_moves):
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        n += 1
    return n


def openspiel_playout(game: pyspiel.Game, seed: int, max_moves: int | None = None) -> int:
    state = game.new_initial_state()
    rng = random.Random(seed)
    n = 0
    while not state.is_terminal() and (max_moves is None or n < max_moves):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        n += 1
    return n


def pettingzoo_playout(game_id: str, seed: int, max_moves: int | None = None) -> int:
    """Actions of one game, chance outcomes included (the env counts them in ``moves``), like the other two."""
    env = P.env(game_id, players=2, max_moves=max_moves or O.DEFAULT_MAX_MOVES)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return int(env.unwrapped.moves)


def overhead_rows(seconds: float, max_moves: int | None = None) -> list[Row]:
    rows: list[Row] = []
    for gid in GAME_IDS:
        game = O.load(gid, players=2)
        base = _rate(lambda s, g=gid: engine_playout(g, s, max_moves), seconds)
        spiel = _rate(lambda s, g=game: openspiel_playout(g, s, max_moves), seconds)
        zoo = _rate(lambda s, g=gid: pettingzoo_playout(g, s, max_moves), seconds)
        rows.append((f"research {gid} engine random playout", base, "act/s", "2 players, one core"))
        rows.append((f"research {gid} OpenSpiel random playout", spiel, "act/s",
                     f"overhead x{base / spiel:.2f} against the engine"))
        rows.append((f"research {gid} PettingZoo random playout", zoo, "act/s",
                     f"overhead x{base / zoo:.2f} (observation tensor + mask every step)"))
    return rows


def mcts_match(games: int, simulations: int, hard_iterations: int, seed: int = 1, first: int = 0,
               log: Callable[[str], None] | None = None) -> dict[str, object]:
    """OpenSpiel MCTS against `hard`, two-player Machi Koro, games ``first .. games - 1``; MCTS sits at ``g % 2``."""
    game = O.load("machikoro", players=2)
    table = load_table("machikoro")
    hard = IsmctsBot(seconds=None, iterations=hard_iterations)
    wins = 0.0
    played = 0
    mcts_cpu = hard_cpu = 0.0
    mcts_moves = hard_moves = 0
    for g in range(first, games):
        rng = random.Random(seed * 1000 + g)
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed * 1000 + g)
        mcts = pyspiel.MCTSBot(game, evaluator, 2.0, simulations, 1000, False, seed * 1000 + g, False)
        seat = g % 2
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            elif state.current_player() == seat:
                t = time.process_time()
                state.apply_action(mcts.step_with_policy(state)[1])  # `step` crashes on Python states (pyspiel 2.0.2)
                mcts_cpu += time.process_time() - t
                mcts_moves += 1
            else:
                t = time.process_time()
                action = hard.choose(state.inner, rng)
                hard_cpu += time.process_time() - t
                hard_moves += 1
                state.apply_action(table.action_id(action))
        ranks = {r.seat: r.rank for r in state.inner.result()}
        won = 1.0 if ranks[seat] < ranks[1 - seat] else 0.5 if ranks[seat] == ranks[1 - seat] else 0.0
        wins += won
        played += 1
        if log:
            log(f"game {g}: MCTS seat {seat}, MCTS win {won}, {state.move_number()} actions")
    low, high = wilson(wins, played)
    return {"games": played, "first": first, "seed": seed, "simulations": simulations,
            "hard_iterations": hard_iterations, "mcts_wins": wins,
            "mcts_win_rate": round(wins / played, 3) if played else None,
            "mcts_win_rate_95": [round(low, 3), round(high, 3)],
            "mcts_cpu_ms_per_move": round(1000 * mcts_cpu / max(1, mcts_moves), 1),
            "hard_cpu_ms_per_move": round(1000 * hard_cpu / max(1, hard_moves), 1)}


def run(smoke: bool = False) -> list[Row]:
    """``make bench``: the overhead rows and a short match; ``smoke`` only proves the code runs."""
    rows = overhead_rows(0.05 if smoke else 2.0, max_moves=60 if smoke else None)
    match = mcts_match(1 if smoke else 10, 2 if smoke else 50, 5 if smoke else 200)
    low, high = match["mcts_win_rate_95"]  # type: ignore[misc]
    rows.append(("research OpenSpiel MCTS vs hard (Machi Koro)", 100.0 * float(match["mcts_win_rate"] or 0), "%",  # type: ignore[arg-type]
                 f"{match['games']} games, 95% interval {100 * low:.0f}-{100 * high:.0f}%, "
                 f"{match['simulations']} simulations vs {match['hard_iterations']} iterations"))
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per overhead row")
    parser.add_argument("--games", type=int, default=0, help="play the MCTS match up to this game number")
    parser.add_argument("--first", type=int, default=0, help="first game of the match (split long runs)")
    parser.add_argument("--simulations", type=int, default=100, help="OpenSpiel MCTS simulations per move")
    parser.add_argument("--hard-iterations", type=int, default=300, help="iterations of `hard` per decision")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games:
        summary = mcts_match(args.games, args.simulations, args.hard_iterations, args.seed, args.first,
                             log=lambda line: print(line, flush=True))
        print(json.dumps(summary), flush=True)
        return 0
    for bench, value, unit, note in overhead_rows(args.seconds):
        print(f"{bench:<45} {value:>12,.1f} {unit:<6} {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
