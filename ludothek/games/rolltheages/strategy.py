"""Roll Through the Ages knowledge for the bots: what an empire is worth to its owner.

Points count fully; goods, food, cities and progress on monuments and cities
count as the points they are likely to turn into later.
"""

from __future__ import annotations

from ludothek.engine import State

from .rules import RollState


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``, in points."""
    assert isinstance(state, RollState)
    b = state.boards[seat]
    work = sum(b.monument_work.values())
    return (b.score() + 0.12 * b.goods_value() + 2.0 * b.cities + 0.2 * b.city_work
            + 0.15 * work + 0.25 * min(b.food, 8) + 0.5 * len(b.developments))
