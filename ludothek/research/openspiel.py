"""The four games as OpenSpiel Python games (issue 33; docs/research.md, "OpenSpiel").

Importing this module registers ``ludothek_machikoro``, ``ludothek_rolltheages``, ``ludothek_snowdonia``
and ``ludothek_carpediem`` with `pyspiel.register_game`; then ``pyspiel.load_game("ludothek_machikoro",
{"players": 3, "ending": "kosmos"})`` works like any OpenSpiel game, in Python and in OpenSpiel's C++
algorithms (which call back into the Python state).

* Sequential dynamics; chance is explicit and stochastic (the engine's chance nodes, with their
  probabilities); Carpe Diem is imperfect information (secret fountain cards), the other three are
  perfect information (a deck's order is never stored: cards are chance outcomes when revealed).
* Parameters: ``players``, every game option by its engine name (string values), ``max_moves``
  (truncation: after that many actions, chance included, the game ends with reward 0 for all).
* Actions and chance outcomes are the indices of the committed tables (`ludothek.research.actions`).
* Rewards are terminal (`ludothek.research.core`): +1 .. -1 by rank, the score when alone.
* Tensors and strings come from ``view(seat)`` and ``history(seat)`` (`ludothek.research.tensors`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ludothek import engine
from ludothek.research import tensors
from ludothek.research.actions import GAME_IDS, load_table
from ludothek.research.core import (
    DEFAULT_MAX_MOVES,
    Variant,
    chance_ids,
    legal_ids,
    terminal_rewards,
    variant,
)

#: Games with secrets a seat does not see (the engine's ``_visibility`` hides a chance outcome).
IMPERFECT = frozenset({"carpediem"})
PREFIX = "ludothek_"


def short_name(game_id: str) -> str:
    return PREFIX + game_id


def _default_params(game_id: str) -> dict[str, Any]:
    game = engine.load(game_id)
    players = game.min_players if game.min_players > 1 else 2
    # OpenSpiel reads "1" back from a game string as an integer: options with numeric values are ints.
    options = {o.name: int(o.default) if all(v.isdigit() for v in o.values) else o.default for o in game.options}
    return {"players": players, **options, "max_moves": DEFAULT_MAX_MOVES}


def game_type(game_id: str) -> pyspiel.GameType:
    game = engine.load(game_id)
    info = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=short_name(game_id),
        long_name=f"Ludothek {game.title['en']}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=info.IMPERFECT_INFORMATION if game_id in IMPERFECT else info.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=_default_params(game_id),
    )


class LudothekGame(pyspiel.Game):
    """One Ludothek game with its parameters; subclassed per game by `register` (the factory takes params only)."""

    game_id = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        full = {**_default_params(self.game_id), **(params or {})}
        options = {k: str(v) for k, v in full.items() if k not in ("players", "max_moves")}
        self.variant: Variant = variant(self.game_id, int(full["players"]), options, int(full["max_moves"]))
        table = load_table(self.game_id)
        v = self.variant
        super().__init__(
            game_type(self.game_id),
            pyspiel.GameInfo(
                num_distinct_actions=table.num_actions,
                max_chance_outcomes=table.num_chance,
                num_players=v.players,
                min_utility=v.min_reward,
                max_utility=v.max_reward,
                utility_sum=None,
                max_game_length=v.max_moves,
            ),
            full,
        )

    def new_initial_state(self) -> LudothekState:
        return LudothekState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> LudothekObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return LudothekObserver(perfect_recall)


class _Shared:
    """Immutable per-game facts a state refers to: a deep copy gives the same object."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.table = load_table(variant.game_id)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class _Engine:
    """The engine state: OpenSpiel clones a Python state by deep-copying its attributes one by one,
    and the engine's own `clone` is far cheaper than a generic deep copy."""

    __slots__ = ("state",)

    def __init__(self, state: engine.State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.state.clone())


class LudothekState(pyspiel.State):
    """An engine state behind OpenSpiel's interface; the engine checks every action."""

    def __init__(self, game: LudothekGame) -> None:
        super().__init__(game)
        self._shared = _Shared(game.variant)
        self._engine = _Engine(game.variant.new_state())
        self.moves = 0

    @property
    def variant(self) -> Variant:
        return self._shared.variant

    @property
    def table(self) -> Any:
        return self._shared.table

    @property
    def inner(self) -> engine.State:
        """The engine state (`ludothek.engine.State`)."""
        return self._engine.state

    @property
    def truncated(self) -> bool:
        return self.moves >= self.variant.max_moves and not self.inner.is_terminal()

    def current_player(self) -> int:
        if self.inner.is_terminal() or self.truncated:
            return int(pyspiel.PlayerId.TERMINAL)
        p = self.inner.current_player()
        return int(pyspiel.PlayerId.CHANCE) if p == engine.CHANCE else int(p)

    def is_terminal(self) -> bool:
        return self.inner.is_terminal() or self.truncated

    def _legal_actions(self, player: int) -> list[int]:
        return legal_ids(self.inner, self.table)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return chance_ids(self.inner, self.table)

    def _apply_action(self, action: int) -> None:
        if self.inner.current_player() == engine.CHANCE:
            self.inner.apply_action(self.table.chance[action])
        else:
            self.inner.apply_action(self.table.actions[action])
        self.moves += 1

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self.table.chance[action]
        return self.table.actions[action]

    def returns(self) -> list[float]:
        if not self.inner.is_terminal():
            return [0.0] * self.variant.players
        return terminal_rewards(self.inner, self.variant.players)

    def __str__(self) -> str:
        """The spectator's view (no secrets) with the truncation count; for debugging."""
        return f"moves={self.moves} " + tensors.observation_string(self.inner, None)


class LudothekObserver:
    """OpenSpiel's PyObserver: the observation (view) or, with perfect recall, the information state."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        size = tensors.INFORMATION_STATE_SIZE if perfect_recall else tensors.OBSERVATION_SIZE
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {
            "seat": self.tensor[: tensors.MAX_SEATS],
            "view": self.tensor[tensors.MAX_SEATS: tensors.OBSERVATION_SIZE],
        }
        if perfect_recall:
            self.dict["history"] = self.tensor[tensors.OBSERVATION_SIZE:]

    def set_from(self, state: LudothekState, player: int) -> None:
        if self.perfect_recall:
            tensors.fill_information_state(state.inner, player, self.tensor)
        else:
            tensors.fill_observation(state.inner, player, self.tensor)

    def string_from(self, state: LudothekState, player: int) -> str:
        if self.perfect_recall:
            return tensors.information_state_string(state.inner, player)
        return tensors.observation_string(state.inner, player)


def register(game_id: str) -> None:
    """Register one game with OpenSpiel (once per process)."""
    if short_name(game_id) in pyspiel.registered_names():
        return
    cls = type(f"Ludothek_{game_id}", (LudothekGame,), {"game_id": game_id})
    pyspiel.register_game(game_type(game_id), cls)


def load(game_id: str, players: int | None = None, **options: Any) -> pyspiel.Game:
    """``pyspiel.load_game`` for a Ludothek game, e.g. ``load("machikoro", 3, ending="kosmos")``."""
    register(game_id)
    spec = _default_params(game_id)
    params: dict[str, Any] = {k: int(v) if isinstance(spec.get(k), int) else str(v) for k, v in options.items()}
    if players is not None:
        params["players"] = players
    return pyspiel.load_game(short_name(game_id), params)


for _gid in GAME_IDS:
    register(_gid)
