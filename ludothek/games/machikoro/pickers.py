"""Picker data for Machi Koro's choices on the cards: the Business Center trade and the TV Station.

A trade (``trade:A:N:B``) is picked on the cities themselves: first one of your establishments, then
the other player's, then confirm (``web/machikoro.js``).  The TV Station's buttons sit on the
other cities and say how many coins they really take (5, or all the target has when that is less).
Built from the legal actions only, so nothing illegal is offered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .cards import ESTABLISHMENTS, TV_STATION

if TYPE_CHECKING:
    from .rules import MachiKoroState

TV_AMOUNT = ESTABLISHMENTS[TV_STATION].amount


def pickers(state: MachiKoroState, legal: list[str], lang: str, describe: Callable[[str], str]) -> list[dict[str, Any]]:
    """``trade`` (each legal trade split into give / owner / take) and ``tv`` (coins per target seat)."""
    found: list[dict[str, Any]] = []
    trades = [a for a in legal if a.startswith("trade:")]
    if trades:
        found.append({"id": "trade", "kind": "cards", "trades": [
            dict(zip(("give", "owner", "take"), a.split(":")[1:], strict=True), action=a, text=describe(a))
            for a in trades]})
    tv = [a for a in legal if a.startswith("tv:")]
    if tv:
        targets = {}
        for a in tv:
            seat = int(a.split(":")[1]) - 1
            targets[seat] = {"action": a, "coins": min(TV_AMOUNT, state.coins(seat)), "text": describe(a)}
        found.append({"id": "tv", "kind": "targets", "targets": targets})
    return found
