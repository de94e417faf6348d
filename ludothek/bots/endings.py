"""Do all-bot games finish?  Play one to its end under a bound and count what a stall looks like.

Issue 29 found Machi Koro's `easy` and `medium` passing for hundreds of turns
with their last landmark affordable, so that all-bot games never ended.  This
module plays a game with given bots and stops it once any seat has taken
``max_turns`` turns; the tests (tests/bots/test_endings.py) and the probe
(benchmarks/bench_bot_endings.py) check that every game ends well before that.

A *turn* here is a run of one seat's decisions (chance does not break it), as
`State.turns_taken` counts them; the figure per game is the most turns any one
seat took, which in Machi Koro and Roll Through the Ages is the number of
rounds, and in the worker-placement games counts every placement.

A game may say what "could end it now" means: ``finisher(state)`` returns the
action that would complete the mover's game (Machi Koro: build the last
landmark) or None; each decision where it is legal and the bot chose something
else counts as a *refusal* for that seat.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ludothek.engine import CHANCE, State, sample_chance

from . import Bot

Finisher = Callable[[State], str | None]


@dataclass
class Ending:
    """How one bounded game went."""

    #: True if the game reached its end within the bound.
    ended: bool
    #: The most turns any one seat took.
    turns: int
    #: Per seat: decisions where the ``finisher`` action was legal and the bot chose another.
    refusals: list[int] = field(default_factory=list)
    #: Per seat: the longest run of consecutive such refusals.
    longest_refusal: list[int] = field(default_factory=list)


def play_bounded(state: State, bots: Sequence[Bot], rng: random.Random, max_turns: int,
                 finisher: Finisher | None = None) -> Ending:
    """Play ``state`` in place until it ends or a seat begins turn ``max_turns + 1``."""
    n = state.num_players
    turns = [0] * n
    refusals = [0] * n
    run = [0] * n
    longest = [0] * n
    last: int | None = None
    while True:
        seat = state.current_player()
        if seat == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        if seat < 0:
            return Ending(True, max(turns), refusals, longest)
        if seat != last:
            if turns[seat] == max_turns:
                return Ending(False, max(turns), refusals, longest)
            turns[seat] += 1
            last = seat
        action = bots[seat].choose(state, rng)
        finish = finisher(state) if finisher is not None else None
        if finish is not None:
            if action == finish:
                run[seat] = 0
            else:
                refusals[seat] += 1
                run[seat] += 1
                longest[seat] = max(longest[seat], run[seat])
        state.apply_action(action)
