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
    if all(type(bot) is RandomBot for bot in bots):
        return _random_playout(state, rng, max_actions)
    for _ in range(max_actions):
        player = state.current_player()
        if player < 0:
            if player != CHANCE:
                return state
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(bots[player].choose(state, rng))
    raise RuntimeError(f"{state.game.id}: no end within {max_actions} actions")


def _random_playout(state: State, rng: random.Random, max_actions: int) -> State:
    """`play_to_end` with a `RandomBot` in every seat: the playout of analysis and the bots' rollouts.

    The very same calls in the same order as the general loop (`sample_chance` is
    `State.sample_outcome`, `RandomBot.choose` is ``rng.choice(state.legal_actions())``), so the
    same seed plays the same game; only the method look-ups are made once instead of per action.
    """
    current_player = state.current_player
    legal_actions = state.legal_actions
    apply_action = state.apply_action
    sample_outcome = state.sample_outcome
    choice = rng.choice
    for _ in range(max_actions):
        player = current_player()
        if player < 0:
            if player != CHANCE:
                return state
            apply_action(sample_outcome(rng))
        else:
            apply_action(choice(legal_actions()))
    raise RuntimeError(f"{state.game.id}: no end within {max_actions} actions")
