"""Scenario helpers: arrange a position, then play explicit actions (dice included)."""

from __future__ import annotations

from ludothek.engine import load
from ludothek.games.machikoro.rules import MachiKoroState


def new(
    players: int = 2,
    *,
    coins: dict[int, int] | None = None,
    cards: dict[int, dict[str, int]] | None = None,
    landmarks: dict[int, list[str]] | None = None,
    turn: int = 0,
    **options: str,
) -> MachiKoroState:
    """A fresh game with the given position at the start of ``turn``'s turn."""
    state = load("machikoro").new_state(players, options)
    assert isinstance(state, MachiKoroState)
    return state.arrange(coins=coins, cards=cards, landmarks=landmarks, turn=turn)


def play(state: MachiKoroState, *actions: str) -> MachiKoroState:
    for action in actions:
        state.apply_action(action)
    return state


def all_coins(state: MachiKoroState) -> list[int]:
    return [state.coins(p) for p in range(state.num_players)]
