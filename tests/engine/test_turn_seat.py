"""`State.turn_seat` (issue 29): whose turn a position belongs to, also at chance nodes, per game.

The portal hands a turn on by it (`ludothek.services.handover`): a chance step of the mover's own turn is
drawn at once, one of the next turn (or of nobody's) waits.  These tests pin where each game draws the line.
"""

from __future__ import annotations

import random

import pytest

from ludothek import engine as eng
from ludothek.engine import CHANCE, sample_chance
from ludothek.engine.registry import GAME_MODULES


def _resolve(state: eng.State, rng: random.Random) -> None:
    while state.current_player() == CHANCE:
        state.apply_action(sample_chance(state, rng))


@pytest.mark.parametrize("game_id", sorted(GAME_MODULES))
def test_turn_seat_is_the_seat_to_move_at_decisions_and_none_at_the_end(game_id: str) -> None:
    """At every decision the turn is the deciding seat's; chance nodes name a seat or nobody; over: None."""
    rng = random.Random(7)
    state = eng.load(game_id).new_state(2)
    seen_none = False
    for _ in range(3000):
        if state.is_terminal():
            break
        player = state.current_player()
        seat = state.turn_seat()
        if player == CHANCE:
            assert seat is None or 0 <= seat < state.num_players
            seen_none = seen_none or seat is None
            state.apply_action(sample_chance(state, rng))
        else:
            assert seat == player
            state.apply_action(rng.choice(state.legal_actions()))
    if state.is_terminal():
        assert state.turn_seat() is None
    assert seen_none, "no chance step waits for the next turn: nothing would ever be handed on"


def test_default_turn_seat_at_chance_is_the_last_actor() -> None:
    """A game without an override: a chance step belongs to the turn that caused it."""
    state = eng.load("machikoro").new_state(2)
    _resolve(state, random.Random(1))
    seat = state.current_player()
    state.apply_action("pass")
    # The engine's default, asked directly (Machi Koro overrides it for the next turn's roll).
    assert eng.State._turn_seat(state) == seat
    assert state.turn_seat() is None


def test_machikoro_a_build_ends_the_turn_and_dice_asked_for_are_the_players() -> None:
    state = eng.load("machikoro").new_state(2)
    rng = random.Random(3)
    _resolve(state, rng)
    seat = state.current_player()
    build = next(a for a in state.legal_actions() if a.startswith("build:"))
    state.apply_action(build)
    assert state.current_player() == CHANCE and state.turn_seat() is None  # the next player's roll waits
    # With a Train Station the player chooses the dice: those are their own.
    state = eng.load("machikoro").new_state(2)
    state.arrange(landmarks={0: ["train_station"]}, turn=0)
    seat = state.current_player()
    assert seat == 0 and state.turn_seat() == seat
    roll = next(a for a in state.legal_actions() if a.startswith("roll"))
    state.apply_action(roll)
    assert state.current_player() == CHANCE and state.turn_seat() == seat


def test_rolltheages_the_opening_roll_waits_and_rerolls_do_not() -> None:
    state = eng.load("rolltheages").new_state(2)
    rng = random.Random(5)
    assert state.current_player() == CHANCE and state.turn_seat() is None  # the start player's draw
    _resolve(state, rng)
    seat = state.current_player()
    reroll = next((a for a in state.legal_actions() if a.startswith("roll:")), None)
    if reroll is not None:
        state.apply_action(reroll)
        assert state.current_player() == CHANCE and state.turn_seat() == seat
    # Play the seat's turn out: the next opening roll belongs to nobody.
    for _ in range(200):
        if state.current_player() == CHANCE:
            if state.turn_seat() is None:
                break
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(state.legal_actions()[-1] if "done" not in state.legal_actions() else "done")
    assert state.current_player() == CHANCE and state.turn_seat() is None
