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

The budget is CPU time of the thinking thread (`time.thread_time`), so a busy
machine makes the bot slower but not weaker, and an iteration budget; the
search also stops early once the most visited root action can no longer be
overtaken in the iterations left.  Each game tunes the constants in its
strategy module (``SEARCH``, see `ludothek.bots.strategy.SearchSettings`).
"""

from __future__ import annotations

import math
import random
import time

from ludothek.engine import CHANCE, State, sample_chance

from .greedy import determinize
from .strategy import SearchSettings, Strategy, placement_utility, search_value, strategy_for, terminal_margin

#: How many iterations pass between two checks for early stopping (the clock is read after every
#: iteration: one Carpe Diem or Snowdonia iteration can take milliseconds, reading the clock a microsecond).
CHECK_EVERY = 8
#: With `SearchSettings.placement`, the reward is multiplied by this per decision since the root: of two
#: lines that reach the same place, the sooner counts more.  Without it a seat whose place is settled (Machi
#: Koro: second whatever it does) is indifferent between finishing and playing on, and plays on at random.
#: Small enough not to outweigh a real chance of a better place: 20 decisions cost 4 % of the reward.
PLACEMENT_DISCOUNT = 0.998
#: The reward each virtual visit of the policy's move counts (see `SearchSettings.prior`).
PRIOR_REWARD = 0.6


#: Streams per round seed: the world (0) and the policy with its tie-breaks (1); chance has its own (`_Luck`).
_STREAMS = 1 << 12


class _Luck:
    """The chance outcomes of one round, each chance event drawing from its own stream of the round's seed.

    The stream is the game's ``luck_key`` of the position (`Strategy.luck_key`, e.g. round, seat and roll
    number) or else the index of the chance event within the iteration; the game's ``luck_draw`` (die by
    die) or `sample_chance` draws from it.  Two root actions played in the
    same round therefore meet the same dice wherever their paths ask for the same roll, whatever else
    their policies drew.
    """

    __slots__ = ("count", "draw_from", "key", "seed")

    def __init__(self, seed: int, strategy: Strategy) -> None:
        self.seed = seed
        self.key = strategy.luck_key
        self.draw_from = strategy.luck_draw or sample_chance
        self.count = 0

    def draw(self, det: State) -> str:
        self.count += 1
        key = self.key(det) if self.key is not None else (self.count,)
        return self.draw_from(det, random.Random(hash((self.seed, *key))))


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


def _logistic(x: float) -> float:
    if x < -60:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


class IsmctsBot:
    """ISMCTS with a CPU-time budget (seconds) and an iteration budget, whichever ends first.

    ``seconds=None`` makes the bot depend on the seed alone (tests); the
    default of 2 s is what a person waits for.  The search constants left at
    ``None`` come from the game's strategy module (`SearchSettings`), the
    iteration budget too: each game caps `hard` at the budget its arena figures
    were measured at, so the bot people meet is the bot that was measured.
    """

    name = "hard"

    def __init__(self, seconds: float | None = 2.0, iterations: int | None = None, rollout_depth: int | None = None,
                 exploration: float | None = None, widen: float = 2.0, scale: float | None = None,
                 margin: float | None = None, early_stop: bool = True, root_rounds: bool | None = None):
        self.seconds = seconds
        self.iterations = iterations
        self.rollout_depth = rollout_depth
        self.exploration = exploration
        self.widen = widen
        self.scale = scale
        self.margin = margin
        self.early_stop = early_stop
        self.root_rounds = root_rounds
        #: Iterations the last decision ran (for benchmarks and tests).
        self.last_iterations = 0

    @property
    def budget(self) -> float:
        """The seconds a decision may take (for the fallback's 5× rule)."""
        return self.seconds if self.seconds is not None else 2.0

    def settings(self, strategy: Strategy) -> SearchSettings:
        """The game's search constants, with this bot's explicit choices on top."""
        base = strategy.search
        return SearchSettings(
            exploration=base.exploration if self.exploration is None else self.exploration,
            rollout_depth=base.rollout_depth if self.rollout_depth is None else self.rollout_depth,
            scale=base.scale if self.scale is None else self.scale,
            margin=base.margin if self.margin is None else self.margin,
            margin_scale=base.margin_scale,
            par=base.par,
            lead_players=base.lead_players,
            policy_share=base.policy_share,
            prior=base.prior,
            root_rounds=base.root_rounds if self.root_rounds is None else self.root_rounds,
            iterations=base.iterations if self.iterations is None else self.iterations,
            placement=base.placement,
        )

    def choose(self, state: State, rng: random.Random) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player()
        strategy = strategy_for(state.game.id)
        settings = self.settings(strategy)
        root = _Node()
        start = time.thread_time()
        if settings.root_rounds:
            return self._choose_in_rounds(state, legal, seat, strategy, settings, rng, start)
        if settings.prior and strategy.policy is not None:
            # The policy sees a fresh deal too, never the real hidden information.
            hint = strategy.policy(determinize(state, seat, rng), rng)
            if hint in legal:
                child = root.children[hint] = _Child()
                child.visits = child.available = settings.prior
                child.reward = PRIOR_REWARD * settings.prior
                root.order[hint] = -math.inf  # and it comes first when the root widens
        if strategy.rank is not None:
            # The root widens best-looking first (a fresh deal again: the ranking may read the position).
            ranked = strategy.rank(determinize(state, seat, rng))
            for a in legal:
                root.order.setdefault(a, -ranked.get(a, -1e9))
        deadline = None if self.seconds is None else start + self.seconds
        done = 0
        while done < settings.iterations:
            self._iterate(determinize(state, seat, rng), root, strategy, settings, rng)
            done += 1
            now = time.thread_time() if deadline is not None else 0.0
            if deadline is not None and now > deadline:
                break
            if self.early_stop and not done % CHECK_EVERY:
                left = settings.iterations - done
                if deadline is not None:  # the iterations the clock still allows, at the rate so far
                    left = min(left, int((deadline - now) * done / max(now - start, 1e-9)) + 1)
                if self._decided(root, legal, left):
                    break
        self.last_iterations = done
        return max(legal, key=lambda a: (root.children[a].visits, root.children[a].reward)
                   if a in root.children else (-1, 0.0))

    # ----- the root in rounds (common random numbers) -------------------------------------
    def _choose_in_rounds(self, state: State, legal: list[str], seat: int, strategy: Strategy,
                          settings: SearchSettings, rng: random.Random, start: float) -> str:
        """Sequential halving over the root actions, every survivor playing each round's world and dice.

        The root actions are taken in the order the plain search widens in (the policy's move, then the
        game's ranking, then random), at most ``widen * iterations ** 0.5`` of them.  The iteration budget
        (or what the clock still allows, at the rate so far) is split over ``ceil(log2(n))`` phases; in each
        phase every action still in the race plays the same rounds, and the worse half (by mean reward, the
        policy's move winning ties and, with a prior, kept until the last phase) drops out.  A round is one
        seed: the world (`determinize`), the rollout policy's stream and the chance events' streams
        (`_Luck`) all come from it, so the actions meet the same luck as far as their paths allow.
        """
        root = _Node()
        hint = None
        if strategy.policy is not None:
            hint = strategy.policy(determinize(state, seat, rng), rng)
        ranked = strategy.rank(determinize(state, seat, rng)) if strategy.rank is not None else {}
        order = {a: (a != hint, -ranked.get(a, -1e9), rng.random()) for a in legal}
        limit = max(2, int(self.widen * math.sqrt(settings.iterations)))
        alive = sorted(legal, key=order.__getitem__)[:limit]
        protected = hint if settings.prior and hint in alive else None
        totals = dict.fromkeys(alive, 0.0)
        deadline = None if self.seconds is None else start + self.seconds
        left = settings.iterations
        done = 0
        while len(alive) > 1 and left >= len(alive):
            phases = max(1, math.ceil(math.log2(len(alive))))
            rounds = 0
            out_of_time = False
            while True:  # at least one round; then while this phase's share of the budget left allows
                seed = rng.getrandbits(52)
                for a in alive:
                    det = determinize(state, seat, random.Random(seed * _STREAMS))
                    totals[a] += self._iterate(det, root, strategy, settings, random.Random(seed * _STREAMS + 1),
                                               first=a, luck=_Luck(seed, strategy))[seat]
                done += len(alive)
                left -= len(alive)
                rounds += 1
                if deadline is not None:  # the iterations the clock still allows, at the rate so far
                    now = time.thread_time()
                    if now > deadline:
                        out_of_time = True
                        break
                    left = min(left, int((deadline - now) * done / max(now - start, 1e-9)))
                if (rounds + 1) * len(alive) * phases > left + rounds * len(alive):
                    break
            ranking = sorted(alive, key=lambda a: (-totals[a], order[a]))
            if out_of_time:
                alive = ranking[:1]
                break
            keep = max(1, math.ceil(len(alive) / 2))
            survivors = ranking[:keep]
            if protected is not None and protected not in survivors and keep > 1:
                survivors[-1] = protected
            alive = sorted(survivors, key=order.__getitem__)
        self.last_iterations = done
        return min(alive, key=lambda a: (-totals[a], order[a]))

    @staticmethod
    def _decided(root: _Node, legal: list[str], left: int) -> bool:
        """Whether the most visited root action stays most visited whatever ``left`` more iterations do."""
        visits = sorted((root.children[a].visits for a in legal if a in root.children), reverse=True)
        if len(visits) < 2:
            return False
        return visits[0] - visits[1] > left

    # ----- one iteration --------------------------------------------------------------
    def _iterate(self, det: State, root: _Node, strategy: Strategy, settings: SearchSettings,
                 rng: random.Random, first: str | None = None, luck: _Luck | None = None) -> list[float]:
        """One iteration from ``root`` in ``det``; ``first`` forces the root action, ``luck`` draws chance."""
        path: list[tuple[_Child, int]] = []
        node = root
        expanded = False
        while not expanded:
            player = det.current_player()
            if player == CHANCE:
                det.apply_action(luck.draw(det) if luck is not None else sample_chance(det, rng))
                continue
            if player < 0:
                break
            legal = det.legal_actions()
            if first is not None:
                candidates = [first]
                first = None
            else:
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
                c = settings.exploration
                children = node.children
                action = max(candidates, key=lambda a: self._ucb(children[a], c))
            chosen = node.children[action]
            path.append((chosen, player))
            node.visits += 1
            det.apply_action(action)
            node = chosen.node
        rewards = self._rollout(det, strategy, settings, rng, luck, len(path))
        for child, player in path:
            child.visits += 1
            child.reward += rewards[player]
        return rewards

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

    @staticmethod
    def _ucb(child: _Child, exploration: float) -> float:
        return child.reward / child.visits + exploration * math.sqrt(math.log(max(child.available, 1)) / child.visits)

    def _rollout(self, det: State, strategy: Strategy, settings: SearchSettings,
                 rng: random.Random, luck: _Luck | None = None, depth: int = 0) -> list[float]:
        """Play a few decisions by the fast policy, then score every seat between 0 and 1.

        ``depth`` is the number of decisions the tree played before (for `PLACEMENT_DISCOUNT`).
        """
        rewards, played = self._score(det, strategy, settings, rng, luck)
        if settings.placement and det.num_players > 2:
            factor = PLACEMENT_DISCOUNT ** (depth + played)
            return [factor * r for r in rewards]
        return rewards

    def _score(self, det: State, strategy: Strategy, settings: SearchSettings,
               rng: random.Random, luck: _Luck | None) -> tuple[list[float], int]:
        """`_rollout` without the discount: the rewards, and how many decisions the rollout played."""
        decisions = 0
        policy = strategy.policy
        share = settings.policy_share
        while decisions < settings.rollout_depth:
            player = det.current_player()
            if player == CHANCE:
                det.apply_action(luck.draw(det) if luck is not None else sample_chance(det, rng))
                continue
            if player < 0:
                break
            if policy is not None and rng.random() < share:
                action = policy(det, rng)
            else:
                action = rng.choice(det.legal_actions())
            det.apply_action(action)
            decisions += 1
        seats = range(det.num_players)
        m = settings.margin
        mscale = settings.margin_scale or settings.scale
        par = None if det.num_players in settings.lead_players else settings.par
        placed = settings.placement and det.num_players > 2
        if det.is_terminal():
            returns = placement_utility(det) if placed else det.returns()
            if det.num_players == 1:  # alone, only the score says how well it went
                m = 1.0
            if not m:
                return returns, decisions
            if par is not None:
                scores = {r.seat: r.score for r in det.result()}
                return [(1 - m) * returns[s] + m * _logistic((scores[s] - par) / mscale) for s in seats], decisions
            return [(1 - m) * returns[s] + m * _logistic(terminal_margin(det, s) / mscale)
                    for s in seats], decisions
        if placed:
            leads = self._placement_leads(det, strategy, settings)
        else:
            leads = [_logistic(search_value(det, s, strategy) / settings.scale) for s in seats]
        if par is None or not m:
            return leads, decisions
        evaluate = strategy.search_evaluate or strategy.evaluate
        return [(1 - m) * leads[s] + m * _logistic((evaluate(det, s) - par) / mscale) for s in seats], decisions

    @staticmethod
    def _placement_leads(det: State, strategy: Strategy, settings: SearchSettings) -> list[float]:
        """A cut-off position's expected `placement_utility`: per seat, its mean chance to beat each other seat.

        The chance to beat one seat is the logistic of the lead over it, as `search_value` does against the
        best other seat; the share of seats beaten, in expectation, is the mean of these chances.
        """
        evaluate = strategy.search_evaluate or strategy.evaluate
        values = [evaluate(det, s) for s in range(det.num_players)]
        n = len(values)
        return [sum(_logistic((values[s] - values[o]) / settings.scale) for o in range(n) if o != s) / (n - 1)
                for s in range(n)]
