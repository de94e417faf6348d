"""Bots that play through the engine contract only.

A bot is anything with ``choose(state, rng) -> action`` for the seat to move.
Stronger bots arrive behind the same interface; `make_bot` finds them by name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from ludothek.engine import CHANCE, State, sample_chance


class Bot(Protocol):
    name: str

    def choose(self, state: State, rng: random.Random) -> str:
        """The action this bot takes for the seat to move in ``state``."""
        ...


class RandomBot:
    """Picks uniformly among the legal actions: the baseline, and the benchmark's player."""

    name = "random"

    def choose(self, state: State, rng: random.Random) -> str:
        return rng.choice(state.legal_actions())


def _easy() -> Bot:
    from .greedy import EasyBot

    return EasyBot()


def _medium() -> Bot:
    from .greedy import MediumBot

    return MediumBot()


def _hard() -> Bot:
    from .ismcts import IsmctsBot

    return IsmctsBot()


#: The bots by their stable names (the lobby and the command line offer these).
BOTS: dict[str, Callable[[], Bot]] = {"random": RandomBot, "easy": _easy, "medium": _medium, "hard": _hard}


def make_bot(name: str = "random") -> Bot:
    try:
        return BOTS[name]()
    except KeyError:
        raise KeyError(f"unknown bot {name!r}; known: {', '.join(sorted(BOTS))}") from None


def play_to_end(
    state: State, bots: Sequence[Bot], rng: random.Random, max_actions: int = 1_000_000
) -> State:
    """Play ``state`` in place until it ends: chance by its probabilities, seats by their bots."""
    for _ in range(max_actions):
        player = state.current_player()
        if player < 0:
            if player != CHANCE:
                return state
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(bots[player].choose(state, rng))
    raise RuntimeError(f"{state.game.id}: no end within {max_actions} actions")
