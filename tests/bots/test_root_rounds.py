"""`hard`'s root in rounds (`SearchSettings.root_rounds`): common random numbers for the root actions."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ludothek import engine
from ludothek.bots.ismcts import IsmctsBot, _Luck
from ludothek.bots.strategy import SearchSettings, strategy_for
from ludothek.engine import CHANCE, sample_chance
from ludothek.games.rolltheages.rules import ROLL, RollState
from ludothek.games.rolltheages.strategy import luck_draw, luck_key
from tests.bots.test_bots import GAMES, positions


def rounds_bot(iterations: int = 24) -> IsmctsBot:
    return IsmctsBot(seconds=None, iterations=iterations, rollout_depth=4, root_rounds=True)


def test_the_mode_is_off_unless_a_game_or_the_bot_asks_for_it() -> None:
    assert not SearchSettings().root_rounds
    for game_id in GAMES:
        on = IsmctsBot(seconds=None).settings(strategy_for(game_id)).root_rounds
        assert on == (game_id in ("rolltheages", "carpediem")), game_id
        assert rounds_bot().settings(strategy_for(game_id)).root_rounds
    assert not IsmctsBot(seconds=None, root_rounds=False).settings(strategy_for("rolltheages")).root_rounds


@pytest.mark.parametrize("game_id", GAMES)
def test_rounds_give_a_legal_action_within_the_budget_and_leave_the_state_alone(game_id: str) -> None:
    bot = rounds_bot()
    for state in positions(game_id, 3, 1):
        before = state.snapshot()
        assert bot.choose(state, random.Random(3)) in state.legal_actions()
        assert state.snapshot() == before
        assert bot.last_iterations <= 24


@pytest.mark.parametrize("game_id", GAMES)
def test_rounds_spend_the_same_iterations_for_the_same_seed(game_id: str) -> None:
    """Deterministic to the iteration count (no peeking on re-dealt copies: `test_bots.test_no_bot_peeks`)."""
    bot = rounds_bot()
    for state in positions(game_id, 4, 7):
        expected = bot.choose(state, random.Random(11))
        ran = bot.last_iterations
        assert bot.choose(state, random.Random(11)) == expected and bot.last_iterations == ran


def test_a_clock_ends_the_rounds_too() -> None:
    state = positions("rolltheages", 1, 2)[0]
    bot = IsmctsBot(seconds=0.05, iterations=100_000, root_rounds=True)
    assert bot.choose(state, random.Random(1)) in state.legal_actions()
    assert bot.last_iterations < 100_000


def _a_roll(seed: int) -> RollState:
    rng = random.Random(seed)
    state = engine.load("rolltheages").new_state(2)
    while not (isinstance(state, RollState) and state.phase == ROLL):
        state.apply_action(sample_chance(state, rng) if state.current_player() == CHANCE
                           else rng.choice(state.legal_actions()))
    assert isinstance(state, RollState)
    return state


def test_the_same_round_meets_the_same_dice_however_it_got_there() -> None:
    """The stream is the roll's key (round, seat, roll number), not how many chance events came before."""
    strategy = strategy_for("rolltheages")
    assert strategy.luck_key is luck_key and strategy.luck_draw is luck_draw
    state = _a_roll(1)
    fresh, used = _Luck(99, strategy), _Luck(99, strategy)
    used.draw(state.clone())  # an earlier chance event on one path only
    assert fresh.draw(state.clone()) == used.draw(state.clone())
    draws = {_Luck(seed, strategy).draw(state.clone()) for seed in range(40)}
    assert len(draws) > 5  # other rounds, other dice


def test_rolling_fewer_dice_meets_the_same_first_dice() -> None:
    state = _a_roll(2)
    fewer = state.clone()
    fewer.to_roll = state.to_roll - 1
    for seed in range(20):
        many = luck_draw(state, random.Random(seed))[5:].split("+")
        few = luck_draw(fewer, random.Random(seed))[5:].split("+")
        assert not Counter(few) - Counter(many)


def test_die_by_die_has_the_distribution_of_the_chance_outcomes() -> None:
    state = _a_roll(3)
    outcomes = dict(state.chance_outcomes())
    rng = random.Random(0)
    n = 20_000
    drawn = Counter(luck_draw(state, rng) for _ in range(n))
    assert set(drawn) <= set(outcomes)
    for action, p in outcomes.items():
        assert abs(drawn[action] / n - p) < 5 * (p * (1 - p) / n) ** 0.5 + 1e-3, action
