"""Setup per player count, options, the start player, and the phases of a turn."""

from __future__ import annotations

import pytest

from ludothek.engine import CHANCE, IllegalAction, InvalidOptions
from ludothek.games.rolltheages import GAME
from ludothek.games.rolltheages.notation import roll_outcomes

from .helpers import new_game, roll, shape


@pytest.mark.parametrize(
    ("players", "missing"),
    [(2, {"temple", "great_pyramid"}), (3, {"hanging_gardens"}), (4, set())],
)
def test_monuments_per_player_count(players: int, missing: set[str]) -> None:
    s = new_game(players)
    all_ids = {"step_pyramid", "stone_circle", "temple", "obelisk", "hanging_gardens", "great_wall", "great_pyramid"}
    assert set(s.monuments) == all_ids - missing
    assert all(set(b.monument_work) == set(s.monuments) for b in s.boards)


def test_start_of_game_each_player_three_cities_three_food_no_goods() -> None:
    s = GAME.new_state(3)
    assert s.current_player() == CHANCE
    assert s.chance_outcomes() == [("start:1", 1 / 3), ("start:2", 1 / 3), ("start:3", 1 / 3)]
    s.apply_action("start:3")
    assert s.start_player == 2 and s.active == 2  # type: ignore[attr-defined]
    for board in s.boards:  # type: ignore[attr-defined]
        assert (board.cities, board.food, board.goods, board.developments) == (3, 3, [0] * 5, [])


@pytest.mark.parametrize(
    ("players", "options"),
    [(1, {}), (5, {}), (2, {"mode": "solo"}), (1, {"mode": "solo", "trade": "on"}), (2, {"mode": "duel"})],
)
def test_invalid_setups(players: int, options: dict[str, str]) -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_state(players, options)


def test_valid_setups() -> None:
    assert GAME.min_players == 1 and GAME.max_players == 4
    GAME.new_state(1, {"mode": "solo"})
    for n in (2, 3, 4):
        GAME.new_state(n, {"trade": "on"})


def test_roll_outcomes_are_multisets_with_true_probabilities() -> None:
    assert len(roll_outcomes(1)) == 6
    assert len(roll_outcomes(3)) == 56
    assert len(roll_outcomes(7)) == 792
    for k in range(1, 8):
        assert abs(sum(p for _, p in roll_outcomes(k)) - 1) < 1e-12
    probs = dict(roll_outcomes(2))
    assert probs["dice:F+F"] == pytest.approx(1 / 36)
    assert probs["dice:G+F"] == pytest.approx(2 / 36)


def test_dice_must_be_written_in_canonical_order() -> None:
    s = new_game(2)
    with pytest.raises(IllegalAction, match="order G F S X C W"):
        s.apply_action("dice:W+F+S")
    with pytest.raises(IllegalAction):
        s.apply_action("dice:F+S")  # 3 dice are rolled


def test_at_most_three_rolls_and_kept_dice_may_be_rerolled() -> None:
    s = new_game(2)
    roll(s, "G", "F", "C")
    s.apply_action("roll:G")
    roll(s, "G")
    assert "roll:G+F+C" in s.legal_actions()
    s.apply_action("roll:G+F+C")
    roll(s, "W", "W", "W")
    assert s.rolls == 3 and s.phase == "build"  # no fourth roll


def test_all_skulls_end_rolling_at_once() -> None:
    s = new_game(2)
    roll(s, "S", "S", "S")
    assert s.phase not in ("reroll", "roll")
    assert s.boards[0].goods == [2, 1, 1, 1, 1]


def test_two_way_choice_is_its_own_decision() -> None:
    s = new_game(2)
    roll(s, "X", "X", "X")
    s.apply_action("done")
    assert s.legal_actions() == ["food:0", "food:1", "food:2", "food:3"]
    s.apply_action("food:1")
    assert s.workers == 4  # 2 dice as workers
    assert s.boards[0].food == 3 + 2 - 3


