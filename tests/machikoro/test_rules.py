"""One scenario per rule, with the dice set explicitly."""

from __future__ import annotations

import pytest

from ludothek.engine import CHANCE, TERMINAL, IllegalAction, InvalidOptions, load
from ludothek.games.machikoro.cards import ESTABLISHMENTS

from .helpers import all_coins, new, play

# ----- setup ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup(players: int) -> None:
    state = load("machikoro").new_state(players)
    assert state.current_player() == CHANCE
    assert state.legal_actions() == [f"dice:{i}" for i in range(1, 7)]
    view = state.view(0)
    for city in view["cities"]:
        assert city["coins"] == 3
        assert city["establishments"] == {"wheat_field": 1, "bakery": 1}
        assert set(city["landmarks"].values()) == {"unbuilt"}
    piles = view["market"]["piles"]
    assert all(piles[e.id] == (4 if e.colour == "purple" else 6) for e in ESTABLISHMENTS)
    assert len(piles) == 15


def test_player_count_and_options_are_checked() -> None:
    game = load("machikoro")
    for bad in (1, 5):
        with pytest.raises(InvalidOptions):
            game.new_state(bad)
    with pytest.raises(InvalidOptions):
        game.new_state(2, {"ending": "sudden"})
    with pytest.raises(InvalidOptions):
        game.new_state(2, {"speed": "fast"})


# ----- rolling ----------------------------------------------------------------------------------


def test_without_train_station_one_die_is_rolled_at_once() -> None:
    state = new(2)
    assert state.current_player() == CHANCE
    assert len(state.legal_actions()) == 6
    with pytest.raises(IllegalAction):
        state.apply_action("dice:3+4")


def test_train_station_offers_one_or_two_dice() -> None:
    state = new(2, landmarks={0: ["train_station"]})
    assert state.current_player() == 0
    assert state.legal_actions() == ["roll:1", "roll:2"]
    play(state, "roll:2")
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 21
    assert outcomes["dice:3+3"] == pytest.approx(1 / 36)
    assert outcomes["dice:3+4"] == pytest.approx(2 / 36)
    assert sum(outcomes.values()) == pytest.approx(1.0)
    sums = {s: 0.0 for s in range(2, 13)}
    for action, p in outcomes.items():
        a, b = action[5:].split("+")
        sums[int(a) + int(b)] += p
    assert sums[7] == pytest.approx(6 / 36) and sums[2] == pytest.approx(1 / 36)


def test_two_dice_count_only_the_sum() -> None:
    # 1 + 1 = 2 is not a Wheat Field roll even though each die shows 1.
    state = new(
        2, coins={0: 0, 1: 0}, cards={0: {"wheat_field": 1, "ranch": 1}}, landmarks={0: ["train_station"]}
    )
    play(state, "roll:2", "dice:1+1")
    assert state.coins(0) == 1  # only the Ranch


# ----- income -----------------------------------------------------------------------------------


def test_blue_pays_every_owner_on_any_roll() -> None:
    state = new(3, coins={0: 0, 1: 0, 2: 0}, cards={0: {"forest": 1}, 1: {"forest": 2}, 2: {}})
    play(state, "dice:5")
    assert all_coins(state) == [1, 2, 0]


def test_green_pays_only_the_roller() -> None:
    state = new(2, coins={0: 0, 1: 0}, cards={0: {"bakery": 1}, 1: {"bakery": 3}})
    play(state, "dice:2")
    assert all_coins(state) == [1, 0]


def test_red_pays_only_on_others_rolls() -> None:
    state = new(2, coins={0: 5, 1: 5}, cards={0: {"cafe": 2}, 1: {"cafe": 1}})
    play(state, "dice:3")
    assert all_coins(state) == [4, 6]


def test_red_before_blue_and_green() -> None:
    """The roller pays from the coins held before the roll's income."""
    state = new(2, coins={0: 0, 1: 0}, cards={0: {"bakery": 2}, 1: {"cafe": 1}})
    play(state, "dice:3")
    assert all_coins(state) == [2, 0]


