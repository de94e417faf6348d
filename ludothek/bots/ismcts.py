"""The `hard` bot: Information-Set Monte-Carlo Tree Search, for any game of the contract.

Each iteration deals what the bot's seat cannot see afresh (`determinize`, via
``resample_hidden``), so the tree is one over what the seat knows and the bot
never peeks.  The tree is open-loop: its nodes are sequences of decisions,
chance outcomes are drawn by their probabilities on the way down and never
become choices.  A child's statistics count how often it was *available*
(single-observer ISMCTS), since another deal may offer other actions.

Large action spaces (Carpe Diem placements, Snowdonia contract windows) are
handled by progressive widening: a node considers only its first
``widen * visits ** 0.5`` actions, in an order that puts the game's fast
policy's choice first.  Rollouts follow that policy (or random moves) for a
few decisions and are then cut off by the game's evaluation.
"""

from __future__ import annotations

import math
import random
import time

from ludothek.engine import CHANCE, State, sample_chance

from .greedy import determinize
from .strategy import Strategy, relative_value, strategy_for


class _Node:
    __slots__ = ("children", "order", "visits")

    def __init__(self) -> None:
        self.children: dict[str, _Child] = {}
        self.visits = 0
        #: Per action a random priority, drawn the first time the action is seen here.
        self.order: dict[str, float] = {}


class _Child:
    __slots__ = ("available", "node", "reward", "visits")

    def __init__(self) -> None:
        self.node = _Node()
        self.visits = 0
        self.reward = 0.0
        self.available = 0


class IsmctsBot:
    """ISMCTS with a time budget (seconds) and an iteration budget, whichever ends first.

    ``seconds=None`` makes the bot depend on the seed alone (tests); the
    default of 2 s is what a person waits for.
    """

    name = "hard"

    def __init__(self, seconds: float | None = 2.0, iterations: int = 2000, rollout_depth: int = 12,
                 exploration: float = 0.7, widen: float = 2.0, scale: float = 6.0):
        self.seconds = seconds
        self.iterations = iterations
        self.rollout_depth = rollout_depth
        self.exploration = exploration
        self.widen = widen
        self.scale = scale

    @property
    def budget(self) -> float:
        """The seconds a decision may take (for the fallback's 5× rule)."""
        return self.seconds if self.seconds is not None else 2.0

    def choose(self, state: State, rng: random.Random) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player()
        strategy = strategy_for(state.game.id)
        root = _Node()
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        for _ in range(self.iterations):
            self._iterate(determinize(state, seat, rng), root, strategy, rng)
            if deadline is not None and time.perf_counter() > deadline:
                break
        best = max(legal, key=lambda a: (root.children[a].visits, root.children[a].reward)
                   if a in root.children else (-1, 0.0))
        return best

    # ----- one iteration --------------------------------------------------------------
    def _iterate(self, det: State, root: _Node, strategy: Strategy, rng: random.Random) -> None:
        path: list[tuple[_Child, int]] = []
        node = root
        expanded = False
        while not expanded:
            player = det.current_player()
            if player == CHANCE:
                det.apply_action(sample_chance(det, rng))
                continue
            if player < 0:
                break
            legal = det.legal_actions()
            candidates = self._candidates(node, det, legal, strategy, rng)
            for a in candidates:
                child = node.children.get(a)
                if child is None:
                    child = node.children[a] = _Child()
                child.available += 1
            untried = [a for a in candidates if node.children[a].visits == 0]
            if untried:
                action = untried[0]
                expanded = True
            else:
                log_n = math.log(max(node.visits, 1))
                action = max(candidates, key=lambda a: self._ucb(node.children[a], log_n))
            chosen = node.children[action]
            path.append((chosen, player))
            node.visits += 1
            det.apply_action(action)
            node = chosen.node
        rewards = self._rollout(det, strategy, rng)
        for child, player in path:
            child.visits += 1
            child.reward += rewards[player]

    def _candidates(self, node: _Node, det: State, legal: list[str], strategy: Strategy,
                    rng: random.Random) -> list[str]:
        """The actions this node considers now: all, or the first few by priority (progressive widening)."""
        limit = max(1, int(self.widen * math.sqrt(node.visits + 1)))
        if len(legal) <= limit:
            return legal
        for a in legal:
            if a not in node.order:
                node.order[a] = rng.random()
        if not node.children and strategy.policy is not None:
            node.order[strategy.policy(det, rng)] = -1.0
        return sorted(legal, key=node.order.__getitem__)[:limit]

    def _ucb(self, child: _Child, log_n: float) -> float:
        mean = child.reward / child.visits
        return mean + self.exploration * math.sqrt(math.log(max(child.available, 1)) / child.visits + 1e-9 * log_n)

    def _rollout(self, det: State, strategy: Strategy, rng: random.Random) -> list[float]:
        """Play a few decisions by the fast policy, then score every seat between 0 and 1."""
        decisions = 0
        while decisions < self.rollout_depth:
            player = det.current_player()
            if player == CHANCE:
                det.apply_action(sample_chance(det, rng))
                continue
            if player < 0:
                break
            legal = det.legal_actions()
            if strategy.policy is not None and rng.random() < 0.8:
                action = strategy.policy(det, rng)
            else:
                action = rng.choice(legal)
            det.apply_action(action)
            decisions += 1
        if det.is_terminal():
            return det.returns()
        return [1.0 / (1.0 + math.exp(-relative_value(det, s, strategy) / self.scale))
                for s in range(det.num_players)]
