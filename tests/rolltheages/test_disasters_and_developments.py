"""Each disaster and each development, with the dice set explicitly."""

from __future__ import annotations

from ludothek.games.rolltheages.rules import RollState

from .helpers import new_game, roll, shape


def _resolve(players: int, faces: tuple[str, ...], **sheet: object) -> RollState:
    s = new_game(players)
    shape(s, 0, cities=len(faces), food=9, **sheet)
    roll(s, *faces)
    if s.phase == "reroll":
        s.apply_action("done")
    return s


# ----- disasters -----------------------------------------------------------------------------
def test_one_skull_is_harmless() -> None:
    s = _resolve(2, ("S", "F", "F"))
    assert s.boards[0].disasters == 0


def test_drought_and_irrigation() -> None:
    assert _resolve(2, ("S", "S", "F")).boards[0].disasters == 2
    assert _resolve(2, ("S", "S", "F"), developments=["irrigation"]).boards[0].disasters == 0


def test_pestilence_hits_the_others_unless_medicine() -> None:
    s = new_game(3)
    s.boards[2].developments = ["medicine"]
    shape(s, 0, food=9)
    roll(s, "S", "S", "S")
    assert [b.disasters for b in s.boards] == [0, 3, 0]
    assert any(e["type"] == "disaster" and e["hit"] == [1] and e["spared"] == [2] for e in s.events)


def test_invasion_and_the_great_wall() -> None:
    s = _resolve(2, ("S", "S", "S", "S"))
    assert s.boards[0].disasters == 4
    walled = new_game(2)
    walled.boards[0].monument_work["great_wall"] = 13
    walled.boards[0].monument_points["great_wall"] = 10
    shape(walled, 0, cities=4, food=9)
    roll(walled, "S", "S", "S", "S")
    assert walled.boards[0].disasters == 0
    # an unfinished wall does not protect
    half = new_game(2)
    half.boards[0].monument_work["great_wall"] = 12
    shape(half, 0, cities=4, food=9)
    roll(half, "S", "S", "S", "S")
    assert half.boards[0].disasters == 4


def test_revolt_loses_all_goods_including_new_ones() -> None:
    s = _resolve(2, ("S", "S", "S", "S", "S"), goods=[2, 2, 0, 0, 0])
    assert s.boards[0].goods == [0, 0, 0, 0, 0]
    assert s.boards[0].disasters == 0


def test_revolt_with_religion_hits_the_others_without_religion() -> None:
    s = new_game(3)
    s.boards[1].goods = [3, 1, 0, 0, 0]
    s.boards[2].goods = [2, 0, 0, 0, 0]
    s.boards[2].developments = ["religion"]
    shape(s, 0, cities=6, food=9, developments=["religion"], goods=[1, 0, 0, 0, 0])
    roll(s, "S", "S", "S", "S", "S", "S")
    assert s.boards[1].goods == [0] * 5
    assert s.boards[2].goods == [2, 0, 0, 0, 0]
    assert s.boards[0].goods != [0] * 5  # the roller keeps the 12 goods collected (up to the row limits)


def test_only_the_worst_disaster_applies() -> None:
    s = _resolve(2, ("S", "S", "S", "S"))
    assert [e["disaster"] for e in s.events if e["type"] == "disaster"] == ["invasion"]


# ----- developments ----------------------------------------------------------------------------
def test_leadership_rerolls_one_die_after_the_last_roll() -> None:
    s = new_game(2)
    shape(s, 0, food=9, developments=["leadership"])
    roll(s, "S", "F", "C")
    s.apply_action("done")
    assert s.phase == "leader"
    assert s.legal_actions() == ["done", "lead:F", "lead:S", "lead:C"]
    s.apply_action("lead:S")  # a skull may be re-rolled with Leadership
    assert s.to_roll == 1
    roll(s, "G")
    assert s.active == 1  # nothing else to decide: the turn is over
    assert s.boards[0].goods == [1, 0, 0, 0, 0]
    assert s.boards[0].disasters == 0


def test_leadership_after_the_third_roll() -> None:
    s = new_game(2)
    shape(s, 0, food=9, developments=["leadership"])
    roll(s, "G", "F", "C")
    s.apply_action("roll:G")
    roll(s, "G")
    s.apply_action("roll:G")
    roll(s, "W")
    assert s.phase == "leader"
    s.apply_action("done")
    assert s.phase == "build"


