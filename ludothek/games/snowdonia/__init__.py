"""Snowdonia (Tony Boydell, 2012) for Ludothek: the Mount Snowdon game for 1 to 5 players.

``GAME`` is the registered game object.  Component data is in ``data/``
(read by `components`), the route in `route`, the actions A-G in `work`, contracts
and events in `effects`, the round flow and the engine contract in `rules`,
the optimal contract scoring in `scoring`, the view in `view`, log sentences
in `notation` and the terminal rendering in `text`.  See
``docs/games/snowdonia.md``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ludothek.engine import Game, InvalidOptions, Option, State

from .components import MAPS, scenario
from .rules import SnowdoniaState

#: Lobby labels of the maps (option ``map``).
MAP_LABELS = {
    "mount_snowdon": {"de": "Mount Snowdon (Grundspiel)", "en": "Mount Snowdon (base game)"},
    "blaenau_ffestiniog": {"de": "Blaenau Ffestiniog (Variante)", "en": "Blaenau Ffestiniog (variant)"},
    "daffodil_line": {"de": "Daffodil Line (Szenario, 1–4 Spieler)", "en": "Daffodil Line (scenario, 1–4 players)"},
}


class SnowdoniaGame(Game):
    """Snowdonia: build the mountain railway up Snowdon with workers, weather and contracts."""

    id = "snowdonia"
    title = {"de": "Snowdonia", "en": "Snowdonia"}
    min_players = 1
    max_players = 5
    rules_version = "1"
    options = (
        Option("map", MAPS, "mount_snowdon", {"de": "Spielplan", "en": "Map"}, MAP_LABELS),
        Option(
            "solo_train",
            tuple(str(i) for i in range(1, 8)),
            "1",
            {"de": "Solospiel: Partie der Serie (Lok)", "en": "Solo: game of the series (train)"},
            {
                str(i): {"de": f"Partie {i} mit Lok No. {i}", "en": f"Game {i} with train No. {i}"}
                for i in range(1, 8)
            },
        ),
    )

    def check_options(self, num_players: int, options: dict[str, str]) -> None:
        chosen = options["map"]
        try:
            scen = scenario(chosen)
        except KeyError:
            raise InvalidOptions(
                f"the map {chosen!r} cannot be played yet: its rules are not implemented", "map_unavailable"
            ) from None
        if num_players > scen.max_players:
            raise InvalidOptions(
                f"the map {chosen!r} is for 1 to {scen.max_players} players, not {num_players}"
                + (" (the yellow markers are the daffodils)" if scen.daffodil else ""),
                "map_players", high=scen.max_players, n=num_players,
            )
        if num_players > 1 and options["solo_train"] != "1":
            raise InvalidOptions("the solo series option (solo_train) only applies to a game with 1 player",
                                 "solo_train_alone")

    def _new_state(self, num_players: int, options: dict[str, str]) -> State:
        return SnowdoniaState(self, num_players, options)

    def item_name(self, item: str, lang: str, options: Mapping[str, str] | None = None) -> str | None:
        """``train:N``: the train's number and name; ``contract:N``: the contract's number and text (the map's
        own cards, ``data/``), worded as the log names them."""
        head, _, number = item.partition(":")
        try:
            scen = scenario((options or {}).get("map", "mount_snowdon"))
            if head == "train":
                name = scen.trains[int(number)].name
                return f"Lok {number} ({name})" if lang == "de" else f"Train {number} ({name})"
            if head == "contract":
                card = scen.contracts[int(number)]
                text = card.text["de" if lang == "de" else "en"]
                return f"Auftrag #{number}: {text}" if lang == "de" else f"Contract #{number}: {text}"
        except (KeyError, ValueError, IndexError):
            return None
        return None


GAME = SnowdoniaGame()

__all__ = ["GAME", "SnowdoniaGame", "SnowdoniaState"]
