"""Findings of the independent rules audit, each as a scenario with the dice set explicitly.

The audit checked every rule and number of the seed and the 2008 tables
against the implementation; the rules themselves held.  These tests pin the
places where what a player is *shown* (view, log) disagreed with what the
rules allow or did, plus a few edge cases of the rules the other tests leave
implicit.
"""

from __future__ import annotations

from ludothek.games.rolltheages.text import render

from .helpers import new_game, roll, shape


# ----- findings --------------------------------------------------------------------------------
def test_leadership_phase_does_not_show_a_skull_as_locked() -> None:
    """Leadership may re-roll any die, a skull included (ruling 4): the view must not call it locked then."""
    s = new_game(2)
    shape(s, 0, food=9, developments=["leadership"])
    roll(s, "F", "S", "S")
    assert [d["locked"] for d in s.view(0)["turn"]["dice"]] == [False, True, True]  # re-roll phase: locked
    s.apply_action("done")
    assert s.phase == "leader" and "lead:S" in s.legal_actions()
    assert [d["locked"] for d in s.view(0)["turn"]["dice"]] == [False, False, False]
    assert "locked" not in render(s, 0, "en")


def test_goods_log_counts_lost_goods_and_the_quarrying_stone_apart() -> None:
    """7 goods with a full wood row: 2 wood are lost, and Quarrying adds a stone on top.

    The log used to net the bonus stone against the losses ("1 lost").
    """
    s = new_game(2)
    shape(s, 0, cities=4, food=9, goods=[8, 0, 0, 0, 0], developments=["quarrying", "caravans"])
    roll(s, "G", "S", "S", "S")
    text = s.describe("done", "en")
    s.apply_action("done")
    assert s.boards[0].goods == [8, 3, 1, 1, 1]  # stone twice from the wrap, +1 from Quarrying
    assert "2 lost, row full" in text
    assert "Quarrying" in text


def test_goods_log_reports_a_loss_hidden_by_the_quarrying_stone() -> None:
    """3 goods, full wood row: 1 wood lost, 2 stone (1 + Quarrying), 1 pottery; the loss must be told."""
    s = new_game(2)
    shape(s, 0, food=9, goods=[8, 0, 0, 0, 0], developments=["quarrying"])
    roll(s, "G", "F", "S")
    en = s.describe("done", "en")
    de = s.describe("done", "de")
    assert "1 lost, row full" in en and "Quarrying" in en
    assert "1 verfallen" in de and "Steinbruch" in de


# ----- edge cases of the rules (held) ---------------------------------------------------------
def test_quarrying_gives_one_stone_per_turn_even_when_stone_is_collected_twice() -> None:
    s = new_game(2)
    shape(s, 0, cities=4, food=9, developments=["quarrying", "caravans"])
    roll(s, "G", "S", "S", "S")
    s.apply_action("done")
    assert s.boards[0].goods == [2, 3, 1, 1, 1]  # 7 goods: stone twice, the bonus once


def test_quarrying_bonus_needs_room_in_the_stone_row() -> None:
    s = new_game(2)
    shape(s, 0, food=9, goods=[0, 6, 0, 0, 0], developments=["quarrying"])
    roll(s, "F", "F", "S")
    s.apply_action("done")
    assert s.boards[0].goods == [1, 7, 0, 0, 0]


def test_great_wall_built_this_turn_does_not_stop_this_turns_invasion() -> None:
    """Disasters (3d) come before building (4)."""
    s = new_game(2)
    shape(s, 0, cities=7, food=15)
    s.boards[0].monument_work["great_wall"] = 12
    roll(s, "S", "S", "S", "S", "W", "W", "W")
    s.apply_action("done")
    assert s.boards[0].disasters == 4
    s.apply_action("work:great_wall:1")
    assert s.boards[0].monument_points["great_wall"] == 10


def test_seven_skulls_are_a_revolt_only() -> None:
    s = new_game(2)
    shape(s, 0, cities=7, food=15, goods=[1, 1, 1, 1, 1])
    roll(s, "S", "S", "S", "S", "S", "S", "S")
    assert s.boards[0].goods == [0] * 5 and s.boards[0].disasters == 0


def test_pestilence_in_four_player_game_hits_each_other_player_without_medicine() -> None:
    s = new_game(4)
    s.boards[2].developments = ["medicine"]
    shape(s, 0, food=9, developments=["medicine"])
    roll(s, "S", "S", "S")
    assert [b.disasters for b in s.boards] == [0, 3, 0, 3]


def test_famine_and_drought_add_up_in_one_turn() -> None:
    s = new_game(2)
    shape(s, 0, cities=4, food=0)
    roll(s, "G", "G", "S", "S")
    s.apply_action("done")
    assert s.boards[0].disasters == 4 + 2


def test_granaries_food_after_feeding_only() -> None:
    """Food sold with Granaries is what is left after feeding: 4 food - 3 cities = 1 food = 4 coins."""
    s = new_game(2)
    shape(s, 0, food=4, developments=["granaries"])
    roll(s, "C", "G", "G")
    s.apply_action("done")
    assert s.boards[0].food == 1
    buys = [a for a in s.legal_actions() if a.startswith("buy:")]
    assert "buy:leadership:1food" in buys  # 7 + 4 >= 10
    assert not any(a.startswith("buy:agriculture") for a in buys)  # 7 + 4 + wood 3 = 14 < 15
