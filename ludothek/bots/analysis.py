"""Game analysis (issue 32): for each decision of a finished game, each seat's chance to win before and after
it, the move `hard` would have chosen, and a mark where the decision cost much more than that move.

Method, per decision of seat ``s`` (forced decisions, with one legal action, are only evaluated):

* The bot's move is `IsmctsBot` (the `hard` bot) with an iteration budget and no clock, seeded from the
  analysis seed and the decision's index, so an analysis depends on its seed alone.
* Win chances come from ``playouts`` games played to the end from the position.  Each playout first deals
  afresh everything ``s`` could not see (`determinize`, i.e. the game's ``resample_hidden``), then plays the
  move, then plays on with the game's fast policy (as `hard`'s rollouts do), chance drawn by its
  probabilities.  The win chance of a seat is its mean `State.returns` (a tie shares the win), so the
  chances of all seats sum to 1.  Hidden information the deciding seat did not have is never read, and the
  dice that really followed are never looked at: the record is used only up to the decision.
* *before* is the estimate for the bot's move (the position's worth when played on well), *after* the
  estimate for the move really played.  Both use the same playout seeds (common random numbers: the same
  deal and the same luck streams), so their difference, the *loss* ``before[s] - after[s]``, is measured
  with far less noise than either chance.  When the move played is the bot's move, before equals after.
* Marks (`mark_for`): "?" (a mistake) when the loss is at least `MISTAKE` (15 points of win chance),
  "?!" (dubious) when it is at least `DUBIOUS` (7 points); in both cases only if the loss is also larger
  than `NOISE_SIGMAS` (3) standard errors of the paired differences, so that sampling noise is (almost)
  never marked: one-sided, a decision as good as the bot's move is marked by chance about once in 700.

The deciding seat's view is all the analysis reads: `analyse_decision` on two states that show that seat
the same view gives the identical answer (tests/bots/test_analysis.py proves it for Carpe Diem's hidden
cards).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ludothek.engine import CHANCE, UNDO, State, sample_chance
from ludothek.engine.records import initial_state, taken_back

from .greedy import determinize
from .ismcts import IsmctsBot
from .strategy import search_value, strategy_for

#: A loss of win chance (0..1) from this on is marked "?" (a mistake).
MISTAKE = 0.15
#: A loss from this on (and below `MISTAKE`) is marked "?!" (a dubious move).
DUBIOUS = 0.07
#: A loss is marked only when it exceeds this many standard errors of the paired playout differences.
NOISE_SIGMAS = 3.0
#: A playout that has not ended after this many decisions is scored by the game's evaluation instead.
PLAYOUT_CAP = 2000


@dataclass(frozen=True)
class Budget:
    """How much work one decision gets: the bot's search iterations and the playouts per move judged."""

    #: `hard`'s iterations per decision; None: the game's own `hard` budget (`SearchSettings.iterations`),
    #: so that the move shown is the move the `hard` people meet would play (seeds aside).
    search: int | None = None
    playouts: int = 256

    def __post_init__(self) -> None:
        if (self.search is not None and self.search < 1) or self.playouts < 2:
            raise ValueError("the budget needs at least 1 search iteration and 2 playouts")


@dataclass(frozen=True)
class DecisionAnalysis:
    """One decision: who decided what, what the bot would have done, and the win chances around it."""

    #: Index of the decision's entry in the record's ``actions``.
    index: int
    seat: int
    action: str
    #: The `hard` bot's move in that position.
    best: str
    #: Every seat's estimated chance to win before the decision (with the bot's move) and after it.
    before: list[float]
    after: list[float]
    #: ``before[seat] - after[seat]``: win chance the decision gave away against the bot's move.
    loss: float
    #: The standard error of ``loss`` (paired playouts).
    loss_error: float
    #: "?", "?!" or "" (see `mark_for`).
    mark: str
    #: Only one legal action: nothing was decided, the chances are shown for the graph.
    forced: bool

    @property
    def best_value(self) -> float:
        """The bot's move's estimated win chance for the deciding seat."""
        return self.before[self.seat]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["best_value"] = self.best_value
        return data


@dataclass
class GameAnalysis:
    """The analysis of one game record."""

    game: str
    rules_version: str
    players: int
    seed: int
    budget: Budget
    decisions: list[DecisionAnalysis] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules_version": self.rules_version,
            "players": self.players,
            "seed": self.seed,
            "budget": asdict(self.budget),
            "thresholds": {"mistake": MISTAKE, "dubious": DUBIOUS, "noise_sigmas": NOISE_SIGMAS},
            "decisions": [d.to_json() for d in self.decisions],
        }