@pytest.mark.parametrize(
    ("card", "counted", "roll", "gain"),
    [
        ("cheese_factory", {"ranch": 3}, "dice:3+4", 9),
        ("furniture_factory", {"forest": 1, "mine": 2}, "dice:4+4", 9),
        ("fruit_and_vegetable_market", {"wheat_field": 2, "apple_orchard": 1}, "dice:5+6", 6),
        ("fruit_and_vegetable_market", {"wheat_field": 2, "apple_orchard": 1}, "dice:6+6", 6),
    ],
)
def test_combination_cards_count_the_owners_icons(
    card: str, counted: dict[str, int], roll: str, gain: int
) -> None:
    state = new(
        2,
        coins={0: 0, 1: 0},
        cards={0: {card: 1, **counted}, 1: {"ranch": 5, "wheat_field": 5}},
        landmarks={0: ["train_station"]},
    )
    play(state, "roll:2", roll)
    assert state.coins(0) == gain


def test_two_combination_cards_pay_twice() -> None:
    state = new(
        2, coins={0: 0, 1: 0}, cards={0: {"cheese_factory": 2, "ranch": 2}}, landmarks={0: ["train_station"]}
    )
    play(state, "roll:2", "dice:1+6")
    assert state.coins(0) == 12


def test_shopping_mall_does_not_raise_factories_or_blue_cards() -> None:
    state = new(
        2,
        coins={0: 0, 1: 0},
        cards={0: {"cheese_factory": 1, "ranch": 1}},
        landmarks={0: ["train_station", "shopping_mall"]},
    )
    play(state, "roll:2", "dice:3+4")
    assert state.coins(0) == 3
    state = new(2, coins={0: 0, 1: 0}, cards={0: {"wheat_field": 2}}, landmarks={0: ["shopping_mall"]})
    play(state, "dice:1")
    assert state.coins(0) == 2


def test_shopping_mall_raises_a_cafe_paid_by_the_roller() -> None:
    state = new(2, coins={0: 5, 1: 0}, cards={0: {}, 1: {"cafe": 2}}, landmarks={1: ["shopping_mall"]})
    play(state, "dice:3")
    assert all_coins(state) == [1, 4]


# ----- purple -----------------------------------------------------------------------------------


def test_stadium_takes_two_from_each_opponent_as_far_as_they_can() -> None:
    state = new(4, coins={0: 0, 1: 5, 2: 1, 3: 0}, cards={0: {"stadium": 1}})
    play(state, "dice:6")
    assert all_coins(state) == [3, 3, 0, 0]


def test_tv_station_target_is_chosen_among_opponents_with_coins() -> None:
    state = new(4, coins={0: 0, 1: 7, 2: 3, 3: 0}, cards={0: {"tv_station": 1}})
    play(state, "dice:6")
    assert state.phase == "tv_station"
    assert state.current_player() == 0
    assert state.legal_actions() == ["tv:2", "tv:3"]
    with pytest.raises(IllegalAction):
        state.apply_action("tv:4")  # no coins: not a target
    play(state, "tv:2")
    assert all_coins(state) == [5, 2, 3, 0]
    assert state.phase == "build"


def test_tv_station_takes_what_the_target_has() -> None:
    state = new(3, coins={0: 0, 1: 2, 2: 3}, cards={0: {"tv_station": 1}})
    play(state, "dice:6", "tv:3")
    assert all_coins(state) == [3, 2, 0]


def test_tv_station_does_nothing_when_nobody_has_coins() -> None:
    state = new(3, coins={0: 0, 1: 0, 2: 0}, cards={0: {"tv_station": 1}})
    play(state, "dice:6")
    assert state.phase == "build" and all_coins(state) == [0, 0, 0]


def test_stadium_resolves_before_tv_station() -> None:
    state = new(2, coins={0: 0, 1: 6}, cards={0: {"stadium": 1, "tv_station": 1}})
    play(state, "dice:6")
    assert all_coins(state) == [6, 0]  # Stadium 2, then TV Station the remaining 4
    state = new(3, coins={0: 0, 1: 6, 2: 2}, cards={0: {"stadium": 1, "tv_station": 1}})
    play(state, "dice:6")  # after the Stadium only player 2 has coins left: automatic target
    assert all_coins(state) == [8, 0, 0]


