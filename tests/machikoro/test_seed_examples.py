"""Every worked example of the two seed documents (Kosmos rulebook, Yucata page)."""

from __future__ import annotations

from .helpers import all_coins, new, play


def test_cafe_with_empty_purse() -> None:
    """A rolls 3 with no coins; B's Café gets nothing; then A takes 2 for his two Bakeries."""
    state = new(
        2,
        coins={0: 0, 1: 0},
        cards={0: {"wheat_field": 1, "bakery": 2}, 1: {"wheat_field": 1, "bakery": 1, "cafe": 1}},
    )
    play(state, "dice:3")
    assert all_coins(state) == [2, 0]


def test_red_cards_are_paid_counter_clockwise() -> None:
    """A (3 coins) rolls 3; B has 3 Cafés, C has 2: C gets 2 first, B gets 1, 2 are forgiven."""
    state = new(
        3,
        coins={0: 3, 1: 0, 2: 0},
        cards={0: {"wheat_field": 1}, 1: {"cafe": 3}, 2: {"cafe": 2}},
    )
    play(state, "dice:3")
    assert all_coins(state) == [0, 1, 2]


def test_counter_clockwise_payment_comes_before_the_rollers_income() -> None:
    """Same example with A's starting Bakery: A pays all 3 coins first, then earns 1."""
    state = new(3, coins={0: 3, 1: 0, 2: 0}, cards={1: {"cafe": 3}, 2: {"cafe": 2}})
    play(state, "dice:3")
    assert all_coins(state) == [1, 1, 2]


def test_shopping_mall_two_bakeries_give_four() -> None:
    state = new(2, coins={0: 0, 1: 0}, cards={0: {"bakery": 2}}, landmarks={0: ["shopping_mall"]})
    play(state, "dice:2")
    assert state.coins(0) == 4


def test_shopping_mall_family_restaurant_gives_three() -> None:
    state = new(
        2,
        coins={0: 10, 1: 0},
        cards={1: {"family_restaurant": 1}},
        landmarks={0: ["train_station"], 1: ["shopping_mall"]},
    )
    play(state, "roll:2", "dice:4+5")
    assert all_coins(state) == [7, 3]


def test_shopping_mall_two_convenience_stores_give_eight() -> None:
    """The reference's third example (peer test): 2 Convenience Stores give 8 instead of 6."""
    state = new(2, coins={0: 0, 1: 0}, cards={0: {"convenience_store": 2}}, landmarks={0: ["shopping_mall"]})
    play(state, "dice:4")
    assert state.coins(0) == 8


def test_tv_station_takes_from_the_only_opponent_with_coins() -> None:
    """Yucata: if only one opponent has coins, the TV Station takes from that one automatically."""
    state = new(3, coins={0: 0, 1: 0, 2: 9}, cards={0: {"tv_station": 1}})
    play(state, "dice:6")
    assert state.phase == "build"
    assert all_coins(state) == [5, 0, 4]