def mark_for(loss: float, error: float) -> str:
    """"?" for a loss of at least `MISTAKE`, "?!" for one of at least `DUBIOUS`, "" otherwise or within noise."""
    if loss <= NOISE_SIGMAS * error:
        return ""
    if loss >= MISTAKE:
        return "?"
    if loss >= DUBIOUS:
        return "?!"
    return ""


def _logistic(x: float) -> float:
    if x < -60:
        return 0.0
    if x > 60:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def _cut_off(state: State) -> list[float]:
    """Win chances of a playout that did not end: the search's logistic of each lead, scaled to sum to 1."""
    strategy = strategy_for(state.game.id)
    leads = [_logistic(search_value(state, s, strategy) / strategy.search.scale) for s in range(state.num_players)]
    total = sum(leads)
    return [x / total for x in leads] if total > 0 else [1.0 / state.num_players] * state.num_players


def playout(state: State, action: str, seat: int, rng: random.Random) -> list[float]:
    """One playout: a fresh deal of what ``seat`` cannot see, ``action``, then the fast policy to the end."""
    strategy = strategy_for(state.game.id)
    det = determinize(state, seat, rng)
    det.apply_action(action)
    policy = strategy.policy
    share = strategy.search.policy_share
    decisions = 0
    while True:
        player = det.current_player()
        if player == CHANCE:
            det.apply_action(sample_chance(det, rng))
            continue
        if player < 0:
            return det.returns()
        if decisions >= PLAYOUT_CAP:
            return _cut_off(det)
        if policy is not None and rng.random() < share:
            det.apply_action(policy(det, rng))
        else:
            det.apply_action(rng.choice(det.legal_actions()))
        decisions += 1


def win_chances(state: State, action: str, seat: int, playouts: int, seed: str) -> list[list[float]]:
    """The returns of ``playouts`` playouts of ``action``, playout ``k`` seeded by ``seed`` and ``k`` only."""
    return [playout(state, action, seat, random.Random(f"{seed}:{k}")) for k in range(playouts)]


def _mean(rows: Sequence[Sequence[float]]) -> list[float]:
    return [statistics.fmean(column) for column in zip(*rows, strict=True)]


def analyse_decision(state: State, action: str, index: int = 0, seed: int = 0,
                     budget: Budget = Budget()) -> DecisionAnalysis:
    """Analyse ``action`` taken by the seat to move in ``state`` (which is left unchanged).

    Reads only what that seat sees (every playout and the bot re-deal the rest), so states that show it
    the same view give the same answer.
    """
    seat = state.current_player()
    if seat < 0:
        raise ValueError("no seat is to move in this position")
    legal = state.legal_actions()
    if action not in legal:
        raise ValueError(f"{action!r} is not a legal action in this position")
    stream = f"analysis:{seed}:{index}"
    if len(legal) == 1:
        chances = _mean(win_chances(state, action, seat, budget.playouts, stream))
        return DecisionAnalysis(index, seat, action, action, chances, list(chances), 0.0, 0.0, "", True)
    bot = IsmctsBot(seconds=None, iterations=budget.search)
    best = bot.choose(state, random.Random(f"{stream}:bot"))
    played = win_chances(state, action, seat, budget.playouts, stream)
    if best == action:
        after = _mean(played)
        return DecisionAnalysis(index, seat, action, best, after, list(after), 0.0, 0.0, "", False)
    ideal = win_chances(state, best, seat, budget.playouts, stream)
    before, after = _mean(ideal), _mean(played)
    diffs = [i[seat] - p[seat] for i, p in zip(ideal, played, strict=True)]
    loss = statistics.fmean(diffs)
    error = statistics.stdev(diffs) / math.sqrt(len(diffs))
    return DecisionAnalysis(index, seat, action, best, before, after, loss, error, mark_for(loss, error), False)


def in_force(actions: Sequence[Mapping[str, Any]]) -> list[int]:
    """Indices of the record's entries still in force: neither taken back nor an undo entry."""
    undone = taken_back(actions)
    return [i for i, e in enumerate(actions)
            if i not in undone and not (e.get("action") == UNDO and e.get("seat") != "chance")]


def analyse_record(record: Mapping[str, Any], seed: int = 0, budget: Budget = Budget(),
                   seats: Sequence[int] | None = None) -> GameAnalysis:
    """Analyse every decision in force of a game record (only those of ``seats`` when given).

    The record is replayed decision by decision; each decision is judged from the position before it
    (`analyse_decision`), so what happened after it, dice included, never enters its figures.
    """
    state = initial_state(record)
    actions = record["actions"]
    result = GameAnalysis(state.game.id, state.game.rules_version, state.num_players, seed, budget)
    for index in in_force(actions):
        entry = actions[index]
        if entry["seat"] != "chance" and (seats is None or entry["seat"] in seats):
            result.decisions.append(analyse_decision(state, entry["action"], index, seed, budget))
        state.apply_action(entry["action"])
    return result
