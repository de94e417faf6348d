"""The trade game's exchange rules: what may be offered, and the exchange itself.

Goods and food change hands only by agreement between the active player and
one other player.  Nobody may hold more than the pegboard shows (a goods row's
capacity, 15 food), an offer needs something on both sides, and one item is
never on both sides of the same offer.  Per-item counts are lists in the order
of `TRADE_ITEMS` (the five goods, then food).
"""

from __future__ import annotations

from .board import Board
from .components import CAPACITY, FOOD_MAX
from .notation import TRADE_ITEMS

#: How much of each trade item a player may hold.
TRADE_CAPACITY: tuple[int, ...] = (*CAPACITY, FOOD_MAX)
_FOOD = len(TRADE_ITEMS) - 1


def holdings(board: Board) -> list[int]:
    """A player's goods and food as per-item counts."""
    return [*board.goods, board.food]


def can_trade(me: Board, them: Board) -> bool:
    """Whether any exchange at all is possible between these two players."""
    mine, theirs = holdings(me), holdings(them)
    give = {i for i in range(len(TRADE_ITEMS)) if mine[i] and theirs[i] < TRADE_CAPACITY[i]}
    ask = {i for i in range(len(TRADE_ITEMS)) if theirs[i] and mine[i] < TRADE_CAPACITY[i]}
    return bool(give and ask and len(give | ask) > 1)


def draft_actions(me: Board, them: Board, give: list[int], ask: list[int]) -> list[str]:
    """The next steps for an offer being drafted: add one unit to either side, propose, cancel."""
    mine, theirs = holdings(me), holdings(them)
    actions = []
    for i, item in enumerate(TRADE_ITEMS):
        if not ask[i] and give[i] < mine[i] and theirs[i] + give[i] < TRADE_CAPACITY[i]:
            actions.append(f"give:{item}")
    for i, item in enumerate(TRADE_ITEMS):
        if not give[i] and ask[i] < theirs[i] and mine[i] + ask[i] < TRADE_CAPACITY[i]:
            actions.append(f"ask:{item}")
    if any(give) and any(ask):
        actions.append("propose")
    actions.append("cancel")
    return actions


def exchange(giver: Board, partner: Board, give: list[int], ask: list[int]) -> None:
    """Carry out an accepted offer: ``giver`` hands over ``give`` and receives ``ask``."""
    for i in range(len(CAPACITY)):
        giver.goods[i] += ask[i] - give[i]
        partner.goods[i] += give[i] - ask[i]
    giver.food += ask[_FOOD] - give[_FOOD]
    partner.food += give[_FOOD] - ask[_FOOD]
