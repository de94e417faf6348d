"""Which games exist, loaded lazily so that one game's import cost is paid only when used."""

from __future__ import annotations

import importlib
import importlib.util
from functools import cache
from pathlib import Path

from .core import Game

#: Game id -> module that defines ``GAME``.  The ids are stable: records store them.
GAME_MODULES: dict[str, str] = {
    "machikoro": "ludothek.games.machikoro",
    "rolltheages": "ludothek.games.rolltheages",
    "snowdonia": "ludothek.games.snowdonia",
    "carpediem": "ludothek.games.carpediem",
}


#: Games registered at run time (tests, plugins): id -> game object.
_EXTRA: dict[str, Game] = {}


def register(game: Game) -> None:
    """Register a game object that is not in `GAME_MODULES` (used by tests and plugins)."""
    _EXTRA[game.id] = game


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def games() -> list[str]:
    """The ids of the registered games that are installed, in a stable order."""
    return [gid for gid, mod in GAME_MODULES.items() if _available(mod)] + list(_EXTRA)


def load(game_id: str) -> Game:
    """The game object for ``game_id``; `KeyError` with the known ids if there is none."""
    if game_id in _EXTRA:
        return _EXTRA[game_id]
    return _load_module_game(game_id)


@cache
def _load_module_game(game_id: str) -> Game:
    if game_id not in GAME_MODULES or not _available(GAME_MODULES[game_id]):
        raise KeyError(f"unknown game {game_id!r}; known games: {', '.join(games())}")
    module = importlib.import_module(GAME_MODULES[game_id])
    game: Game = module.GAME
    return game


def web_dir(game_id: str) -> Path | None:
    """The folder of ``game_id``'s own web parts (board template, JS, CSS), or None; `KeyError` if unknown."""
    return load(game_id).web_dir
