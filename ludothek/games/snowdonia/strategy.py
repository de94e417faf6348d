"""Snowdonia knowledge for the bots: the score a seat would have if the game ended now.

`final_score` already counts stations, track, the surveyor, trains and the
best way to fulfil held contracts; resources add a little, since they turn
into track and stations later.
"""

from __future__ import annotations

import random

from ludothek.engine import State

from .rules import SnowdoniaState

#: Workers act only after everyone has placed: `medium` plays this many random decisions on before judging.
LOOKAHEAD = 10


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``, in points."""
    assert isinstance(state, SnowdoniaState)
    pl = state.p(seat)
    extra = 0.4 * (pl["coal"] + pl["stone"] + pl["iron"] + pl["rubble"]) + 0.8 * pl["steel"]
    return state.final_score(seat) + extra


def rollout_policy(state: State, rng: random.Random) -> str:
    """`hard`'s rollout moves: a random worker placement, then the obvious way to use it.

    Random play wastes what a placement earned (taking one cube of three,
    leaving the pub worker idle, converting nothing), so the search's
    rollouts would judge placements by play no one makes.  Here a seat takes
    the most cubes, hires, plays a contract when it can, converts as much as
    allowed; placements, contracts and builds stay random (no judgement is
    cheap enough to make there).  Only `hard` uses it: `easy` and `medium`
    keep their own play.
    """
    legal = state.legal_actions()
    head = legal[0].partition(":")[0]
    if head == "take":
        most = max(a.count("+") for a in legal if a != "take:nothing")  if len(legal) > 1 else 0
        return rng.choice([a for a in legal if a != "take:nothing" and a.count("+") == most] or legal)
    if head == "pub":
        return "pub:hire" if "pub:hire" in legal else legal[0]
    if head == "convert":
        return max(legal, key=lambda a: int(a.partition(":")[2]) if a.partition(":")[2].isdigit() else -1)
    plays = [a for a in legal if a.startswith("play:")]
    if plays:
        return rng.choice(plays)
    return rng.choice(legal)


#: `hard`'s constants (see `ludothek.bots.strategy.SearchSettings`): rollouts of 24 decisions (about two
#: rounds of two players) with `rollout_policy`, since a placement pays off only when its area is resolved.
SEARCH = {"rollout_depth": 24}
