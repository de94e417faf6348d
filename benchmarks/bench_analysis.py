"""Game analysis (issue 32): the CPU time of one analysis and how well its win chances are calibrated.

*Speed*: CPU seconds (of this thread, `time.thread_time`) to analyse a typical two-player Machi Koro game
(`medium` against `medium`, seed 0) at the default `Budget` (the game's own `hard` search per decision,
256 playouts per move judged).  Target: at most 60 s.

*Calibration*: for every game, bot-vs-bot games (`medium` against `medium`, two players) are split into
``--train`` games that fit the yardstick and ``--games`` held-back games that are scored.  At every
``--every``-th decision of a held-back game the analysis's win chance after the decision (`win_chances`:
``--playouts`` playouts, exactly what `analyse_decision` reports as *after*) and the yardstick's are
compared with how the game really ended, by the Brier score (mean over seats of the squared difference
between chance and result; a tie counts half a win).  The yardstick knows only the score so far
(`State.result` in the running game): the chance of a seat is ``exp(beta * score)`` over the sum for all
seats, ``beta`` fitted on the training games to its best Brier score.  Target: the analysis at least 10 %
better (lower) for every game.

Run: ``.venv/bin/python -m benchmarks.bench_analysis`` (a modest run), ``--full`` for the issue's
1,000 held-back games per game, ``--only machikoro`` to restrict the games, ``--no-speed`` to skip the
timing.  ``make bench`` (``run()``) does a tiny smoke run.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ludothek.bots import make_bot, play_to_end
from ludothek.bots.analysis import Budget, analyse_record, in_force, win_chances
from ludothek.engine import load
from ludothek.engine.records import initial_state, record

Row = tuple[str, float, str, str]

GAMES = ("machikoro", "rolltheages", "snowdonia", "carpediem")
#: Seeds of training games start here; held-back games use 0, 1, 2, ...
TRAIN_SEEDS = 1_000_000
#: The yardstick's candidate weights per point of score: 0 (no knowledge) and 0.001 to 100, logarithmically.
#: The analysis's default budget, the one people get.
DEFAULT_BUDGET = Budget()
BETAS = [0.0] + [10 ** (k / 20) for k in range(-60, 41)]


def bot_game(game_id: str, seed: int) -> dict:
    """The record of a two-player `medium` against `medium` game."""
    state = load(game_id).new_state(2)
    play_to_end(state, [make_bot("medium"), make_bot("medium")], random.Random(f"bench-analysis:{seed}"))
    return record(state)


def analysis_seconds(budget: Budget = DEFAULT_BUDGET) -> tuple[float, int]:
    """CPU seconds to analyse the typical Machi Koro game, and its number of decisions."""
    rec = bot_game("machikoro", 0)
    start = time.thread_time()
    analysis = analyse_record(rec, seed=0, budget=budget)
    return time.thread_time() - start, len(analysis.decisions)


@dataclass
class Position:
    scores: list[float]
    outcome: list[float]
    chances: list[float] | None = None


def positions(rec: dict, every: int, playouts: int | None) -> list[Position]:
    """Every ``every``-th decision's position after the move, with the analysis's chances if ``playouts``."""
    state = initial_state(rec)
    actions = rec["actions"]
    outcome = [0.0] * rec["players"]
    winners = [r["seat"] for r in rec["result"] if r["rank"] == 1]
    for seat in winners:
        outcome[seat] = 1.0 / len(winners)
    found: list[Position] = []
    decision = 0
    for index in in_force(actions):
        entry = actions[index]
        if entry["seat"] != "chance":
            if decision % every == 0:
                chances = None
                if playouts is not None:
                    rows = win_chances(state, entry["action"], entry["seat"], playouts, f"bench:{index}")
                    chances = [statistics.fmean(c) for c in zip(*rows, strict=True)]
                after = state.clone()
                after.apply_action(entry["action"])
                scores = {r.seat: float(r.score) for r in after.result()}
                found.append(Position([scores[s] for s in range(rec["players"])], outcome, chances))
            decision += 1
        state.apply_action(entry["action"])
    return found


def score_only(scores: Sequence[float], beta: float) -> list[float]:
    top = max(scores)
    weights = [math.exp(beta * (s - top)) for s in scores]
    total = sum(weights)
    return [w / total for w in weights]


def brier(chances: Sequence[float], outcome: Sequence[float]) -> float:
    return statistics.fmean((c - o) ** 2 for c, o in zip(chances, outcome, strict=True))


def calibration(game_id: str, games: int, train: int, playouts: int, every: int) -> dict[str, float]:
    """Brier scores of the analysis and of the fitted score-only yardstick on ``games`` held-back games."""
    training = [p for g in range(train) for p in positions(bot_game(game_id, TRAIN_SEEDS + g), every, None)]
    beta = min(BETAS, key=lambda b: statistics.fmean(brier(score_only(p.scores, b), p.outcome) for p in training))
    analysed: list[float] = []
    yardstick: list[float] = []
    per_game: list[float] = []
    for g in range(games):
        start = time.thread_time()
        for p in positions(bot_game(game_id, g), every, playouts):
            assert p.chances is not None
            analysed.append(brier(p.chances, p.outcome))
            yardstick.append(brier(score_only(p.scores, beta), p.outcome))
        per_game.append(time.thread_time() - start)
    ours, theirs = statistics.fmean(analysed), statistics.fmean(yardstick)
    return {"analysis": ours, "score_only": theirs, "beta": beta, "positions": len(analysed),
            "better": 1 - ours / theirs if theirs else 0.0, "cpu_per_game": statistics.fmean(per_game)}


def measure(games: int, train: int, playouts: int, every: int, only: Sequence[str], speed: bool,
            budget: Budget = DEFAULT_BUDGET, show: bool = False) -> list[Row]:
    """The rows; with ``show`` each is printed as soon as it is measured (long runs)."""
    rows: list[Row] = []

    def add(row: Row) -> None:
        rows.append(row)
        if show:
            bench, value, unit, note = row
            print(f"{bench:<40} {value:>10,.1f} {unit:<6} {note}", flush=True)

    if speed:
        seconds, decisions = analysis_seconds(budget)
        add(("analysis: 2-player Machi Koro game", seconds, "cpu s",
             f"{decisions} decisions, search {budget.search or 'hard'}, {budget.playouts} playouts; target ≤ 60"))
    for game_id in only:
        c = calibration(game_id, games, train, playouts, every)
        add((f"analysis Brier {game_id}", 1000 * c["analysis"], "‰",
             f"score-only {1000 * c['score_only']:.1f} ‰ (beta {c['beta']:.3g}); {100 * c['better']:.1f} % better "
             f"(target ≥ 10); {games} held-back games, {train} training, {c['positions']} positions, "
             f"{playouts} playouts, every {every}th decision; {c['cpu_per_game']:.1f} cpu s per held-back game"))
    return rows


def run() -> list[Row]:
    """`make bench`: a smoke run (tiny budgets, Machi Koro only, two games)."""
    return measure(games=2, train=2, playouts=8, every=6, only=("machikoro",), speed=True,
                   budget=Budget(search=20, playouts=8))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="held-back games per game")
    parser.add_argument("--train", type=int, default=40, help="training games per game for the yardstick")
    parser.add_argument("--playouts", type=int, default=64, help="playouts per judged decision")
    parser.add_argument("--every", type=int, default=4, help="judge every n-th decision")
    parser.add_argument("--full", action="store_true", help="1,000 held-back and 1,000 training games per game")
    parser.add_argument("--only", default=",".join(GAMES), help="comma-separated games")
    parser.add_argument("--no-speed", action="store_true", help="skip the timed full analysis")
    args = parser.parse_args(argv)
    games, train = (1000, 1000) if args.full else (args.games, args.train)
    measure(games, train, args.playouts, args.every, [g for g in args.only.split(",") if g],
            speed=not args.no_speed, show=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