def test_goods_wrap_after_five_and_full_rows_lose_the_good() -> None:
    s = new_game(2)
    shape(s, 0, cities=4, goods=[0, 7, 0, 0, 0], food=6)
    roll(s, "S", "G", "G", "G")  # 5 goods
    s.apply_action("done")
    # wood, stone (full: lost), pottery, cloth, metal
    assert s.boards[0].goods == [1, 7, 1, 1, 1]
    s2 = new_game(2)
    shape(s2, 0, cities=4, food=6)
    roll(s2, "G", "G", "G", "G")
    s2.apply_action("done")
    assert s2.boards[0].goods == [1, 1, 1, 1, 0]
    s3 = new_game(2)
    shape(s3, 0, cities=7, food=9)
    roll(s3, "S", "S", "G", "G", "G", "G", "F")  # 8 goods, 2 skulls
    s3.apply_action("done")
    assert s3.boards[0].goods[:3] == [2, 2, 2] and s3.boards[0].goods[3:] == [1, 1]


def test_food_is_capped_at_fifteen() -> None:
    s = new_game(2)
    shape(s, 0, food=14)
    roll(s, "F", "F", "F")
    s.apply_action("done")
    assert s.boards[0].food == 15 - 3


def test_city_costs_and_building_in_order() -> None:
    s = new_game(2)
    shape(s, 0, food=9)
    roll(s, "W", "W", "W")
    s.apply_action("done")
    assert s.workers == 9
    assert "work:city:3" in s.legal_actions() and "work:city:4" not in s.legal_actions()
    s.apply_action("work:city:3")
    assert s.boards[0].cities == 4
    assert "work:city:4" in s.legal_actions()  # the 5th city needs 4 workers
    s.apply_action("work:city:4")
    assert s.boards[0].cities == 5
    s.apply_action("work:city:2")
    assert s.boards[0].city_work == 2  # 6th city: 2 of 5 marked
    assert s.phase != "build"  # no workers left


def test_seventh_city_is_the_last() -> None:
    s = new_game(2)
    shape(s, 0, cities=6, city_work=5, food=9)
    roll(s, "W", "W", "W", "F", "F", "F")
    s.apply_action("done")
    s.apply_action("work:city:1")
    assert s.boards[0].cities == 7
    assert not [a for a in s.legal_actions() if a.startswith("work:city")]


def test_unused_workers_and_coins_are_lost() -> None:
    s = new_game(2)
    shape(s, 0, food=6)
    roll(s, "W", "C", "F")
    s.apply_action("done")
    s.apply_action("work:step_pyramid:1")
    s.apply_action("done")
    assert s.active == 1 and s.workers == 0 and s.coins == 0


def test_monument_first_and_later_points() -> None:
    s = new_game(2)
    shape(s, 0, food=9)
    roll(s, "W", "F", "F")
    s.apply_action("done")
    s.apply_action("work:step_pyramid:3")
    assert s.boards[0].monument_points == {"step_pyramid": 1} and s.first == {"step_pyramid": 0}
    # player 2 completes it later: 0 points (Step Pyramid 1/0)
    shape(s, 1, food=9)
    roll(s, "W", "F", "F")
    s.apply_action("done")
    s.apply_action("work:step_pyramid:3")
    assert s.boards[1].monument_points == {"step_pyramid": 0}
    assert s.first == {"step_pyramid": 0}


def test_one_development_per_turn_and_each_only_once() -> None:
    s = new_game(2)
    shape(s, 0, cities=7, food=9, developments=["irrigation"])
    roll(s, "C", "C", "C", "C", "C", "C", "C")  # 49 coins
    s.apply_action("done")
    legal = s.legal_actions()
    assert "buy:irrigation" not in legal and "buy:architecture" not in legal
    s.apply_action("buy:engineering")
    assert s.active == 1  # buying ends the buy phase


def test_no_change_and_whole_rows_only() -> None:
    s = new_game(2)
    shape(s, 0, goods=[8, 0, 0, 0, 0], food=6)
    roll(s, "F", "F", "F")
    s.apply_action("done")
    # 8 wood are worth 36: enough for Medicine (15) but the whole row is spent
    s.apply_action("buy:medicine:wood")
    assert s.boards[0].goods[0] == 0
    with pytest.raises(IllegalAction):
        new = new_game(2)
        shape(new, 0, goods=[1, 0, 0, 0, 0], food=6)
        roll(new, "C", "C", "F")
        new.apply_action("done")
        new.apply_action("buy:leadership:wood")  # 14 coins already pay for Leadership