def test_business_center_trade() -> None:
    state = new(2, cards={0: {"business_center": 1, "wheat_field": 1}, 1: {"cafe": 1, "mine": 1}})
    play(state, "dice:6")
    assert state.phase == "business_center"
    legal = state.legal_actions()
    assert "notrade" in legal
    assert set(legal) == {"trade:wheat_field:2:cafe", "trade:wheat_field:2:mine", "notrade"}
    play(state, "trade:wheat_field:2:mine")
    assert state.count(0, "mine") == 1 and state.count(0, "wheat_field") == 0
    assert state.count(1, "wheat_field") == 1 and state.count(1, "mine") == 0
    assert state.phase == "build"


def test_business_center_may_be_declined() -> None:
    state = new(2, cards={0: {"business_center": 1, "wheat_field": 1}, 1: {"cafe": 1}})
    before = state.clone()
    play(state, "dice:6", "notrade")
    assert state.phase == "build"
    assert state.count(0, "wheat_field") == 1 and state.count(1, "cafe") == 1
    assert before.count(0, "wheat_field") == 1


def test_business_center_never_trades_purple_cards() -> None:
    state = new(2, cards={0: {"business_center": 1, "stadium": 1}, 1: {"tv_station": 1, "cafe": 1}})
    play(state, "dice:6")
    # Player 1 owns only purple cards: nothing to give, so there is no trade step.
    assert state.phase == "build"
    state = new(2, cards={0: {"business_center": 1, "bakery": 1}, 1: {"tv_station": 1, "cafe": 1}})
    play(state, "dice:6")
    assert state.legal_actions() == ["trade:bakery:2:cafe", "notrade"]


def test_business_center_respects_max_two() -> None:
    state = new(
        2,
        cards={0: {"business_center": 1, "bakery": 1, "cafe": 2}, 1: {"cafe": 1, "bakery": 2, "mine": 1}},
        max_two="on",
    )
    play(state, "dice:6")
    # Player 1 may not get a 3rd Café; player 2 may not get a 3rd Bakery.
    assert set(state.legal_actions()) == {"trade:cafe:2:bakery", "trade:cafe:2:mine", "notrade"}


# ----- building ---------------------------------------------------------------------------------


def test_build_at_most_one_thing_then_the_turn_passes() -> None:
    state = new(2, coins={0: 20, 1: 0})
    play(state, "dice:5")
    legal = state.legal_actions()
    assert "build:cafe" in legal and "build:train_station" in legal and "pass" in legal
    assert "build:radio_tower" not in legal  # costs 22
    play(state, "build:cafe")
    assert state.coins(0) == 18 and state.count(0, "cafe") == 1 and state.pile("cafe") == 5
    assert state.turn == 1 and state.current_player() == CHANCE


def test_pass_builds_nothing() -> None:
    state = new(2, coins={0: 20, 1: 0})
    play(state, "dice:5", "pass")
    assert state.coins(0) == 20 and state.turn == 1


def test_only_one_of_each_purple_kind() -> None:
    state = new(2, coins={0: 30, 1: 0}, cards={0: {"stadium": 1}})
    play(state, "dice:5")
    legal = state.legal_actions()
    assert "build:stadium" not in legal and "build:tv_station" in legal
    with pytest.raises(IllegalAction, match="only one"):
        state.apply_action("build:stadium")


def test_cannot_build_what_you_cannot_afford() -> None:
    state = new(2, coins={0: 2, 1: 0}, cards={0: {}})
    play(state, "dice:5")
    with pytest.raises(IllegalAction, match="costs 3 coins"):
        state.apply_action("build:forest")


def test_empty_pile_cannot_be_built() -> None:
    state = new(2, coins={0: 100, 1: 100})
    for _ in range(6):
        play(state, "dice:5", "build:mine" if state.turn == 0 else "pass")
        if state.turn == 1:
            play(state, "dice:5", "pass")
    assert state.pile("mine") == 0
    play(state, "dice:5")
    assert "build:mine" not in state.legal_actions()


