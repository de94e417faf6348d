"""What both adapters share: a game with its options, integer actions, truncation and terminal rewards.

Rewards (docs/research.md, "Rewards"): with two or more seats a seat gets
``((n + 1) / 2 - position) / ((n - 1) / 2)``, where ``position`` is its rank with ties sharing the
positions they cover (two seats tied first in a 3-player game both have position 1.5). The winner of
a clean game gets +1, the last -1, and the rewards of a game add up to 0. Alone (solo modes) the
reward is the final score, since there is nobody to rank against. A game cut off by the truncation
limit gives every seat 0 (it is neither won nor lost).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ludothek import engine
from ludothek.research.actions import ActionTable, load_table

#: Default truncation: actions (chance outcomes included) after which a game is cut off. Random play
#: ends all four games well within it (the longest of a few hundred random games took under 600).
DEFAULT_MAX_MOVES = 2000
#: The solo reward is the score; scores of all four games stay inside this bound.
SOLO_SCORE_BOUND = 1000.0


@dataclass(frozen=True)
class Variant:
    """One game with a player count and a complete option set (defaults filled in)."""

    game_id: str
    players: int
    options: dict[str, str]
    max_moves: int = DEFAULT_MAX_MOVES

    @property
    def game(self) -> engine.Game:
        return engine.load(self.game_id)

    @property
    def table(self) -> ActionTable:
        return load_table(self.game_id)

    def new_state(self) -> engine.State:
        return self.game.new_state(self.players, self.options)

    @property
    def min_reward(self) -> float:
        return -SOLO_SCORE_BOUND if self.players == 1 else -1.0

    @property
    def max_reward(self) -> float:
        return SOLO_SCORE_BOUND if self.players == 1 else 1.0


def variant(game_id: str, players: int | None = None, options: dict[str, Any] | None = None,
            max_moves: int = DEFAULT_MAX_MOVES) -> Variant:
    """A checked `Variant`: the engine refuses wrong options (`engine.InvalidOptions`)."""
    game = engine.load(game_id)
    n = players if players is not None else game.min_players if game.min_players > 1 else 2
    given = {k: str(v) for k, v in (options or {}).items()}
    full = {o.name: given.get(o.name, o.default) for o in game.options}
    game.new_state(n, full)  # raises InvalidOptions with the reason
    if max_moves < 1:
        raise ValueError("max_moves must be at least 1")
    return Variant(game_id, n, full, max_moves)


def terminal_rewards(state: engine.State, players: int) -> list[float]:
    """Each seat's reward at the end (see the module docstring)."""
    results = state.result()
    if players == 1:
        return [max(-SOLO_SCORE_BOUND, min(SOLO_SCORE_BOUND, float(results[0].score)))]
    ranks = [r.rank for r in sorted(results, key=lambda r: r.seat)]
    middle = (players + 1) / 2
    out = []
    for rank in ranks:
        tied = ranks.count(rank)
        position = rank + (tied - 1) / 2
        out.append((middle - position) / ((players - 1) / 2))
    return out


def legal_ids(state: engine.State, table: ActionTable) -> list[int]:
    """The seat to move's legal actions as sorted table indices."""
    return sorted(table.action_id(a) for a in state.legal_actions())


def chance_ids(state: engine.State, table: ActionTable) -> list[tuple[int, float]]:
    """The chance outcomes as sorted (index, probability) pairs."""
    return sorted((table.chance_id(a), p) for a, p in state.chance_outcomes())
