"""The four games as PettingZoo AEC environments (issue 33; docs/research.md, "PettingZoo").

``env("machikoro", players=3, options={"ending": "kosmos"})`` gives an AEC environment in the shape of
PettingZoo's classic games:

* agents ``player_0`` .. ``player_{n-1}`` (seat ``i`` of the engine); the agent to act is the seat to
  move, so turns follow the game, not a fixed rotation;
* ``Discrete(num_actions)`` action spaces over the committed action table (`ludothek.research.actions`);
* observations ``{"observation": float32[INFORMATION_STATE_SIZE], "action_mask": int8[num_actions]}``:
  the seat's hashed view and history (`ludothek.research.tensors`) and its legal actions (all zero
  for an agent that is not to move);
* chance is resolved inside `step` (and `reset`) from a `random.Random` seeded by ``reset(seed=...)``:
  the same seed and the same actions give the same game;
* rewards only at the end (`ludothek.research.core`); ``terminations`` when the game is over,
  ``truncations`` when ``max_moves`` actions (chance outcomes included) have been played;
* an illegal action raises the engine's `IllegalAction` (with the reason) and changes nothing.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ludothek import engine
from ludothek.research import tensors
from ludothek.research.core import DEFAULT_MAX_MOVES, legal_ids, terminal_rewards, variant


class LudothekAEC(AECEnv):
    """One game variant as an AEC environment (use `env` for the checked, wrapped one)."""

    metadata = {"render_modes": ["ansi"], "name": "ludothek_v1", "is_parallelizable": False}

    def __init__(self, game_id: str, players: int | None = None, options: dict[str, Any] | None = None,
                 max_moves: int = DEFAULT_MAX_MOVES, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.variant = variant(game_id, players, options, max_moves)
        self.table = self.variant.table
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"ludothek_{game_id}_v1"}
        self.possible_agents = [f"player_{i}" for i in range(self.variant.players)]
        self.agents = self.possible_agents[:]
        n = self.table.num_actions
        self._action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, (tensors.INFORMATION_STATE_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            })
            for a in self.possible_agents
        }
        self._rng = random.Random()
        self.state_ = self.variant.new_state()
        self.moves = 0

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # ----- the game ---------------------------------------------------------------------------------

    def _resolve_chance(self) -> None:
        """Draw chance outcomes until a seat must decide, the game ends or the truncation limit is hit."""
        state = self.state_
        while (not state.is_terminal() and state.current_player() == engine.CHANCE
               and self.moves < self.variant.max_moves):
            state.apply_action(engine.sample_chance(state, self._rng))
            self.moves += 1

    def _after_move(self) -> None:
        self._resolve_chance()
        state = self.state_
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if state.is_terminal():
            for agent, reward in zip(self.possible_agents, terminal_rewards(state, self.variant.players),
                                     strict=True):
                self.rewards[agent] = reward
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.moves >= self.variant.max_moves:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[state.current_player()]
        self._accumulate_rewards()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.state_ = self.variant.new_state()
        self.moves = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[0]
        self._after_move()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not 0 <= int(action) < self.table.num_actions:
            raise ValueError(f"action must be an index 0..{self.table.num_actions - 1}, not {action!r}")
        seat = self.possible_agents.index(agent)
        self.state_.apply_action(self.table.actions[int(action)], seat=seat)  # IllegalAction: nothing changed
        self.moves += 1
        self._cumulative_rewards[agent] = 0.0
        self._after_move()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        obs = np.zeros(tensors.INFORMATION_STATE_SIZE, np.float32)
        tensors.fill_information_state(self.state_, seat, obs)
        mask = np.zeros(self.table.num_actions, np.int8)
        if not self.state_.is_terminal() and self.state_.current_player() == seat:
            mask[legal_ids(self.state_, self.table)] = 1
        return {"observation": obs, "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return tensors.observation_string(self.state_, None)

    def close(self) -> None:
        pass


def env(game_id: str, players: int | None = None, options: dict[str, Any] | None = None,
        max_moves: int = DEFAULT_MAX_MOVES, render_mode: str | None = None) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are (order of calls enforced)."""
    return wrappers.OrderEnforcingWrapper(LudothekAEC(game_id, players, options, max_moves, render_mode))
