"""Scenario helpers: start a game, shape a player's sheet, and set the dice explicitly."""

from __future__ import annotations

from typing import Any

from ludothek.games.rolltheages import GAME
from ludothek.games.rolltheages.notation import dice_action
from ludothek.games.rolltheages.rules import RollState


def new_game(players: int = 2, start: int = 1, **options: str) -> RollState:
    """A game whose start player is player ``start`` (1-based), waiting for the first roll."""
    state = GAME.new_state(players, options)
    assert isinstance(state, RollState)
    if state.phase == "start":
        state.apply_action(f"start:{start}")
    return state


def shape(state: RollState, seat: int, **fields: Any) -> None:
    """Set fields of a seat's sheet before its roll (tests build positions this way)."""
    board = state.boards[seat]
    for name, value in fields.items():
        setattr(board, name, value)
    if state.phase == "roll" and state.active == seat and not state.dice:
        state.to_roll = board.cities
    state._legal = None


def roll(state: RollState, *faces: str) -> None:
    """Apply the chance outcome that sets the rolled dice to ``faces`` (e.g. ``roll(s, "F", "S")``)."""
    state.apply_action(dice_action(faces))


def finish_turn(state: RollState) -> None:
    """Pass every remaining decision of the active player with ``done`` / first discards."""
    seat = state.active
    while state.active == seat and state.current_player() >= 0:
        actions = state.legal_actions()
        state.apply_action("done" if "done" in actions else actions[0])


def play_quiet_turn(state: RollState) -> None:
    """A turn for the active player that changes as little as possible: food on every die, no skulls, nothing to build."""
    roll(state, *["F"] * state.to_roll)
    finish_turn(state)
