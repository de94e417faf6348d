"""Do all-bot games end, and do bots finish when they can?  Figures over many seeded games (issue 29).

For every game and variant, ``--games`` all-bot games per bot level (2, 3, 4
players in turn; game ``g`` is seeded with ``g``), each stopped if a seat
reaches ``--cap`` turns.  Per row: the most turns a seat took in any game
(the unit of tests/bots/test_endings.py's bound), the mean, how many games
did not end, and for Machi Koro how often a bot chose something else with its
last landmark affordable (refusals) and the most by one seat in one game.

Run: ``.venv/bin/python -m benchmarks.bench_bot_endings --games 300`` (``make bench``
runs a small count), ``--levels easy,medium,hard`` to add `hard`, ``--only machikoro``
to restrict the games.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

from ludothek.bots import make_bot
from ludothek.bots.endings import Finisher, play_bounded
from ludothek.engine import load
from ludothek.games.machikoro.strategy import finishing_build

Row = tuple[str, float, str, str]

#: (game, options, finisher): every game and variant the portal offers for 2-4 players.
CASES: tuple[tuple[str, dict[str, str], Finisher | None], ...] = (
    ("machikoro", {}, finishing_build),
    ("machikoro", {"ending": "kosmos"}, finishing_build),
    ("machikoro", {"market": "komme_was_wolle"}, finishing_build),
    ("machikoro", {"max_two": "on"}, finishing_build),
    ("rolltheages", {}, None),
    ("snowdonia", {"map": "mount_snowdon"}, None),
    ("snowdonia", {"map": "daffodil_line"}, None),
    ("snowdonia", {"map": "blaenau_ffestiniog"}, None),
    ("carpediem", {}, None),
)


def measure(game_id: str, options: dict[str, str], finisher: Finisher | None, level: str, games: int,
            cap: int) -> Row:
    """One row: ``games`` all-``level`` games of ``game_id`` with ``options``."""
    turns: list[int] = []
    unended = refusals = most = 0
    start = time.process_time()
    for g in range(games):
        n = 2 + g % 3
        end = play_bounded(load(game_id).new_state(n, options), [make_bot(level) for _ in range(n)],
                           random.Random(g), cap, finisher)
        turns.append(end.turns)
        unended += not end.ended
        refusals += sum(end.refusals)
        most = max([most, *end.refusals])
    label = " ".join(f"{k}={v}" for k, v in options.items()) or "default"
    note = f"mean {statistics.mean(turns):.1f}, {unended} of {games} unended (cap {cap})"
    if finisher is not None:
        note += f", last landmark refused {refusals} times, at most {most} by one seat"
    note += f", {time.process_time() - start:.0f} s CPU"
    return (f"{game_id} {label} {level}: most turns of a seat", float(max(turns)), "turns", note)


def run(games: int = 6, levels: Sequence[str] = ("easy", "medium"), cap: int = 200,
        only: Sequence[str] = ()) -> list[Row]:
    return [measure(game_id, options, finisher, level, games, cap)
            for game_id, options, finisher in CASES if not only or game_id in only
            for level in levels]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--levels", default="easy,medium")
    parser.add_argument("--cap", type=int, default=200)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    for game_id, options, finisher in CASES:
        if args.only and game_id not in args.only.split(","):
            continue
        for level in args.levels.split(","):
            row = measure(game_id, options, finisher, level, args.games, args.cap)
            print(f"{row[0]:<58} {row[1]:>6.0f} {row[2]}  {row[3]}", flush=True)
