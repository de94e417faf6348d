"""What `hard` takes from the games' strategy modules: Carpe Diem's remembered policy and root ranking,
and its search evaluation."""

from __future__ import annotations

import random

from ludothek.bots.strategy import strategy_for
from ludothek.engine import CHANCE, load, sample_chance
from ludothek.games.carpediem.greedy import GreedyBot
from ludothek.games.carpediem.strategy import CachedGreedy, rank, search_evaluate


def test_the_remembered_greedy_policy_plays_like_the_greedy_player() -> None:
    greedy, cached = GreedyBot(), CachedGreedy()
    checked = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = load("carpediem").new_state(2)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance(state, rng))
                continue
            a = greedy.choose(state.clone(), random.Random(checked))
            assert cached.choose(state.clone(), random.Random(checked)) == a
            checked += 1
            legal = state.legal_actions()
            state.apply_action(a if rng.random() < 0.7 else rng.choice(legal))
    assert checked > 100


def test_carpe_diem_ranks_every_tile_decision_and_evaluates_every_position() -> None:
    rng = random.Random(2)
    state = load("carpediem").new_state(2)
    ranked = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        values = rank(state)
        if state.stage in ("build", "take", "move"):
            assert set(values) == set(state.legal_actions())
            ranked += 1
        for seat in range(2):
            assert isinstance(search_evaluate(state, seat), float)
        state.apply_action(rng.choice(state.legal_actions()))
    assert ranked > 20
    assert strategy_for("carpediem").rank is rank

