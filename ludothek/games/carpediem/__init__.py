"""Carpe Diem (Stefan Feld, alea; 2nd edition rules as played on Yucata) for 2 to 4 players.

Modules: ``geometry`` (tile sides and cells), ``components`` (the data files),
``district`` (building rules), ``player`` (what a seat owns), ``scoring`` (cards
and end scoring), ``state`` (the flow of a game), ``hidden`` (what a seat cannot
see, for resampling), ``views`` (what a seat sees, log sentences), ``text``
(terminal rendering), ``greedy`` (a simple bot used to check the component set).
"""

from __future__ import annotations

from collections.abc import Mapping

from ludothek.engine import Game, State

from .components import load
from .rules import CarpeDiemState


class CarpeDiemGame(Game):
    id = "carpediem"
    title = {"de": "Carpe Diem", "en": "Carpe Diem"}
    min_players = 2
    max_players = 4
    rules_version = "1"
    options = ()

    def _new_state(self, num_players: int, options: dict[str, str]) -> State:
        return CarpeDiemState(self, num_players, options, load())

    def item_name(self, item: str, lang: str, options: Mapping[str, str] | None = None) -> str | None:
        """A building tile: its id and what is on it, as the log names it (``data/tiles.json``)."""
        from .notation import tile_text

        tile = load().tiles.get(item)
        return tile_text(tile, lang) if tile is not None else None


GAME = CarpeDiemGame()

__all__ = ["GAME", "CarpeDiemGame", "CarpeDiemState"]
