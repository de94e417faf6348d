"""Snowdonia knowledge for the bots: the score a seat would have if the game ended now.

`final_score` already counts stations, track, the surveyor, trains and the
best way to fulfil held contracts; resources add a little, since they turn
into track and stations later.
"""

from __future__ import annotations

from ludothek.engine import State

from .rules import SnowdoniaState

#: Workers act only after everyone has placed: `medium` plays this many random decisions on before judging.
LOOKAHEAD = 10

#: `hard` with the default constants, at 200 iterations a decision: the budget of the 400-game figures (358 of
#: 400 against `medium`); about 60 ms a decision instead of the 2 s the default cap of 2,000 would take.
SEARCH = {"iterations": 200}


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``, in points."""
    assert isinstance(state, SnowdoniaState)
    pl = state.p(seat)
    extra = 0.4 * (pl["coal"] + pl["stone"] + pl["iron"] + pl["rubble"]) + 0.8 * pl["steel"]
    return state.final_score(seat) + extra
