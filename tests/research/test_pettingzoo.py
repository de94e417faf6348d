"""The four games as PettingZoo AEC environments (issue 33): PettingZoo's own tests and a training smoke test."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from ludothek import engine
from ludothek.research import pettingzoo as P
from ludothek.research.actions import GAME_IDS, load_table


@pytest.fixture(autouse=True)
def _quiet() -> None:
    # api_test warns that a Dict observation is not a Box: PettingZoo's own classic games get the same.
    warnings.filterwarnings("ignore", message="Observation", category=UserWarning)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_api_test(game_id: str) -> None:
    api_test(P.env(game_id), num_cycles=2000, verbose_progress=False)


@pytest.mark.parametrize(("game_id", "options"), [("rolltheages", {"mode": "solo"}), ("snowdonia", {})])
def test_api_test_alone(game_id: str, options: dict[str, str]) -> None:
    api_test(P.env(game_id, players=1, options=options), num_cycles=500, verbose_progress=False)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_seed_test(game_id: str) -> None:
    seed_test(lambda: P.env(game_id), num_cycles=300)


def _play(env, rng: np.random.Generator) -> int:  # type: ignore[no-untyped-def]
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        steps += 1
    return steps


def test_a_full_game_terminates_with_ranked_rewards() -> None:
    env = P.env("machikoro", players=3)
    env.reset(seed=4)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        assert not trunc
        env.step(None if term else int(np.random.default_rng(1).choice(np.flatnonzero(obs["action_mask"]))))
    assert env.unwrapped.state_.is_terminal()
    ranks = {r.seat: r.rank for r in env.unwrapped.state_.result()}
    winner = f"player_{min(ranks, key=lambda s: ranks[s])}"
    assert totals[winner] == max(totals.values()) and abs(sum(totals.values())) < 1e-9


def test_truncation() -> None:
    env = P.env("snowdonia", players=2, max_moves=30)
    env.reset(seed=1)
    _play(env, np.random.default_rng(0))
    inner = env.unwrapped
    assert inner.moves == 30 and not inner.state_.is_terminal()


def test_same_seed_same_game() -> None:
    records = []
    for _ in range(2):
        env = P.env("carpediem", players=2, max_moves=200)
        env.reset(seed=9)
        _play(env, np.random.default_rng(2))
        records.append(engine.record(env.unwrapped.state_))
    assert records[0] == records[1]


def test_illegal_action_is_refused_and_changes_nothing() -> None:
    env = P.env("machikoro", players=2)
    env.reset(seed=3)
    inner = env.unwrapped
    mask = env.observe(env.agent_selection)["action_mask"]
    before = inner.state_.snapshot()
    with pytest.raises(engine.IllegalAction):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(ValueError, match="index"):
        env.step(10**6)
    assert inner.state_.snapshot() == before


def test_training_smoke() -> None:
    """A few hundred steps (whole games) of a linear softmax policy over the legal actions, trained with
    REINFORCE on the final rewards: the loop runs and the policy changes."""
    env = P.env("machikoro", players=2)
    n_actions = load_table("machikoro").num_actions
    rng = np.random.default_rng(0)
    weights = np.zeros((n_actions, env.observation_space("player_0")["observation"].shape[0]), np.float32)
    steps = 0
    episodes = 0
    while steps < 300:
        env.reset(seed=episodes)
        trace: dict[str, list[tuple[np.ndarray, int, np.ndarray]]] = {a: [] for a in env.possible_agents}
        final: dict[str, float] = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                final[agent] = float(reward)
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            logits = weights[legal] @ obs["observation"]
            probs = np.exp(logits - logits.max())
            probs /= probs.sum()
            k = int(rng.choice(len(legal), p=probs))
            trace[agent].append((obs["observation"], k, legal))
            env.step(int(legal[k]))
            steps += 1
        for agent, moves in trace.items():
            reward = final[agent]
            for x, k, legal in moves:
                logits = weights[legal] @ x
                probs = np.exp(logits - logits.max())
                probs /= probs.sum()
                grad = -probs
                grad[k] += 1.0
                weights[legal] += 0.01 * reward * np.outer(grad, x).astype(np.float32)
        episodes += 1
    assert steps >= 300 and episodes >= 1 and np.isfinite(weights).all() and np.abs(weights).sum() > 0
