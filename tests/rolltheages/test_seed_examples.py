"""Every worked example of the Yucata rules page (seed 004), as a scenario with the dice set explicitly.

The seed's dice pictures did not survive in the stored text; where an example
needs faces it does not name in words, the faces below are the ones that fit
every sentence of the example (noted per test).
"""

from __future__ import annotations

from ludothek.games.rolltheages.components import GOOD_INDEX

from .helpers import new_game, roll, shape


def test_three_dice_roll_with_skull_then_goods() -> None:
    """Roll example + goods example: a skull stays locked, a die kept earlier may be rolled again.

    Reconstructed faces: first roll 3 food, 7 coins, 3 workers; keep the food
    die and re-roll two (1 good, 2 goods + skull); keep the skull (must) and the
    good, re-roll the food die kept in the first roll; third roll 3 workers.
    The result 1 good + 2 goods/skull gives 3 goods: wood, stone, pottery.
    """
    s = new_game(2)
    assert s.to_roll == 3  # 3 cities -> 3 dice
    roll(s, "F", "C", "W")
    assert s.phase == "reroll" and "roll:C+W" in s.legal_actions()
    s.apply_action("roll:C+W")
    roll(s, "G", "S")
    legal = s.legal_actions()
    assert not [a for a in legal if a.startswith("roll:") and "S" in a], "a skull die may not be re-rolled"
    assert "roll:F" in legal  # the die kept after the first roll may be rolled again
    s.apply_action("roll:F")
    roll(s, "W")
    # after the third roll the result is fixed: no choice left, collection happened
    assert s.rolls == 3
    assert s.boards[0].goods == [1, 1, 1, 0, 0]
    assert s.phase == "build" and s.workers == 3


def test_food_example_three_food_and_two_way_die_give_five() -> None:
    s = new_game(2)
    shape(s, 0, food=0)
    roll(s, "G", "F", "X")
    s.apply_action("done")
    assert s.legal_actions() == ["food:0", "food:1"]
    assert "collects 5 food" in s.describe("food:1")
    s.apply_action("food:1")
    assert s.boards[0].food == 5 - 3  # 5 collected, 3 cities fed


def test_feeding_three_cities_costs_three_food() -> None:
    s = new_game(2)
    shape(s, 0, food=7)
    roll(s, "G", "G", "G")
    s.apply_action("done")
    assert s.boards[0].food == 4 and s.boards[0].disasters == 0


def test_famine_example_five_cities_two_food() -> None:
    s = new_game(2)
    shape(s, 0, cities=5, food=2)
    roll(s, "G", "G", "G", "C", "C")
    s.apply_action("done")
    board = s.boards[0]
    assert board.food == 0
    assert board.disasters == 3


def test_drought_example_two_skulls_cost_two_points() -> None:
    s = new_game(2)
    roll(s, "S", "S", "F")
    s.apply_action("done")
    assert s.boards[0].disasters == 2
    assert any(e["type"] == "disaster" and e["disaster"] == "drought" for e in s.events)


def test_obelisk_example_later_completion_and_fourth_city() -> None:
    """Two two-way dice (one as food) plus 3 workers give 5 workers: 2 finish the Obelisk, 3 the 4th city."""
    s = new_game(2, start=2)  # player 2 completed the Obelisk first, earlier
    s.boards[1].monument_work["obelisk"] = 9
    s.boards[1].monument_points["obelisk"] = 6
    s.first["obelisk"] = 1
    s.active = 0
    s.start_player = 1
    s.to_roll = 3
    shape(s, 0, food=5)
    s.boards[0].monument_work["obelisk"] = 7
    roll(s, "X", "X", "W")
    s.apply_action("done")
    s.apply_action("food:1")
    assert s.workers == 5
    s.apply_action("work:obelisk:2")
    assert s.boards[0].monument_points["obelisk"] == 3
    assert s.first["obelisk"] == 1
    assert s.workers == 3
    s.apply_action("work:city:3")
    assert s.boards[0].cities == 4
    # the next turn of player 1 rolls 4 dice
    while not (s.active == 0 and s.phase == "roll"):
        acts = s.legal_actions()
        if s.phase == "roll":
            roll(s, *["F"] * s.to_roll)
        else:
            s.apply_action("done" if "done" in acts else acts[0])
    assert s.to_roll == 4


def test_agriculture_purchase_with_coins_metal_and_cloth() -> None:
    s = new_game(2)
    shape(s, 0, goods=[5, 3, 0, 1, 1], food=6)
    roll(s, "C", "F", "F")
    s.apply_action("done")
    assert s.coins == 7 and s.phase == "buy"  # nothing to build
    legal = [a for a in s.legal_actions() if a.startswith("buy:agriculture")]
    # metal + cloth (9), or all stone (12), or all wood (15); never part of a row
    assert sorted(legal) == ["buy:agriculture:cloth+metal", "buy:agriculture:stone", "buy:agriculture:wood"]
    s.apply_action("buy:agriculture:cloth+metal")
    board = s.boards[0]
    assert board.developments == ["agriculture"]
    assert board.goods[GOOD_INDEX["metal"]] == 0 and board.goods[GOOD_INDEX["cloth"]] == 0
    assert board.goods[GOOD_INDEX["stone"]] == 3 and board.goods[GOOD_INDEX["wood"]] == 5
    assert board.score() == 3


def test_discard_example_three_stone_five_wood() -> None:
    s = new_game(2)
    shape(s, 0, goods=[5, 3, 0, 0, 0], food=6)
    roll(s, "F", "F", "F")
    s.apply_action("done")
    s.apply_action("done")  # buy nothing
    assert s.phase == "discard"
    assert s.legal_actions() == ["discard:wood", "discard:stone"]
    s.apply_action("discard:wood")
    assert s.phase == "discard"
    s.apply_action("discard:wood")
    assert s.boards[0].goods == [3, 3, 0, 0, 0]
    assert s.active == 1  # the turn is over


def test_discard_example_alternatives() -> None:
    for first, second, left in (
        ("stone", "stone", [5, 1, 0, 0, 0]),
        ("stone", "wood", [4, 2, 0, 0, 0]),
    ):
        s = new_game(2)
        shape(s, 0, goods=[5, 3, 0, 0, 0], food=6)
        roll(s, "F", "F", "F")
        s.apply_action("done")
        s.apply_action("done")  # buy nothing
        s.apply_action(f"discard:{first}")
        s.apply_action(f"discard:{second}")
        assert s.boards[0].goods == left
