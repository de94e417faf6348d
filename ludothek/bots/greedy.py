"""The `easy` and `medium` bots: quick players built on a game's own strategy module.

Both look only at what their seat may see: before thinking they replace
everything hidden from the seat by a fresh deal (`determinize`), so the same
seed gives the same move whatever the hidden cards really are.
"""

from __future__ import annotations

import random

from ludothek.engine import CHANCE, State, sample_chance

from .strategy import Strategy, relative_value, strategy_for

#: Chance nodes with at most this many outcomes are averaged exactly by `medium`.
EXACT_OUTCOMES = 12


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A copy of ``state`` in which what ``seat`` cannot see is dealt afresh (a plain copy if nothing is hidden)."""
    other = state.resample_hidden(seat, rng)
    return other if other is not None else state.clone()


def settle(state: State, rng: random.Random) -> State:
    """Resolve chance nodes in place by their probabilities until a seat must decide (or the game ends)."""
    while state.current_player() == CHANCE:
        state.apply_action(sample_chance(state, rng))
    return state


def after(state: State, action: str, seat: int, strategy: Strategy, rng: random.Random, samples: int) -> float:
    """The value for ``seat`` of taking ``action`` in ``state``: chance averaged, exactly when it is small."""
    child = state.clone()
    child.apply_action(action)
    if strategy.lookahead:
        return sum(_played_on(child, seat, strategy, rng) for _ in range(samples)) / samples
    if child.current_player() != CHANCE:
        return relative_value(child, seat, strategy)
    outcomes = child.chance_outcomes()
    if len(outcomes) <= EXACT_OUTCOMES:
        total = 0.0
        for outcome, p in outcomes:
            grand = child.clone()
            grand.apply_action(outcome)
            total += p * relative_value(settle(grand, rng), seat, strategy)
        return total
    values = []
    for _ in range(samples):
        grand = settle(child.clone(), rng)
        values.append(relative_value(grand, seat, strategy))
    return sum(values) / len(values)


def _played_on(state: State, seat: int, strategy: Strategy, rng: random.Random) -> float:
    """``seat``'s value after ``strategy.lookahead`` random decisions on a copy of ``state``."""
    state = state.clone()
    for _ in range(strategy.lookahead):
        settle(state, rng)
        if state.current_player() < 0:
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return relative_value(settle(state, rng), seat, strategy)


class MediumBot:
    """Greedy one-ply: tries every legal action and keeps the one the game's evaluation likes best.

    Chance right after the action is averaged (exactly for dice, by ``samples``
    draws otherwise).  With more than ``max_actions`` choices it judges a random
    sample of them, plus the fast policy's choice.  Where the game has a fast
    policy, its choice gets ``trust`` points on top: a one-ply evaluation
    cannot see what a placement prepares, the policy's own judgement can.
    """

    name = "medium"
    #: Seconds a decision should take at most (the fallback allows five times this).
    budget = 0.2

    def __init__(self, max_actions: int = 80, samples: int = 4, trust: float = 3.0):
        self.max_actions = max_actions
        self.samples = samples
        self.trust = trust

    def choose(self, state: State, rng: random.Random) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player()
        strategy = strategy_for(state.game.id)
        det = determinize(state, seat, rng)
        hint = strategy.policy(det.clone(), rng) if strategy.policy is not None else None
        candidates = list(legal)
        if len(candidates) > self.max_actions:
            candidates = rng.sample(candidates, self.max_actions)
            if hint is not None and hint not in candidates:
                candidates.append(hint)
        best: tuple[float, float, str] | None = None
        for action in candidates:
            value = after(det, action, seat, strategy, rng, self.samples)
            if action == hint:
                value += self.trust
            key = (value, rng.random(), action)
            if best is None or key > best:
                best = key
        assert best is not None
        return best[2]


class EasyBot:
    """A fast heuristic: the game's own policy (or a one-sample greedy look), with a share of careless moves.

    ``mistakes`` is the share of decisions taken at random among the legal
    actions, so a beginner can beat it now and then.  Without a policy it
    judges at most ``max_actions`` of them (a random sample), or the game's
    `Strategy.easy_actions`.
    """

    name = "easy"
    budget = 0.02

    def __init__(self, mistakes: float = 0.12, max_actions: int = 12):
        self.mistakes = mistakes
        self.max_actions = max_actions

    def choose(self, state: State, rng: random.Random) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if rng.random() < self.mistakes:
            return rng.choice(legal)
        seat = state.current_player()
        strategy = strategy_for(state.game.id)
        det = determinize(state, seat, rng)
        if strategy.policy is not None:
            return strategy.policy(det, rng)
        # The sample is what makes `easy` careless as well as quick; a game may widen it to every action.
        width = strategy.easy_actions or self.max_actions
        candidates = legal if len(legal) <= width else rng.sample(legal, width)
        best: tuple[float, float, str] | None = None
        for action in candidates:
            child = det.clone()
            child.apply_action(action)
            key = (relative_value(settle(child, rng), seat, strategy), rng.random(), action)
            if best is None or key > best:
                best = key
        assert best is not None
        return best[2]
