"""Bots: a short arena per game (medium and a reduced-budget hard against random), printed as tables.

The long runs whose figures ``docs/bots.md`` reports use ``ludothek arena``
directly; this keeps ``make bench`` short (a few games, small budgets).
"""

from __future__ import annotations

import sys

from ludothek.bots import Bot, make_bot
from ludothek.bots.arena import format_table, run_arena
from ludothek.bots.ismcts import IsmctsBot
from ludothek.engine.registry import GAME_MODULES

Row = tuple[str, float, str, str]

#: (game, games of medium vs random, games of hard vs random)
#: Solo games of Roll Through the Ages for `hard`'s solo average.
SOLO_GAMES = 2
#: Games played per bot and game (medium, hard): more where a game is quick; every registered game is played.
GAMES_PER_BOT = {"machikoro": (10, 4), "rolltheages": (10, 4)}
PLAN = tuple((game, *GAMES_PER_BOT.get(game, (4, 2))) for game in GAME_MODULES)


def _factory(name: str) -> Bot:
    if name == "hard":
        return IsmctsBot(seconds=0.1, iterations=100)
    return make_bot(name)


def run() -> list[Row]:
    rows: list[Row] = []
    for game, medium_games, hard_games in PLAN:
        for bot, games in (("medium", medium_games), ("hard", hard_games)):
            report = run_arena(game, [bot, "random"], players=2, games=games, seed=1, factory=_factory)
            print(format_table(report), file=sys.stderr)
            fig = report["bots"][0]
            note = f"{games} games vs random, 2p, seed 1" + (", 0.1 s/100 iterations" if bot == "hard" else "")
            rows.append((f"{game} {bot} win rate vs random", 100 * fig["win_rate"], "%", note))
            rows.append((f"{game} {bot} decision p95", fig["decision_ms"]["p95"], "ms", "one core, shared machine"))
            if game == "rolltheages":  # the target is points: 25 on average in 2-player games
                rows.append((f"{game} {bot} mean score vs random", fig["mean_score"], "points", note))
    # Roll Through the Ages alone: the solo game lasts 10 rounds; its average score is the solo figure.
    report = run_arena("rolltheages", ["hard"], players=1, games=SOLO_GAMES, seed=1, options={"mode": "solo"},
                       factory=_factory)
    print(format_table(report), file=sys.stderr)
    rows.append(("rolltheages hard solo average (10 rounds)", report["bots"][0]["mean_score"], "points",
                 f"{SOLO_GAMES} solo games, seed 1, 0.1 s/100 iterations"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
