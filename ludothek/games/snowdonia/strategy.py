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


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``, in points."""
    assert isinstance(state, SnowdoniaState)
    pl = state.p(seat)
    extra = 0.4 * (pl["coal"] + pl["stone"] + pl["iron"] + pl["rubble"]) + 0.8 * pl["steel"]
    return state.final_score(seat) + extra
