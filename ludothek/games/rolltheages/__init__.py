"""Roll Through the Ages: The Bronze Age (Gryphon Games 2008), as played on Yucata.de.

Options beyond Yucata: ``mode=solo`` (the 10-round solo game) and ``trade=on``
(the trade variant).  Rules: ``rules.py``; tables: ``data/``; notation:
``notation.py`` and ``docs/games/rolltheages.md``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ludothek.engine import Game, InvalidOptions, Option, State, pick

from .rules import RollState


class RollThroughTheAges(Game):
    id = "rolltheages"
    title = {"de": "Roll Through the Ages: Die Bronzezeit", "en": "Roll Through the Ages: The Bronze Age"}
    min_players = 1
    max_players = 4
    rules_version = "1"
    options = (
        Option(
            "mode",
            ("normal", "solo"),
            "normal",
            {"de": "Spielart", "en": "Mode"},
            {
                "normal": {"de": "2–4 Spieler (Yucata)", "en": "2–4 players (Yucata)"},
                "solo": {"de": "Solospiel (10 Runden)", "en": "Solo game (10 rounds)"},
            },
        ),
        Option(
            "trade",
            ("off", "on"),
            "off",
            {"de": "Handelsspiel", "en": "Trade game"},
            {
                "off": {"de": "ohne Handel (Yucata)", "en": "no trading (Yucata)"},
                "on": {"de": "mit Handelsphase", "en": "with a trade phase"},
            },
        ),
    )

    def check_options(self, num_players: int, options: dict[str, str]) -> None:
        if options["mode"] == "solo":
            if num_players != 1:
                raise InvalidOptions(f"the solo game is for exactly 1 player, not {num_players}", "solo_alone",
                                     n=num_players)
            if options["trade"] == "on":
                raise InvalidOptions("the trade game needs at least 2 players; it cannot be combined with solo",
                                     "solo_trade")
        elif not 2 <= num_players <= 4:
            raise InvalidOptions(
                f"Roll Through the Ages is for 2 to 4 players, not {num_players} (1 player: choose mode=solo)",
                "alone_needs_solo", low=2, high=4, n=num_players,
            )

    def _new_state(self, num_players: int, options: dict[str, str]) -> State:
        return RollState(self, num_players, options)

    def item_name(self, item: str, lang: str, options: Mapping[str, str] | None = None) -> str | None:
        """A development's or (``monument:ID``) monument's name from ``data/``, as the board shows it."""
        from .components import DEVELOPMENT_BY_ID, MONUMENT_BY_ID

        head, _, rest = item.partition(":")
        found = MONUMENT_BY_ID.get(rest) if head == "monument" else DEVELOPMENT_BY_ID.get(item)
        return pick(found.name, lang) if found is not None else None


GAME = RollThroughTheAges()

__all__ = ["GAME", "RollState", "RollThroughTheAges"]
