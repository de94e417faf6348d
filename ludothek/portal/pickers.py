"""Board pickers: the portal asks a game package for them by convention, knowing no game's rules.

A game that offers pickers has a module ``ludothek.games.<id>.pickers`` with
``pickers(state, legal, lang, describe) -> list[dict]`` (see ``ludothek/games/snowdonia/pickers.py``
for the data shape).  The board template renders them with ``boards/_picker.html``; ``static/pickers.js``
lets the player build an action and sends it only when it is one of the legal actions in the data.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def board_pickers(game_id: str, state: Any, legal: list[str], lang: str,
                  describe: Callable[[str], str]) -> list[dict[str, Any]]:
    """The pickers for the seat's open decision; none for spectators or games without pickers."""
    if not legal:
        return []
    try:
        module = importlib.import_module(f"ludothek.games.{game_id}.pickers")
    except ModuleNotFoundError:
        return []
    found: list[dict[str, Any]] = module.pickers(state, legal, lang, describe)
    return found
