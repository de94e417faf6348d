"""Machi Koro knowledge for the bots: what a city is worth to its owner.

The value counts coins, what was paid for landmarks (a little more than
face value, since they win the game), and each establishment's expected
income over the turns a game usually has left.  Red cafés and the purple
towers are valued by what they take from others.
"""

from __future__ import annotations

import random

from ludothek.engine import State

from .cards import ESTABLISHMENTS, KIND_INDEX, LANDMARKS, TRAIN_STATION
from .rules import MachiKoroState

#: Turns of income an establishment is still expected to pay for.
HORIZON = 6.0
_ONE_DIE = {r: 1 / 6 for r in range(1, 7)}
_TWO_DICE = {s: (6 - abs(s - 7)) / 36 for s in range(2, 13)}
_ICON_KINDS = {icon: [e.index for e in ESTABLISHMENTS if e.icon == icon] for icon in {e.icon for e in ESTABLISHMENTS}}


def _p_roll(rolls: tuple[int, ...], dice: dict[int, float]) -> float:
    """Chance that one roll with the distribution ``dice`` hits ``rolls``."""
    return sum(dice.get(r, 0.0) for r in rolls)


#: An opponent with the Train Station is assumed to roll two dice half the time (its choice is its own).
_MIXED = {s: 0.5 * _ONE_DIE.get(s, 0.0) + 0.5 * _TWO_DICE.get(s, 0.0) for s in range(1, 13)}


def _own_roll(cards: list[int], dice: dict[int, float]) -> float:
    """Expected coins one of the seat's own rolls brings it: its blue, green and purple cards."""
    total = 0.0
    for e in ESTABLISHMENTS:
        count = cards[e.index]
        if not count or e.colour == "red":
            continue
        p = _p_roll(e.rolls, dice)
        if e.colour == "blue":
            total += count * p * e.amount
        elif e.colour == "green":
            amount = e.amount
            if e.per_icon is not None:
                amount = e.amount * sum(cards[k] for k in _ICON_KINDS.get(e.per_icon, []))
            total += count * p * amount
        else:
            total += p * 4
    return total


def _others_roll(cards: list[int], dice: dict[int, float]) -> float:
    """Expected coins one opponent's roll brings the seat: its blue and (taken, often short) red cards."""
    total = 0.0
    for e in ESTABLISHMENTS:
        count = cards[e.index]
        if count and e.colour in ("blue", "red"):
            share = 1.0 if e.colour == "blue" else 0.8
            total += count * _p_roll(e.rolls, dice) * e.amount * share
    return total


def income(state: MachiKoroState, seat: int) -> float:
    """Expected coins per round of turns that ``seat``'s establishments bring.

    The Train Station lets its owner *choose* one or two dice on every roll,
    so it never lowers the owner's income: its own rolls are counted with the
    better of the two (a city of 1-3 cards keeps rolling one die).  Treating
    it as "two dice half the time" made the Train Station cost income, and
    `easy`/`medium` then refused to build it as their last landmark (issue 29).
    A finished seat (Yucata ending) is out of the game: it earns nothing more.
    """
    if state._out[seat]:
        return 0.0
    cards = state._cards[seat]
    own = _own_roll(cards, _ONE_DIE)
    if state._built[seat] & TRAIN_STATION:
        own = max(own, _own_roll(cards, _TWO_DICE))
    others = 0.0
    for p in state._opponents[seat]:
        others += _others_roll(cards, _MIXED if state._active[p] & TRAIN_STATION else _ONE_DIE)
    return own + others


#: What a seat that completed its landmarks (and so is placed, in the Yucata ending) is worth on top of its
#: city: as much as a won game in `relative_value`, so that no unfinished city, however rich, is worth more
#: than a finished one.  (The Kosmos ending and a 2-player game end at once; the evaluation is not asked.)
FINISHED = 1000.0


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``, in coins.

    A finished seat is placed ahead of everyone still playing, so it is worth
    `FINISHED` more.  Without it, finishing in a 3- or 4-player Yucata game was
    worth only the landmark's small premium over its cost (less than a card's
    future income), and finishing as the second-to-last player, which ends the
    game and scores 0 in `relative_value`, was worth less than staying in with
    a rich city: the bots kept buying cards instead (issue 29).
    """
    assert isinstance(state, MachiKoroState)
    built = state._built[seat]
    landmarks = sum(m.cost * 1.3 + 4 for m in LANDMARKS if built & m.bit)
    finished = FINISHED if state._out[seat] else 0.0
    return finished + landmarks + state._coins[seat] + HORIZON * income(state, seat)


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
    in the Yucata ending) has its place: it is `PLACED_AHEAD` rounds ahead of
    any seat still playing, and ahead of the seats that finished after it.
    Counting it 0 rounds ahead (no landmark left) made a seat that could no
    longer win see a fair chance to beat it by staying in, more than finishing
    second was worth, and `hard` passed on its last landmark (issue 29).
    """
    assert isinstance(state, MachiKoroState)
    if state._out[seat]:
        return PLACED_AHEAD * (state.num_players - state._placing.index(seat))
    return -turns_to_finish(state, seat)


#: How many rounds of the race (`search_evaluate`) a placed seat is ahead per place: enough that the
#: logistic of the search (scale 1.5 rounds) sees the order of placed seats as settled.
PLACED_AHEAD = 100.0


#: `easy` judges every build: there are at most 20 (15 kinds, 4 landmarks, pass), each cheap to judge.  Its
#: default sample of 12 left the last landmark out of one build decision in five, and `easy` passed.
EASY_ACTIONS = 20

#: `hard`'s constants: leads are in rounds of the race (search_evaluate), finished games in landmarks.
SEARCH = {"scale": 1.5, "margin_scale": 1.0, "rollout_depth": 10, "exploration": 0.6, "margin": 0.15,
          "placement": True}


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


def finishing_build(state: State) -> str | None:
    """The build that would complete the mover's landmarks now, if it is legal (for the stall checks).

    `ludothek.bots.endings` counts every decision where this is legal and a
    bot chose something else: issue 29's `easy` and `medium` did so for
    hundreds of turns in a row.
    """
    assert isinstance(state, MachiKoroState)
    seat = state.current_player()
    if seat < 0 or state.phase != "build":
        return None
    left = [m for m in LANDMARKS if not state._built[seat] & m.bit]
    if len(left) != 1:
        return None
    action = f"build:{left[0].id}"
    return action if action in state.legal_actions() else None