def test_max_two_limits_each_establishment() -> None:
    state = new(2, coins={0: 20, 1: 0}, cards={0: {"cafe": 2, "bakery": 1}}, max_two="on")
    play(state, "dice:5")
    legal = state.legal_actions()
    assert "build:cafe" not in legal and "build:bakery" in legal
    with pytest.raises(IllegalAction, match="at most 2"):
        state.apply_action("build:cafe")


# ----- landmarks ----------------------------------------------------------------------------------


def test_landmark_takes_effect_from_the_next_turn() -> None:
    state = new(2, coins={0: 14, 1: 0}, cards={0: {"bakery": 1}, 1: {"cafe": 1}})
    play(state, "dice:5", "build:train_station")
    assert state.has_built(0, "train_station") and not state.landmark_active(0, "train_station")
    play(state, "dice:5", "pass")  # player 2
    assert state.current_player() == 0 and state.legal_actions() == ["roll:1", "roll:2"]
    assert state.landmark_active(0, "train_station")


def test_shopping_mall_for_red_cards_waits_for_the_owners_next_turn() -> None:
    state = new(2, coins={0: 10, 1: 10}, cards={0: {"cafe": 1}, 1: {}})
    play(state, "dice:5", "build:shopping_mall")
    play(state, "dice:3", "pass")  # player 2 rolls 3: the new Mall is not yet in effect
    assert all_coins(state) == [1, 9]
    play(state, "dice:5", "pass")  # player 1's turn: now in effect
    play(state, "dice:3", "pass")
    assert all_coins(state) == [3, 7]


def test_amusement_park_gives_an_extra_turn_on_doubles() -> None:
    state = new(2, coins={0: 0, 1: 0}, landmarks={0: ["train_station", "amusement_park"]})
    play(state, "roll:2", "dice:2+2", "pass")
    assert state.turn == 0 and state.extra_turn
    assert state.legal_actions() == ["roll:1", "roll:2"]
    play(state, "roll:2", "dice:3+3", "pass")  # doubles again: no third turn
    assert state.turn == 1 and not state.extra_turn


def test_amusement_park_needs_two_dice_and_doubles() -> None:
    state = new(2, coins={0: 0, 1: 0}, landmarks={0: ["train_station", "amusement_park"]})
    play(state, "roll:2", "dice:2+3", "pass")
    assert state.turn == 1
    state = new(2, coins={0: 0, 1: 0}, landmarks={0: ["train_station", "amusement_park"]})
    play(state, "roll:1", "dice:4", "pass")
    assert state.turn == 1


def test_amusement_park_built_this_turn_gives_no_extra_turn() -> None:
    state = new(2, coins={0: 16, 1: 0}, landmarks={0: ["train_station"]})
    play(state, "roll:2", "dice:2+2", "build:amusement_park")
    assert state.turn == 1


def test_extra_turn_activates_landmarks_built_in_the_first_turn() -> None:
    state = new(
        2, coins={0: 10, 1: 0}, cards={0: {"bakery": 2}}, landmarks={0: ["train_station", "amusement_park"]}
    )
    play(state, "roll:2", "dice:1+1", "build:shopping_mall")
    assert state.extra_turn and state.landmark_active(0, "shopping_mall")
    play(state, "roll:1", "dice:3")
    # 10 + 2 (two Bakeries on 1+1) - 10 (Mall) + 4 (two Bakeries on 3, with the Mall)
    assert state.coins(0) == 6


def test_radio_tower_reroll_counts_only_the_second_result() -> None:
    state = new(2, coins={0: 0, 1: 0}, cards={0: {"bakery": 1, "forest": 1}}, landmarks={0: ["radio_tower"]})
    play(state, "dice:2")
    assert state.phase == "radio_tower" and state.legal_actions() == ["keep", "reroll"]
    assert state.coins(0) == 0  # nothing paid before the decision
    play(state, "reroll")
    assert state.legal_actions() == [f"dice:{i}" for i in range(1, 7)]  # same number of dice
    play(state, "dice:5")
    assert state.phase == "build"  # only once per turn
    assert state.coins(0) == 1  # Forest, not Bakery


def test_radio_tower_keep() -> None:
    state = new(2, coins={0: 0, 1: 0}, cards={0: {"bakery": 1}}, landmarks={0: ["radio_tower"]})
    play(state, "dice:2", "keep")
    assert state.coins(0) == 1 and state.phase == "build"


