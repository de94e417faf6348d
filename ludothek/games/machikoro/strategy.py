"""Machi Koro knowledge for the bots: what a city is worth to its owner.

The value counts coins, what was paid for landmarks (a little more than
face value, since they win the game), and each establishment's expected
income over the turns a game usually has left.  Red cafés and the purple
towers are valued by what they take from others.
"""

from __future__ import annotations

import random

from ludothek.engine import State

from .cards import ESTABLISHMENTS, KIND_INDEX, LANDMARKS
from .rules import MachiKoroState

#: Turns of income an establishment is still expected to pay for.
HORIZON = 6.0
_ONE_DIE = {r: 1 / 6 for r in range(1, 7)}
_TWO_DICE = {s: (6 - abs(s - 7)) / 36 for s in range(2, 13)}
_ICON_KINDS = {icon: [e.index for e in ESTABLISHMENTS if e.icon == icon] for icon in {e.icon for e in ESTABLISHMENTS}}


def _p_roll(rolls: tuple[int, ...], two: bool) -> float:
    """Chance that one turn's roll hits ``rolls``; with the Train Station half the turns use two dice."""
    one = sum(_ONE_DIE.get(r, 0.0) for r in rolls)
    if not two:
        return one
    return 0.5 * one + 0.5 * sum(_TWO_DICE.get(r, 0.0) for r in rolls)


def income(state: MachiKoroState, seat: int) -> float:
    """Expected coins per round of turns that ``seat``'s establishments bring."""
    n = state.num_players
    cards = state._cards[seat]
    two = bool(state._built[seat] & LANDMARKS[0].bit)
    total = 0.0
    for e in ESTABLISHMENTS:
        count = cards[e.index]
        if not count:
            continue
        p = _p_roll(e.rolls, two)
        if e.colour == "blue":
            total += count * p * e.amount * n
        elif e.colour == "green":
            amount = e.amount
            if e.per_icon is not None:
                amount = e.amount * sum(cards[k] for k in _ICON_KINDS.get(e.per_icon, []))
            total += count * p * amount
        elif e.colour == "red":
            total += count * p * e.amount * (n - 1) * 0.8
        else:
            total += p * 4
    return total


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``, in coins."""
    assert isinstance(state, MachiKoroState)
    built = state._built[seat]
    landmarks = sum(m.cost * 1.3 + 4 for m in LANDMARKS if built & m.bit)
    return landmarks + state._coins[seat] + HORIZON * income(state, seat)


def turns_to_finish(state: MachiKoroState, seat: int) -> float:
    """A race estimate: rounds ``seat`` still needs to complete its landmarks.

    The coins still missing for the unbuilt landmarks, at the expected income
    per round (one build per turn, so at least one round per landmark left).
    """
    built = state._built[seat]
    left = [m.cost for m in LANDMARKS if not built & m.bit]
    if not left:
        return 0.0
    missing = max(0.0, sum(left) - state._coins[seat])
    return max(len(left), missing / max(income(state, seat), 0.5))


def search_evaluate(state: State, seat: int) -> float:
    """`hard`'s cut-off evaluation: the race to the last landmark, in rounds (fewer is better).

    Machi Koro is a race: what decides it is who finishes first, which the
    coin-valued `evaluate` only approximates.  A seat already out (finished
    in the Yucata ending) is far ahead.
    """
    assert isinstance(state, MachiKoroState)
    return -turns_to_finish(state, seat)


#: `hard`'s constants: leads are in rounds of the race (search_evaluate), finished games in landmarks.
SEARCH = {"scale": 1.5, "margin_scale": 1.0, "rollout_depth": 10, "exploration": 0.6, "margin": 0.15}


class CheeseRanchExpert:
    """A scripted version of the published Cheese Factory / Ranch plan, as a yardstick for `hard`.

    Buy Ranches, then Cheese Factories (3 coins per cow on a 7), the Train
    Station to roll two dice once a Cheese Factory stands, then the other
    landmarks as soon as they are affordable; otherwise save.  It is not
    offered in the lobby; the arena knows it as ``expert``.
    """

    name = "expert"

    def choose(self, state: State, rng: random.Random) -> str:
        assert isinstance(state, MachiKoroState)
        legal = state.legal_actions()
        seat = state.current_player()
        if "roll:2" in legal:
            return "roll:2" if state._cards[seat][KIND_INDEX["cheese_factory"]] else "roll:1"
        if "keep" in legal:
            return "keep"
        if any(a.startswith("trade:") for a in legal):
            return "notrade" if "notrade" in legal else legal[0]
        if not any(a.startswith("build:") for a in legal):
            return legal[0]
        cards = state._cards[seat]
        ranches = cards[KIND_INDEX["ranch"]]
        cheese = cards[KIND_INDEX["cheese_factory"]]
        wishes = []
        if ranches < 2:
            wishes.append("build:ranch")
        if cheese < 1:
            wishes.append("build:cheese_factory")
        wishes += ["build:train_station", "build:radio_tower", "build:amusement_park", "build:shopping_mall"]
        if cheese < 3:
            wishes.append("build:cheese_factory")
        if ranches < 6:
            wishes.append("build:ranch")
        for wish in wishes:
            if wish in legal:
                return wish
        return "pass" if "pass" in legal else legal[0]


#: Scripted opponents for the arena (not offered in the lobby).
SCRIPTED = {"expert": CheeseRanchExpert}
