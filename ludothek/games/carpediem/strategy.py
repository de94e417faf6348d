"""Carpe Diem knowledge for the bots: the running total plus what goods are worth.

The fast policy is the greedy placement player in `greedy`, which judges a
tile by the features it completes and the parts it joins.
"""

from __future__ import annotations

import random

from ludothek.engine import State

from .greedy import GreedyBot, goods_value
from .state import CarpeDiemState

_GREEDY = GreedyBot()


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``, in points."""
    assert isinstance(state, CarpeDiemState)
    return goods_value(state, seat)


def policy(state: State, rng: random.Random) -> str:
    """A quick sensible action for the seat to move."""
    return _GREEDY.choose(state, rng)


#: `hard`'s constants (see `ludothek.bots.strategy.SearchSettings`): the greedy placement player's move
#: starts with 20 virtual visits, so a short search does not overrule it on thin evidence.
SEARCH = {"prior": 20}