def test_radio_tower_reroll_uses_the_same_number_of_dice() -> None:
    state = new(2, landmarks={0: ["train_station", "radio_tower"]})
    play(state, "roll:2", "dice:1+2", "reroll")
    assert len(state.legal_actions()) == 21


def test_radio_tower_second_roll_decides_the_amusement_park() -> None:
    lms = ["train_station", "amusement_park", "radio_tower"]
    state = new(2, coins={0: 0, 1: 0}, landmarks={0: lms})
    play(state, "roll:2", "dice:4+4", "reroll", "dice:1+2", "pass")
    assert state.turn == 1  # the doubles were re-rolled away
    state = new(2, coins={0: 0, 1: 0}, landmarks={0: lms})
    play(state, "roll:2", "dice:1+2", "reroll", "dice:4+4", "pass")
    assert state.turn == 0 and state.extra_turn
    play(state, "roll:2", "dice:1+2")
    assert state.phase == "radio_tower"  # once per turn: the extra turn has its own re-roll


# ----- ending -------------------------------------------------------------------------------------

THREE = ["train_station", "shopping_mall", "amusement_park"]


def test_kosmos_first_to_complete_wins_at_once() -> None:
    state = new(3, coins={0: 22, 1: 0, 2: 0}, landmarks={0: THREE}, ending="kosmos")
    play(state, "roll:2", "dice:5+5", "build:radio_tower")  # doubles: no extra turn either
    assert state.current_player() == TERMINAL and state.is_terminal()
    ranks = {r.seat: r.rank for r in state.result()}
    assert ranks == {0: 1, 1: 2, 2: 2}
    assert state.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        state.apply_action("pass")


def test_yucata_finisher_is_placed_and_leaves() -> None:
    state = new(
        3,
        coins={0: 22, 1: 10, 2: 0},
        cards={
            0: {"wheat_field": 1, "cafe": 3},
            1: {"wheat_field": 1},
            2: {"business_center": 1, "bakery": 1},
        },
        landmarks={0: THREE},
    )
    play(state, "roll:1", "dice:4", "build:radio_tower")
    assert state.is_out(0) and state.placing() == [0]
    assert state.turn == 1 and not state.is_terminal()
    play(state, "dice:1", "pass")  # the finished player's Wheat Field earns nothing
    assert all_coins(state) == [0, 11, 0]
    play(state, "dice:6")  # Business Center: no trade with the finished player
    assert set(state.legal_actions()) == {"trade:bakery:2:wheat_field", "notrade"}
    play(state, "notrade", "pass")
    play(state, "dice:3", "pass")  # player 2 rolls 3: the finished player's Cafés take nothing
    assert state.coins(0) == 0
    assert state.turn == 2  # turn order skips the finished player


def test_yucata_finished_player_is_not_a_stadium_or_tv_target() -> None:
    state = new(
        3, coins={0: 30, 1: 0, 2: 10}, cards={1: {"stadium": 1, "tv_station": 1}}, landmarks={0: THREE}
    )
    play(state, "roll:1", "dice:4", "build:radio_tower")
    assert state.coins(0) == 8
    play(state, "dice:6")  # Stadium and TV Station: only player 3 is still in the game
    assert all_coins(state) == [8, 7, 3]
    assert state.phase == "build"


def test_yucata_game_ends_when_one_player_is_left() -> None:
    state = new(3, coins={0: 22, 1: 22, 2: 0}, landmarks={0: THREE, 1: THREE})
    play(state, "roll:1", "dice:4", "build:radio_tower")
    play(state, "roll:1", "dice:4", "build:radio_tower")
    assert state.is_terminal()
    assert state.placing() == [0, 1, 2]
    assert {r.seat: r.rank for r in state.result()} == {0: 1, 1: 2, 2: 3}


def test_yucata_two_players_ends_with_the_first_finisher() -> None:
    state = new(2, coins={0: 22, 1: 0}, landmarks={0: THREE})
    play(state, "roll:1", "dice:4", "build:radio_tower")
    assert state.is_terminal()
    assert {r.seat: r.rank for r in state.result()} == {0: 1, 1: 2}
