"""The two options beyond Yucata: the solo game and the trade game."""

from __future__ import annotations

import pytest

from ludothek.engine import CHANCE, TERMINAL, IllegalAction
from ludothek.games.rolltheages.rules import RollState
from ludothek.games.rolltheages.text import render

from .helpers import new_game, play_quiet_turn, roll, shape


# ----- solo ------------------------------------------------------------------------------------
def test_solo_uses_every_monument_and_starts_with_a_roll() -> None:
    s = new_game(1, mode="solo")
    assert s.current_player() == CHANCE and s.phase == "roll"
    assert len(s.monuments) == 7


def test_solo_pestilence_hits_you_unless_medicine() -> None:
    s = new_game(1, mode="solo")
    shape(s, 0, food=9)
    roll(s, "S", "S", "S")
    s.apply_action("done")  # solo: skulls could be re-rolled, so rolling is a decision
    assert s.boards[0].disasters == 3
    m = new_game(1, mode="solo")
    shape(m, 0, food=9, developments=["medicine"])
    roll(m, "S", "S", "S")
    m.apply_action("done")
    assert m.boards[0].disasters == 0


def test_solo_religion_cancels_the_revolt() -> None:
    s = new_game(1, mode="solo")
    shape(s, 0, cities=5, food=9, developments=["religion"])
    roll(s, "S", "S", "S", "S", "S")
    s.apply_action("done")
    assert s.boards[0].goods == [2, 2, 2, 2, 2]
    plain = new_game(1, mode="solo")
    shape(plain, 0, cities=5, food=9)
    roll(plain, "S", "S", "S", "S", "S")
    plain.apply_action("done")
    assert plain.boards[0].goods == [0] * 5


def test_solo_skulls_may_be_rerolled() -> None:
    s = new_game(1, mode="solo")
    roll(s, "S", "F", "F")
    assert "roll:S" in s.legal_actions()
    assert s.view(0)["turn"]["dice"][2] == {"face": "S", "locked": False}
    normal = new_game(2)
    roll(normal, "S", "F", "F")
    assert "roll:S" not in normal.legal_actions()
    assert normal.view(0)["turn"]["dice"][2] == {"face": "S", "locked": True}


def test_solo_lasts_ten_rounds() -> None:
    s = new_game(1, mode="solo")
    for expected_round in range(1, 11):
        assert s.round == expected_round
        play_quiet_turn(s)
    assert s.current_player() == TERMINAL
    assert s.result()[0].rank == 1


# ----- trade -------------------------------------------------------------------------------------
def _trade_game() -> RollState:
    s = new_game(3, trade="on")
    s.boards[1].goods = [0, 2, 0, 0, 0]
    shape(s, 0, goods=[3, 0, 0, 0, 0], food=9)
    roll(s, "W", "F", "F")
    s.apply_action("done")
    return s


def test_trade_phase_comes_after_disasters_and_before_building() -> None:
    s = _trade_game()
    assert s.phase == "trade" and s.workers == 3
    assert s.legal_actions() == ["done", "offer:2", "offer:3"]
    s.apply_action("done")
    assert s.phase == "build"


def test_offer_accept_exchanges_goods_and_the_partner_answers() -> None:
    s = _trade_game()
    s.apply_action("offer:2")
    for action in ("give:wood", "give:wood", "give:wood", "ask:stone", "ask:stone"):
        s.apply_action(action)
    assert "give:wood" not in s.legal_actions()  # only 3 wood to give
    assert "ask:stone" not in s.legal_actions()  # player 2 has only 2 stone
    text = s.describe("propose")
    assert text == "Player 1 offers Player 2: 3 wood for 2 stone."
    s.apply_action("propose")
    assert s.current_player() == 1 and s.legal_actions() == ["accept", "decline"]
    view = s.view(2)
    assert view["trade"]["offer"] == {"from": 0, "to": 1, "give": {"wood": 3}, "ask": {"stone": 2}, "status": "proposed"}
    assert "Offer (offered) Player 1 → Player 2: 3 wood for 2 stone" in render(s, 2, "en")
    with pytest.raises(IllegalAction):
        s.apply_action("accept", seat=0)
    assert s.describe("accept") == "Player 2 accepts: Player 1 gives 3 wood for 2 stone."
    s.apply_action("accept", seat=1)
    assert s.boards[0].goods == [0, 2, 0, 0, 0]
    assert s.boards[1].goods == [3, 0, 0, 0, 0]
    assert s.current_player() == 0 and s.phase == "trade"
    assert s.view(None)["trade"]["this_turn"][0]["accepted"] is True


def test_declined_offer_changes_nothing_and_food_can_be_traded() -> None:
    s = _trade_game()
    before = [b.to_json() for b in s.boards]
    for action in ("offer:3", "give:food", "ask:food"):
        if action == "ask:food":
            assert action not in s.legal_actions()  # not the item you give
            continue
        s.apply_action(action)
    s.apply_action("cancel")
    s.apply_action("offer:2")
    s.apply_action("give:food")
    s.apply_action("ask:stone")
    s.apply_action("propose")
    s.apply_action("decline")
    assert [b.to_json() for b in s.boards] == before
    s.apply_action("offer:2")
    s.apply_action("give:food")
    s.apply_action("ask:stone")
    s.apply_action("propose")
    s.apply_action("accept")
    assert s.boards[0].food == before[0]["food"] - 1 and s.boards[1].food == before[1]["food"] + 1
    assert s.boards[0].goods[1] == 1


def test_trades_respect_row_capacity_and_the_food_track() -> None:
    s = new_game(2, trade="on")
    s.boards[1].goods = [8, 1, 0, 0, 0]  # wood row full
    s.boards[1].food = 15
    shape(s, 0, goods=[2, 1, 0, 0, 0], food=9)
    roll(s, "F", "F", "F")
    s.apply_action("done")
    s.apply_action("offer:2")
    legal = s.legal_actions()
    assert "give:wood" not in legal and "give:food" not in legal  # partner's wood row and food track are full
    assert "give:stone" in legal and "ask:wood" in legal


def test_no_trade_phase_without_the_option() -> None:
    s = new_game(3)
    shape(s, 0, goods=[3, 0, 0, 0, 0], food=9)
    roll(s, "W", "F", "F")
    s.apply_action("done")
    assert s.phase == "build"


def test_solo_also_ends_with_the_fifth_development() -> None:
    s = new_game(1, mode="solo")
    assert not [e for e in s.history() if e.action.startswith("start:")]
    shape(s, 0, food=9, developments=["irrigation", "caravans", "medicine", "quarrying"])
    roll(s, "C", "C", "C")
    s.apply_action("done")
    s.apply_action("buy:agriculture")
    assert s.current_player() == TERMINAL and s.round == 1


def test_trade_log_shows_the_draft_growing() -> None:
    s = _trade_game()
    s.apply_action("offer:2")
    assert s.describe("give:wood") == "Player 1 offers 1 more wood; draft for Player 2: 1 wood for nothing."
    s.apply_action("give:wood")
    assert s.describe("ask:stone", "de") == "Spieler 1 verlangt 1 Stein mehr; Entwurf an Spieler 2: 1 Holz gegen 1 Stein."
