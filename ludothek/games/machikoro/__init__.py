"""Machi Koro (Kosmos 2014) for Ludothek: the base game with the Yucata ending and the Kosmos variants.

``GAME`` is the registered game object.  The rules live in `rules`, the
component data in ``data/cards.json`` (read by `cards`), the action notation
and the log sentences in `notation`, views in `views`, the board's template,
JS and CSS in ``web/`` and the terminal rendering in `text`.  See ``docs/games/machikoro.md``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ludothek.engine import Game, Option, State

from .rules import MachiKoroState


class MachiKoroGame(Game):
    """Machi Koro: 2-4 players build a city with dice and cards."""

    id = "machikoro"
    title = {"de": "Machi Koro", "en": "Machi Koro"}
    min_players = 2
    max_players = 4
    rules_version = "1"
    options = (
        Option(
            "ending",
            ("yucata", "kosmos"),
            "yucata",
            {"de": "Spielende", "en": "Ending"},
            {
                "yucata": {
                    "de": "Yucata: ausspielen bis nur noch einer übrig ist",
                    "en": "Yucata: play on until one player is left",
                },
                "kosmos": {
                    "de": "Kosmos: wer zuerst 4 Großprojekte hat, gewinnt",
                    "en": "Kosmos: the first to complete 4 landmarks wins",
                },
            },
        ),
        Option(
            "market",
            ("all", "komme_was_wolle"),
            "all",
            {"de": "Auslage", "en": "Market"},
            {
                "all": {"de": "Alle Unternehmen liegen aus", "en": "Every establishment on display"},
                "komme_was_wolle": {
                    "de": "Komme, was wolle: gemischter Stapel, 10 Sorten in der Auslage",
                    "en": "Come what may: shuffled deck, 10 kinds on display",
                },
            },
        ),
        Option(
            "max_two",
            ("off", "on"),
            "off",
            {"de": "Höchstens 2 je Unternehmen", "en": "At most 2 of each establishment"},
            {
                "off": {"de": "aus", "en": "off"},
                "on": {"de": "an (Tipp für die ersten Spiele)", "en": "on (beginners' tip)"},
            },
        ),
    )

    def _new_state(self, num_players: int, options: dict[str, str]) -> State:
        return MachiKoroState(self, num_players, options)

    def item_name(self, item: str, lang: str, options: Mapping[str, str] | None = None) -> str | None:
        """An establishment's or landmark's name as the cards show it (``data/cards.json``)."""
        from .cards import ESTABLISHMENTS, LANDMARKS

        for card in ESTABLISHMENTS:
            if card.id == item:
                return card.name(lang)
        for mark in LANDMARKS:
            if mark.id == item:
                return mark.name(lang)
        return None


GAME = MachiKoroGame()

__all__ = ["GAME", "MachiKoroGame", "MachiKoroState"]
