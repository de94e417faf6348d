"""Paying for a development: this turn's coins plus whole goods rows (and food with Granaries).

A row is always spent whole and no change is given, so the only sensible
payments are the *minimal* ones: no spent row could be left out, and no less
food would do.  Listing only those keeps the buy phase to a few dozen choices
while every real option stays open (spending more never helps: it only loses
goods, and goods are the tie-breaker).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

from .components import DEVELOPMENTS, GOOD_IDS, GOODS

assert len(GOODS) == 5  # `budget` adds the five rows spelled out

Payment = tuple[tuple[str, ...], int]  # (goods rows spent, food sold)


def _subsets(goods: Sequence[int]) -> tuple[tuple[tuple[str, ...], int, int], ...]:
    """Every set of non-empty rows as ``(names, total value, smallest row value)``."""
    return _subsets_of(tuple(goods))


@lru_cache(maxsize=4096)
def _subsets_of(goods: tuple[int, ...]) -> tuple[tuple[tuple[str, ...], int, int], ...]:
    rows = [(GOOD_IDS[i], GOODS[i].values[n]) for i, n in enumerate(goods) if n]
    subsets: list[tuple[tuple[str, ...], int, int]] = []
    for size in range(len(rows) + 1):
        for subset in combinations(rows, size):
            values = [v for _, v in subset]
            subsets.append((tuple(name for name, _ in subset), sum(values), min(values, default=0)))
    return tuple(subsets)


def _minimal(
    cost: int, coins: int, subsets: tuple[tuple[tuple[str, ...], int, int], ...], food: int, coins_per_food: int
) -> list[Payment]:
    if coins >= cost:
        return [((), 0)]
    result: list[Payment] = []
    for names, value, smallest in subsets:
        total = coins + value
        need = cost - total
        if need <= 0:
            sold = 0
        elif coins_per_food and -(-need // coins_per_food) <= food:
            sold = -(-need // coins_per_food)
        else:
            continue
        if names and total + sold * coins_per_food - smallest >= cost:
            continue  # a row could be left out (if any can, the smallest can)
        result.append((names, sold))
    return result


def minimal_payments(
    cost: int, coins: int, goods: Sequence[int], food: int, coins_per_food: int
) -> list[Payment]:
    """Every minimal way to pay ``cost``; ``coins_per_food`` is 0 without Granaries."""
    return _minimal(cost, coins, _subsets(goods), food, coins_per_food)


#: The coin value of each goods row by its count.
_ROW_VALUES: tuple[tuple[int, ...], ...] = tuple(g.values for g in GOODS)


def budget(coins: int, goods: Sequence[int], food: int, coins_per_food: int) -> int:
    """The most a player could pay this turn: coins, every row, and all food with Granaries."""
    v = _ROW_VALUES
    return coins + v[0][goods[0]] + v[1][goods[1]] + v[2][goods[2]] + v[3][goods[3]] + v[4][goods[4]] \
        + food * coins_per_food


def can_buy(owned: Sequence[str], coins: int, goods: Sequence[int], food: int, coins_per_food: int) -> bool:
    """Whether any development is affordable (then a minimal payment for it exists)."""
    most = budget(coins, goods, food, coins_per_food)
    return any(dev.cost <= most for dev in DEVELOPMENTS if dev.id not in owned)


#: `_minimal`'s answers by (cost minus coins, goods, food, coins per food): random play and the bots' searches
#: meet the same few hundred of them again and again.  Bounded: cleared when it grows large.
_MINIMAL_MEMO: dict[tuple[int, tuple[int, ...], int, int], list[Payment]] = {}


def purchase_options(
    owned: Sequence[str], coins: int, goods: Sequence[int], food: int, coins_per_food: int
) -> list[tuple[str, Payment]]:
    """``(development, payment)`` for every development not owned and every minimal payment."""
    options: list[tuple[str, Payment]] = []
    most = budget(coins, goods, food, coins_per_food)
    goods_key = tuple(goods)
    food_key = food if coins_per_food else 0  # food only pays with Granaries
    memo = _MINIMAL_MEMO
    subsets: tuple[tuple[tuple[str, ...], int, int], ...] | None = None
    for dev in DEVELOPMENTS:
        if dev.id in owned or dev.cost > most:
            continue
        key = (dev.cost - coins, goods_key, food_key, coins_per_food)
        payments = memo.get(key)
        if payments is None:
            if subsets is None:
                subsets = _subsets_of(goods_key)
            if len(memo) > 100_000:
                memo.clear()
            payments = memo[key] = _minimal(dev.cost, coins, subsets, food, coins_per_food)
        for payment in payments:
            options.append((dev.id, payment))
    return options
