"""Paying for developments: every listed payment is enough and minimal, and one exists when affordable."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ludothek.games.rolltheages.components import CAPACITY, DEVELOPMENTS, GOOD_IDS, GOODS
from ludothek.games.rolltheages.market import budget, can_buy, minimal_payments, purchase_options

goods_boards = st.tuples(*(st.integers(0, c) for c in CAPACITY)).map(list)


def _paid(coins: int, goods: list[int], rows: tuple[str, ...], food: int, per_food: int) -> int:
    return coins + sum(GOODS[GOOD_IDS.index(r)].values[goods[GOOD_IDS.index(r)]] for r in rows) + food * per_food


@settings(max_examples=200)
@given(
    st.sampled_from([0, 7, 12, 14, 21, 24, 36]),
    goods_boards,
    st.integers(0, 15),
    st.sampled_from([0, 4]),
    st.sampled_from([d.cost for d in DEVELOPMENTS]),
)
def test_minimal_payments_cover_the_cost_and_are_minimal(
    coins: int, goods: list[int], food: int, per_food: int, cost: int
) -> None:
    payments = minimal_payments(cost, coins, goods, food, per_food)
    assert bool(payments) == (budget(coins, goods, food, per_food) >= cost)
    assert len(set(payments)) == len(payments)
    for rows, sold in payments:
        assert sold <= food and (per_food or not sold)
        assert all(goods[GOOD_IDS.index(r)] for r in rows)
        total = _paid(coins, goods, rows, sold, per_food)
        assert total >= cost
        if sold:
            assert total - per_food < cost  # no less food would do
        for r in rows:
            assert _paid(coins, goods, tuple(x for x in rows if x != r), sold, per_food) < cost


def test_can_buy_agrees_with_the_options() -> None:
    for goods in ([0] * 5, [1, 0, 0, 0, 0], [8, 7, 6, 5, 4]):
        for coins in (0, 7, 14):
            owned = ["leadership", "irrigation"]
            assert can_buy(owned, coins, goods, 3, 4) == bool(purchase_options(owned, coins, goods, 3, 4))
