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
    #: `hard`'s constants for this game (see `SearchSettings`); the module's ``SEARCH`` dict.
    search: SearchSettings = field(default_factory=lambda: SearchSettings())
    #: An evaluation for `hard`'s cut-off rollouts only (the module's ``search_evaluate``), where the one
    #: `medium` uses is too crude; None uses `evaluate`.
    search_evaluate: Evaluate | None = None
    #: How promising each legal action looks (the module's ``rank(state) -> {action: value}``, higher first):
    #: the order in which `hard`'s root widens, so that a large action space (Carpe Diem's placements) is
    #: searched best-looking first rather than in random order.  None: random order after the policy's move.
    rank: Callable[[State], Mapping[str, float]] | None = None
    #: Which random stream a chance event draws from when `hard` compares root actions on common random
    #: numbers (the module's ``luck_key(state) -> tuple of ints``, e.g. round, seat and roll number), so
    #: that the same roll meets the same dice even when the paths took a different number of chance
    #: events to get there.  None: the chance event's index within the iteration.
    luck_key: Callable[[State], tuple[int, ...]] | None = None
    #: How such a chance event is drawn from its stream (the module's ``luck_draw(state, rng) -> action``,
    #: with `sample_chance`'s distribution): die by die, so that rolling two dice instead of one still
    #: meets the same first die.  None: `sample_chance`.
    luck_draw: Callable[[State, random.Random], str] | None = None
    #: How many legal actions `easy` judges at most before it samples (the module's ``EASY_ACTIONS``); None:
    #: `EasyBot`'s own cap.  A game whose every decision is small and cheap to judge (Machi Koro: at most 20
    #: builds) sets it so that `easy` never overlooks the build that finishes its game (issue 29).
    easy_actions: int | None = None


@dataclass(frozen=True)
class SearchSettings:
    """A game's constants for the ISMCTS bot (`ludothek.bots.ismcts`).

    ``exploration`` weighs UCB's exploration term; ``rollout_depth`` is how many
    decisions a rollout plays before the evaluation cuts it off; ``scale``
    turns a lead in the evaluation's points into a probability of winning
    (logistic); ``margin`` is the share of a finished game's reward given by
    the score margin rather than by win/loss alone (it makes the search prefer
    a safe, large win, and keep fighting in a lost position); ``policy_share``
    is how often a rollout follows the fast policy rather than a random move.
    """

    exploration: float = 0.7
    rollout_depth: int = 12
    scale: float = 6.0
    margin: float = 0.2
    #: The logistic's scale for a finished game's score margin (None: ``scale``), when scores are not in
    #: the evaluation's units (Machi Koro scores landmarks, its evaluation counts coins).
    margin_scale: float | None = None
    #: With a par score, the score part of the reward is the seat's own score against the par rather than
    #: its margin over the others, in finished games and at the cut-off alike: for games where the aim is
    #: many points (Roll Through the Ages), so that the search does not end a won game early and cheaply.
    par: float | None = None
    #: Player counts whose reward is the lead even with a par (Roll Through the Ages' two-player game:
    #: its fitted evaluation counts the turns a seat still plays, so the lead no longer ends won games
    #: early, and wins more often than the par).
    lead_players: tuple[int, ...] = ()
    policy_share: float = 0.8
    #: Virtual visits (at a reward of 0.6 each) for the fast policy's move at the root: the search then
    #: needs that much evidence before it overrules a good greedy player (Carpe Diem's placements),
    #: which matters at small budgets and fades at large ones.  0: no prior.
    prior: int = 0
    #: Search the root in rounds with common random numbers (`ludothek.bots.ismcts`): each round deals one
    #: world and one stream of chance outcomes, and every root action still in the race plays one iteration
    #: in it, so two actions are compared on the same luck; sequential halving on the mean reward drops the
    #: worse half of the actions until one is left.  Below the root the tree is the usual one.  Off: plain ISMCTS.
    root_rounds: bool = False
    #: The iteration budget of the game's `hard` (`IsmctsBot` takes it unless told otherwise); the 2 s of CPU
    #: time stay the ceiling.  A game sets the budget its 400-game arena figures were measured at
    #: (`docs/bots.md`): the root's width in rounds grows with this budget, so a bot capped at 2,000 but
    #: stopped by the clock at 450 is not the bot that was measured at 200, and more iterations were not
    #: measurably stronger in any game (Machi Koro 8,000 against 2,000; Carpe Diem 400 against 100).
    iterations: int = 2000
    #: Score seats by their place rather than by win or loss, with 3 or more players (`placement_utility`):
    #: a finished game is worth the share of the other seats a seat finished ahead of (1 first, 0 last), and
    #: a cut-off position the mean of its chances to beat each other seat (the logistic of its lead over
    #: that seat), the same utility in expectation.  For games whose result places every seat and where
    #: playing on for second place is the game (Machi Koro's Yucata ending: a seat that can no longer win
    #: valued finishing second at 0 and passed on its last landmark for hundreds of turns, issue 29).
    #: The reward then shrinks a little per decision (`ismcts.PLACEMENT_DISCOUNT`): the same place sooner.
    #: Off, and always with two players (where the utility is the win anyway): win/loss (`State.returns`) and
    #: the lead over the best other seat.
    placement: bool = False


def placement_utility(state: State) -> list[float]:
    """Per seat of a finished game: the share of the other seats it placed ahead of (a tie counts half).

    1 for a sole winner, 0 for a sole last, (n - rank) / (n - 1) in between; with two players it equals
    `State.returns`.  Only `hard`'s search uses it (`SearchSettings.placement`); the arena still counts wins.
    """
    ranks = {r.seat: r.rank for r in state.result()}
    n = state.num_players
    if n == 1:
        return state.returns()
    return [sum(1.0 if ranks[s] < ranks[o] else 0.5 if ranks[s] == ranks[o] else 0.0
                for o in range(n) if o != s) / (n - 1) for s in range(n)]


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
                    int(getattr(module, "LOOKAHEAD", 0)), SearchSettings(**getattr(module, "SEARCH", {})),
                    getattr(module, "search_evaluate", None), getattr(module, "rank", None),
                    getattr(module, "luck_key", None), getattr(module, "luck_draw", None),
                    getattr(module, "EASY_ACTIONS", None))


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


def search_value(state: State, seat: int, strategy: Strategy) -> float:
    """Like `relative_value` for a position that is not over, with the search's own evaluation if any."""
    evaluate = strategy.search_evaluate or strategy.evaluate
    own = evaluate(state, seat)
    if state.num_players == 1:
        return own
    return own - max(evaluate(state, s) for s in range(state.num_players) if s != seat)


def terminal_margin(state: State, seat: int) -> float:
    """A finished game's score margin: ``seat``'s score minus the best other score (its score when alone)."""
    return _terminal_margin(state, seat)


def _terminal_margin(state: State, seat: int) -> float:
    scores = {r.seat: r.score for r in state.result()}
    if len(scores) == 1:
        return scores[seat]
    return scores[seat] - max(v for s, v in scores.items() if s != seat)
