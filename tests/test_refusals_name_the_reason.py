"""Issue 13: every refusal names the real reason, and names seats as the texts do (never counting from 0 and 1)."""

from __future__ import annotations

import pytest

from ludothek.engine import IllegalAction

from .carpediem.helpers import new_game as carpediem_game
from .machikoro.helpers import new as machikoro_game
from .machikoro.helpers import play
from .rolltheages.helpers import new_game as rtta_game
from .rolltheages.helpers import roll


def test_rtta_out_of_turn_names_the_seat_to_move() -> None:
    s = rtta_game(2, start=1)  # seat 0 is to move
    roll(s, "F", "F", "F")
    assert s.current_player() == 0
    with pytest.raises(IllegalAction) as exc:
        s.apply_action(s.legal_actions()[0], seat=1)
    assert "Player 1 is to move" in str(exc.value) and "seat 1" not in str(exc.value)
    with pytest.raises(IllegalAction, match=r"\(anna is to move\)"):
        s.apply_action(s.legal_actions()[0], seat=1, names=["anna", "bob"])


def _to_build(s) -> None:  # type: ignore[no-untyped-def]
    while s.phase != "build":
        s.apply_action("done" if "done" in s.legal_actions() else s.legal_actions()[0])


def test_rtta_temple_is_not_in_play_with_two_players() -> None:
    s = rtta_game(2, start=1)
    roll(s, "W", "W", "W")
    _to_build(s)
    before = s.snapshot()
    with pytest.raises(IllegalAction, match="the Temple is not in play with 2 players"):
        s.apply_action("work:temple:1")
    assert s.snapshot() == before


def test_rtta_buy_while_rolling_says_it_is_not_the_buying_phase() -> None:
    s = rtta_game(2, start=1)
    roll(s, "F", "F", "F")
    assert s.phase == "reroll"
    with pytest.raises(IllegalAction) as exc:
        s.apply_action("buy:leadership:1food")
    assert "not the buying phase" in str(exc.value) and "payment" not in str(exc.value)


def test_carpediem_first_tile_off_the_shovel_names_the_shovel() -> None:
    state = carpediem_game(2)  # seat 0 has board I: shovel c3
    tile = next(t for t in state.comp.tiles if state.comp.tiles[t].orientation(0) is not None)
    state.stage, state.actor, state.held = "build", 0, tile
    before = state.snapshot()
    with pytest.raises(IllegalAction, match="first tile of a district goes on the shovel cell c3"):
        state.apply_action("build:d4:0")
    assert state.snapshot() == before


def test_machikoro_beginners_rule_says_cards_in_the_plural() -> None:
    state = machikoro_game(2, coins={0: 10}, cards={0: {"wheat_field": 2}}, max_two="on")
    while state.phase != "build":
        play(state, state.legal_actions()[0])
    assert state.turn == 0
    with pytest.raises(IllegalAction) as exc:
        state.apply_action("build:wheat_field")
    text = str(exc.value)
    assert "you already have 2 Wheat Field cards" in text
    assert "2 Wheat Field " not in text.replace("2 Wheat Field cards", "")
