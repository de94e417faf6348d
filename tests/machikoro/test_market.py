"""The "Komme, was wolle" market: a shuffled deck and a display of exactly 10 kinds."""

from __future__ import annotations

import random

import pytest

from ludothek.engine import CHANCE, load, sample_chance
from ludothek.games.machikoro.cards import ESTABLISHMENTS
from ludothek.games.machikoro.rules import MachiKoroState

from .helpers import play

KOMME = {"market": "komme_was_wolle"}


def _fresh(players: int) -> MachiKoroState:
    state = load("machikoro").new_state(players, KOMME)
    assert isinstance(state, MachiKoroState)
    return state


def _kinds_on_display(state: MachiKoroState) -> int:
    return sum(1 for e in ESTABLISHMENTS if state.pile(e.id))


@pytest.mark.parametrize(("players", "purple"), [(2, 2), (3, 3), (4, 4)])
def test_deck_composition(players: int, purple: int) -> None:
    state = _fresh(players)
    assert state.current_player() == CHANCE and state.phase == "draw"
    for e in ESTABLISHMENTS:
        assert state.deck_count(e.id) == (purple if e.colour == "purple" else 6)
        assert state.pile(e.id) == 0
    assert state.deck_count() == 72 + 3 * purple


def test_draw_probabilities_follow_the_cards_left() -> None:
    state = _fresh(2)
    outcomes = dict(state.chance_outcomes())
    assert outcomes["draw:cafe"] == pytest.approx(6 / 78)
    assert outcomes["draw:stadium"] == pytest.approx(2 / 78)
    assert sum(outcomes.values()) == pytest.approx(1.0)


def test_setup_draws_until_ten_kinds_and_stacks_repeats() -> None:
    state = _fresh(4)
    kinds = [e.id for e in ESTABLISHMENTS]
    play(state, "draw:cafe", "draw:cafe")  # a repeat goes on its pile
    assert state.pile("cafe") == 2 and state.deck_count("cafe") == 4
    for card in kinds[:10]:
        if card != "cafe":
            assert state.current_player() == CHANCE
            play(state, f"draw:{card}")
    assert _kinds_on_display(state) == 10
    assert state.current_player() == CHANCE and state.phase == "dice"  # the first turn begins
    view = state.view(1)
    assert view["market"]["deck"] == 84 - 11
    assert view["market"]["deck_by_kind"]["cafe"] == 4
    assert view["market"]["piles"]["cafe"] == 2


def _filled(seed: int = 0) -> MachiKoroState:
    state = _fresh(2)
    rng = random.Random(seed)
    while state.phase == "draw":
        state.apply_action(sample_chance(state, rng))
    return state


def test_building_the_last_card_of_a_pile_refills_the_display() -> None:
    state = _filled()
    single = next(e for e in ESTABLISHMENTS if state.pile(e.id) and e.cost <= 3)
    moved = state.pile(single.id) - 1
    state.arrange(coins={0: 50}, piles={single.id: 1}, deck={single.id: state.deck_count(single.id) + moved})
    play(state, "dice:5", f"build:{single.id}")
    assert state.phase == "draw" and state.current_player() == CHANCE
    rng = random.Random(1)
    while state.phase == "draw":
        state.apply_action(sample_chance(state, rng))
    assert _kinds_on_display(state) == 10
    assert state.turn == 1


def test_no_refill_once_the_deck_is_empty() -> None:
    state = _filled()
    single = next(e for e in ESTABLISHMENTS if state.pile(e.id) and e.cost <= 3)
    state.arrange(coins={0: 50}, piles={single.id: 1}, deck={e.id: 0 for e in ESTABLISHMENTS})
    play(state, "dice:5", f"build:{single.id}")
    assert _kinds_on_display(state) == 9
    assert state.turn == 1 and state.phase == "dice"


def test_only_displayed_kinds_can_be_built() -> None:
    state = _filled(3)
    state.arrange(coins={0: 50})
    play(state, "dice:5")
    legal = state.legal_actions()
    for e in ESTABLISHMENTS:
        assert (f"build:{e.id}" in legal) == bool(state.pile(e.id))
