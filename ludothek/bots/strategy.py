"""Finding a game's own bot knowledge: ``ludothek/games/<id>/strategy.py``.

A strategy module defines ``evaluate(state, seat) -> float`` (how good the
position is for ``seat``, roughly in the game's points; higher is better) and
may define ``policy(state, rng) -> action`` (a quick, sensible move for the
seat to move).  A game without such a module still gets bots: the evaluation
then only knows final results, and the policy is random.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ludothek.engine import State
from ludothek.engine.registry import GAME_MODULES, load

Evaluate = Callable[[State, int], float]
Policy = Callable[[State, random.Random], str]


@dataclass(frozen=True)
class Strategy:
    """A game's evaluation and (optional) fast policy."""

    evaluate: Evaluate
    policy: Policy | None = None
    #: Scripted opponents the arena can name (e.g. Machi Koro's ``expert``); not offered in the lobby.
    scripted: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    #: Random decisions `medium` plays on before it evaluates: for games whose moves pay off only later
    #: (Snowdonia's workers act after everyone has placed).  0 evaluates right after the move.
    lookahead: int = 0


def _terminal_only(state: State, seat: int) -> float:
    """Without game knowledge: the final result once known, else nothing."""
    if state.is_terminal():
        return 100.0 * state.returns()[seat]
    return 0.0


GENERIC = Strategy(_terminal_only)


@cache
def strategy_for(game_id: str) -> Strategy:
    """The strategy of ``game_id``: its ``strategy`` module, or `GENERIC` if it has none."""
    package = GAME_MODULES.get(game_id) or type(load(game_id)).__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(f"{package}.strategy")
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.endswith(".strategy"):
            return GENERIC
        raise
    return Strategy(module.evaluate, getattr(module, "policy", None), dict(getattr(module, "SCRIPTED", {})),
                    int(getattr(module, "LOOKAHEAD", 0)))


def relative_value(state: State, seat: int, strategy: Strategy) -> float:
    """``seat``'s evaluation minus its best opponent's: a lead counts, not just points.

    A finished game counts far more than any evaluation: a win is worth 1,000.
    """
    if state.is_terminal():
        return 1000.0 * state.returns()[seat] + _terminal_margin(state, seat)
    own = strategy.evaluate(state, seat)
    if state.num_players == 1:
        return own
    best = max(strategy.evaluate(state, s) for s in range(state.num_players) if s != seat)
    return own - best


def _terminal_margin(state: State, seat: int) -> float:
    scores = {r.seat: r.score for r in state.result()}
    if len(scores) == 1:
        return scores[seat]
    return scores[seat] - max(v for s, v in scores.items() if s != seat)
