"""The scripted Roll Through the Ages policy (easy, medium's hint, hard's rollouts): legal, sensible, strong."""

from __future__ import annotations

import random
import statistics

import pytest

from ludothek import engine
from ludothek.engine import CHANCE, State, sample_chance
from ludothek.games.rolltheages.policy import _context, _reroll_choice, policy
from ludothek.games.rolltheages.rules import RollState


def _play(players: int, options: dict[str, str], seed: int, scripted: set[int]) -> State:
    """A game where the seats in ``scripted`` follow the policy and the others play at random."""
    rng = random.Random(seed)
    state = engine.load("rolltheages").new_state(players, options)
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        action = policy(state, rng) if player in scripted else rng.choice(legal)
        assert action in legal
        state.apply_action(action)
    return state


@pytest.mark.parametrize(("players", "options"), [(2, {}), (3, {}), (1, {"mode": "solo"}), (2, {"trade": "on"})])
def test_the_policy_plays_only_legal_moves(players: int, options: dict[str, str]) -> None:
    for seed in range(3):
        assert _play(players, options, seed, set(range(players))).is_terminal()


def test_the_policy_scores_far_more_than_random_play() -> None:
    scores = []
    for seed in range(12):
        state = _play(2, {}, seed, {seed % 2})
        scores.append({r.seat: r.score for r in state.result()}[seed % 2])
    assert statistics.fmean(scores) >= 15


def test_a_starving_empire_keeps_its_food_dice() -> None:
    state = engine.load("rolltheages").new_state(2)
    assert isinstance(state, RollState)
    board = state.boards[0]
    board.food = 0
    board.cities = 4
    dice = ["F", "F", "S", "G"]
    chosen = _reroll_choice(dice, ("F", "F", "G"), _context(state, board))
    assert "F" not in chosen  # six food feed the four cities; throwing them away risks famine
    assert "G" in chosen  # a single good is the least useful face


def test_the_bots_find_the_policy() -> None:
    from ludothek.bots.strategy import strategy_for

    assert strategy_for("rolltheages").policy is policy  # easy, medium's hint and hard's rollouts use it
