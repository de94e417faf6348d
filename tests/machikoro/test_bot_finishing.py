"""Issue 29: the bots build their last landmark when they can (the causes, one position each).

The simulation over many games is tests/bots/test_endings.py; these pin the
three causes found: the Train Station valued as lowering income, a finished
seat worth no more than a rich unfinished city, and `easy` sampling its
build list so that the last landmark was left out.
"""

from __future__ import annotations

import random

import pytest

from ludothek.bots.greedy import EasyBot, MediumBot
from ludothek.bots.ismcts import IsmctsBot
from ludothek.bots.strategy import strategy_for
from ludothek.games.machikoro.rules import MachiKoroState
from ludothek.games.machikoro.strategy import evaluate, finishing_build, income, search_evaluate

from .helpers import new, play

#: A small city of 1-3 cards, as `medium` had when it refused the Train Station 16 times.
SMALL_CITY = {"wheat_field": 3, "ranch": 1, "bakery": 2, "cafe": 1, "convenience_store": 3, "forest": 1}
THREE_BUT_STATION = ["shopping_mall", "amusement_park", "radio_tower"]
THREE_BUT_RADIO = ["train_station", "shopping_mall", "amusement_park"]
BOTS = {"easy": lambda: EasyBot(mistakes=0.0), "medium": MediumBot}


def test_the_train_station_never_lowers_its_owners_income() -> None:
    """Its owner may roll one die on every turn, so a city of 1-3 cards keeps its income."""
    without = new(4, cards={0: SMALL_CITY}, landmarks={0: THREE_BUT_STATION[:2]})
    with_station = new(4, cards={0: SMALL_CITY}, landmarks={0: ["train_station", *THREE_BUT_STATION[:2]]})
    assert income(with_station, 0) >= income(without, 0)
    assert evaluate(with_station, 0) > evaluate(without, 0) - 4  # worth more than the 4 coins it costs


@pytest.mark.parametrize("level", sorted(BOTS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_build_the_train_station_as_their_last_landmark(level: str, players: int) -> None:
    state = new(players, coins={0: 30}, cards={0: SMALL_CITY}, landmarks={0: THREE_BUT_STATION})
    play(state, "dice:5", "keep")  # the Radio Tower asks first
    assert finishing_build(state) == "build:train_station"
    for seed in range(5):
        assert BOTS[level]().choose(state, random.Random(seed)) == "build:train_station"


def _second_may_finish() -> MachiKoroState:
    """Three players: seat 1 finished first and left; seat 0, rich, may now finish second (ending the game)."""
    state = new(3, coins={0: 200, 1: 30}, landmarks={0: THREE_BUT_RADIO, 1: THREE_BUT_RADIO},
                cards={0: {**SMALL_CITY, "apple_orchard": 4, "mine": 2}}, turn=1)
    play(state, "roll:1", "dice:5", "build:radio_tower")  # seat 1 finishes first and leaves
    assert state.is_out(1)
    play(state, "dice:5", "pass", "roll:1", "dice:5")  # seat 2 passes; seat 0 may finish
    assert finishing_build(state) == "build:radio_tower"
    return state


@pytest.mark.parametrize("level", sorted(BOTS))
def test_finishing_second_to_last_beats_staying_in_with_a_rich_city(level: str) -> None:
    """Finishing ends the game in second place, which scores 0 for the bots, less than a rich city's
    lead; the finished seat's value must outweigh any city."""
    state = _second_may_finish()
    for seed in range(5):
        assert BOTS[level]().choose(state, random.Random(seed)) == "build:radio_tower"


def test_hard_finishes_second() -> None:
    """`hard` passed here at every budget: its search scored finishing second as a loss (0) and saw a
    fair chance to beat the seat already placed by staying in.  It now plays for places
    (`SearchSettings.placement`), and a placed seat's race is won (`search_evaluate`)."""
    state = _second_may_finish()
    for seed in range(5):
        bot = IsmctsBot(seconds=None, iterations=200)
        assert bot.choose(state, random.Random(seed)) == "build:radio_tower"


def test_a_placed_seat_is_out_of_reach_in_the_race() -> None:
    """The cut-off evaluation puts every placed seat far ahead of the seats still in, in finishing order."""
    state = _second_may_finish()
    assert search_evaluate(state, 1) > search_evaluate(state, 0) + 50
    play(state, "build:radio_tower")
    assert state.is_terminal()
    assert search_evaluate(state, 1) > search_evaluate(state, 0) > search_evaluate(state, 2) + 50


def test_easy_judges_every_build_in_machi_koro() -> None:
    """Up to 20 builds: a sample of 12 left the last landmark out of one decision in five."""
    assert strategy_for("machikoro").easy_actions == 20
    state = new(2, coins={0: 40}, landmarks={0: THREE_BUT_RADIO})
    play(state, "roll:1", "dice:5")
    assert len(state.legal_actions()) > 12
    for seed in range(40):
        assert EasyBot(mistakes=0.0).choose(state, random.Random(seed)) == "build:radio_tower"
