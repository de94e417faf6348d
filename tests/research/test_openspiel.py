"""The four games as OpenSpiel games (issue 33): registration, OpenSpiel's own checks, its bots."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pyspiel
import pytest

from ludothek import engine
from ludothek.research import openspiel as O
from ludothek.research import tensors
from ludothek.research.actions import GAME_IDS, load_table


def _variants(game_id: str) -> list[dict[str, object]]:
    """Every option set (with the fewest seats it allows) and every player count (with its first option set)."""
    game = engine.load(game_id)
    names = [o.name for o in game.options]
    valid: list[dict[str, object]] = []
    for values in itertools.product(*[o.values for o in game.options]):
        for players in range(game.min_players, game.max_players + 1):
            opts = dict(zip(names, values, strict=True))
            try:
                game.new_state(players, opts)
            except engine.InvalidOptions:
                continue
            valid.append({"players": players, **opts})
    chosen: list[dict[str, object]] = []
    for values in itertools.product(*[o.values for o in game.options]):
        first = next((v for v in valid if all(v[n] == x for n, x in zip(names, values, strict=True))), None)
        if first is not None and first not in chosen:
            chosen.append(first)
    for players in range(game.min_players, game.max_players + 1):
        first = next(v for v in valid if v["players"] == players)
        if first not in chosen:
            chosen.append(first)
    return chosen


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_registered_with_the_declared_type(game_id: str) -> None:
    game = O.load(game_id)
    gtype = game.get_type()
    assert gtype.short_name in pyspiel.registered_names()
    assert gtype.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert gtype.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gtype.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    imperfect = gtype.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert imperfect == (game_id == "carpediem")
    table = load_table(game_id)
    assert game.num_distinct_actions() == table.num_actions
    assert game.max_chance_outcomes() == table.num_chance
    assert game.max_game_length() == O.DEFAULT_MAX_MOVES
    assert game.observation_tensor_size() == tensors.OBSERVATION_SIZE
    assert game.information_state_tensor_size() == tensors.INFORMATION_STATE_SIZE


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_random_sim_test_full_game(game_id: str) -> None:
    """OpenSpiel's own consistency check over one untruncated game (with serialisation)."""
    pyspiel.random_sim_test(O.load(game_id), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_random_sim_test_every_option_set(game_id: str) -> None:
    """Every player count and option set loads through a game string and passes the check; the games are
    cut short by the truncation parameter (the full length is covered above), which is tested on the way."""
    for params in _variants(game_id):
        game = O.load(game_id, max_moves=40, **params)
        again = pyspiel.load_game(str(game))  # the game string round-trips, options included
        assert again.num_players() == params["players"]
        pyspiel.random_sim_test(again, num_sims=1, serialize=True, verbose=False)


def test_wrong_options_are_refused() -> None:
    with pytest.raises(engine.InvalidOptions):
        O.load("machikoro", players=2, market="nonsense")
    with pytest.raises(engine.InvalidOptions):
        O.load("machikoro", players=9)


def test_truncation_ends_the_game_with_zero_rewards() -> None:
    state = O.load("machikoro", max_moves=5).new_initial_state()
    rng = random.Random(1)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.move_number() == 5 and state.returns() == [0.0, 0.0]


def test_strings_and_tensors_come_from_the_seat_view() -> None:
    """The strings are the seat's view and redacted history; a secret of Carpe Diem never reaches another seat."""
    game = O.load("carpediem", players=2)
    state = game.new_initial_state()
    rng = random.Random(3)
    while not state.is_terminal():
        for seat in range(2 if state.move_number() % 9 == 0 else 0):
            assert state.observation_string(seat) == tensors.observation_string(state.inner, seat)
            assert state.information_state_string(seat) == tensors.information_state_string(state.inner, seat)
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    tensor = np.asarray(state.information_state_tensor(1))
    assert tensor.shape == (tensors.INFORMATION_STATE_SIZE,) and tensor[1] == 1.0 and tensor[0] == 0.0
    secrets = [(i, e) for i, e in enumerate(state.inner.history()) if e.visible_to is not None]
    assert secrets, "a whole game draws fountain cards"
    for i, entry in secrets:
        for seat in range(2):
            seen = state.inner.history(seat)[i].action
            assert seen == (entry.action if seat in entry.visible_to else engine.HIDDEN_ACTION)


def test_rewards_rank_the_seats() -> None:
    state = O.load("machikoro", players=3).new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    returns = state.returns()
    ranks = {r.seat: r.rank for r in state.inner.result()}
    winner = min(ranks, key=lambda s: ranks[s])
    assert returns[winner] == max(returns) and abs(sum(returns)) < 1e-9


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_openspiel_mcts_and_random_bots_play_a_full_game(game_id: str) -> None:
    """OpenSpiel's C++ MCTS (calling back into the Python game) against its random bot, to the end."""
    game = O.load(game_id)
    evaluator = pyspiel.RandomRolloutEvaluator(1, 7)
    mcts = pyspiel.MCTSBot(game, evaluator, 2.0, 2, 100, False, 7, False)
    bots = [mcts, *(pyspiel.make_uniform_random_bot(p, 11 + p) for p in range(1, game.num_players()))]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert len(returns) == game.num_players()
    assert any(r != 0 for r in returns)  # finished, not truncated
