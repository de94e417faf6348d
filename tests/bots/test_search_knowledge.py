"""What `hard` takes from the games' strategy modules: Carpe Diem's remembered policy and root ranking,
and its search evaluation."""

from __future__ import annotations

import itertools
import random

from ludothek.bots.ismcts import IsmctsBot
from ludothek.bots.strategy import strategy_for
from ludothek.engine import CHANCE, State, load, sample_chance
from ludothek.games.carpediem.greedy import GreedyBot
from ludothek.games.carpediem.rules import CarpeDiemState
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
        assert isinstance(state, CarpeDiemState)
        values = rank(state)
        if state.stage in ("build", "take", "move"):
            assert set(values) == set(state.legal_actions())
            ranked += 1
        for seat in range(2):
            assert isinstance(search_evaluate(state, seat), float)
        state.apply_action(rng.choice(state.legal_actions()))
    assert ranked > 20
    assert strategy_for("carpediem").rank is rank



def _mid_game(seed: int, decisions: int) -> State:
    rng = random.Random(seed)
    state = load("carpediem").new_state(2)
    played = 0
    while played < decisions:
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        state.apply_action(rng.choice(state.legal_actions()))
        played += 1
    return state


def test_carpe_diem_search_keeps_caring_about_points_when_far_ahead() -> None:
    """`hard`'s cut-off reward must not saturate at leads Carpe Diem games really see (20-60 points
    against a weak player): with a 6-point logistic a 40- and a 60-point lead were worth the same, and the
    search stopped maximising points once ahead."""
    strategy = strategy_for("carpediem")
    bot = IsmctsBot(seconds=None, rollout_depth=0)
    settings = bot.settings(strategy)
    base = _mid_game(4, 40)
    assert isinstance(base, CarpeDiemState) and not base.is_terminal()
    rewards = []
    for extra in (0, 20, 40, 60, 80):
        state = base.clone()
        assert isinstance(state, CarpeDiemState)
        state.players[0].vp += extra
        reward = bot._rollout(state, strategy, settings, random.Random(0))
        assert 0.0 < reward[0] < 1.0
        rewards.append(reward[0])
    steps = [b - a for a, b in itertools.pairwise(rewards)]
    assert all(step > 0.03 for step in steps), rewards