def test_agriculture_adds_one_food_per_food_die() -> None:
    s = new_game(2)
    shape(s, 0, food=0, developments=["agriculture"])
    roll(s, "F", "X", "W")
    s.apply_action("done")
    s.apply_action("food:1")
    assert s.boards[0].food == 4 + 3 - 3  # 3+1 and 2+1, minus feeding


def test_masonry_adds_one_worker_per_worker_die() -> None:
    s = new_game(2)
    shape(s, 0, food=9, developments=["masonry"])
    roll(s, "W", "X", "F")
    s.apply_action("done")
    s.apply_action("food:0")
    assert s.workers == 4 + 3


def test_quarrying_adds_a_stone_when_stone_is_collected() -> None:
    s = _resolve(2, ("S", "F", "F"), developments=["quarrying"])
    assert s.boards[0].goods == [1, 2, 0, 0, 0]
    one = _resolve(2, ("G", "F", "F"), developments=["quarrying"])
    assert one.boards[0].goods == [1, 0, 0, 0, 0]


def test_medicine_protects_against_pestilence() -> None:
    s = new_game(2)
    s.boards[1].developments = ["medicine"]
    shape(s, 0, food=9)
    roll(s, "S", "S", "S")
    assert s.boards[1].disasters == 0


def test_coinage_makes_a_coin_die_worth_twelve() -> None:
    s = _resolve(2, ("C", "C", "F"), developments=["coinage"])
    assert s.coins == 24
    assert _resolve(2, ("C", "C", "F")).coins == 14


def test_caravans_lift_the_goods_limit() -> None:
    s = new_game(2)
    shape(s, 0, goods=[5, 3, 0, 0, 0], food=9, developments=["caravans"])
    roll(s, "F", "F", "F")
    s.apply_action("done")
    s.apply_action("done")  # buy nothing
    assert s.active == 1 and s.boards[0].goods == [5, 3, 0, 0, 0]


def test_granaries_sell_food_for_four_coins_each() -> None:
    s = new_game(2)
    shape(s, 0, food=12, developments=["granaries"])
    roll(s, "C", "F", "F")
    s.apply_action("done")
    # 7 coins + 12 food after feeding (the track stops at 15); Leadership (10) needs 1 food, Agriculture (15) 2
    legal = s.legal_actions()
    assert "buy:leadership:1food" in legal and "buy:agriculture:2food" in legal
    s.apply_action("buy:agriculture:2food")
    assert s.boards[0].food == 10


def test_engineering_turns_stone_into_three_workers() -> None:
    s = new_game(2)
    shape(s, 0, goods=[0, 3, 0, 0, 0], food=9, developments=["engineering"])
    roll(s, "F", "F", "F")
    s.apply_action("done")
    assert s.phase == "build" and s.workers == 0
    assert [a for a in s.legal_actions() if a.startswith("engineer")] == ["engineer:1", "engineer:2", "engineer:3"]
    s.apply_action("engineer:2")
    assert s.workers == 6 and s.boards[0].goods[1] == 1
    s.apply_action("work:obelisk:6")
    assert s.boards[0].monument_work["obelisk"] == 6


def test_architecture_and_empire_bonuses() -> None:
    s = new_game(2)
    board = s.boards[0]
    board.cities = 5
    board.monument_points = {"step_pyramid": 1, "obelisk": 3}
    board.developments = ["architecture", "empire"]
    assert board.score() == 8 + 8 + 1 + 3 + 2 + 5
    board.disasters = 4
    assert board.score() == 8 + 8 + 1 + 3 + 2 + 5 - 4


def test_religion_points_and_cost_are_the_2008_numbers() -> None:
    from ludothek.games.rolltheages.components import DEVELOPMENT_BY_ID

    table = {d: (x.cost, x.points) for d, x in DEVELOPMENT_BY_ID.items()}
    assert table == {
        "leadership": (10, 2),
        "irrigation": (10, 2),
        "agriculture": (15, 3),
        "quarrying": (15, 3),
        "medicine": (15, 3),
        "coinage": (20, 4),
        "caravans": (20, 4),
        "religion": (20, 6),
        "granaries": (30, 6),
        "masonry": (30, 6),
        "engineering": (40, 6),
        "architecture": (50, 8),
        "empire": (60, 8),
    }
