"""Scoring cards and the final scoring, as pure functions of a player's holdings.

A card is fulfilled as often as the player can (the issue's reading of the
rules), or with 3 bread once more (or instead); green cards only ask to
*own* things, red cards take the wares, with coins standing in for any ware.
Payment spends the wares shown first and coins only for what is missing:
a coin can stand in for every ware, so keeping coins is never worse.
"""

from __future__ import annotations

from collections.abc import Mapping

from .components import WARES, ComponentSet, ScoringCard
from .district import District


def owned_times(card: ScoringCard, district: District) -> int:
    """How often a green card's requirement is met by the district."""
    return min(district.count(item) // n for item, n in card.need)


def payable_times(card: ScoringCard, wares: Mapping[str, int], coins: int) -> int:
    """How often a red card can be paid from ``wares`` with ``coins`` filling gaps."""
    times = 0
    while True:
        t = times + 1
        missing = sum(max(0, n * t - wares.get(w, 0)) for w, n in card.need)
        if missing > coins:
            return times
        times = t


def pay(card: ScoringCard, times: int, wares: dict[str, int], coins: int) -> int:
    """Take ``times`` × the card's wares from ``wares`` (changed in place); returns coins left."""
    for w, n in card.need:
        due = n * times
        use = min(due, wares.get(w, 0))
        wares[w] = wares.get(w, 0) - use
        coins -= due - use
    assert coins >= 0
    return coins


def card_times(card: ScoringCard, district: District, wares: Mapping[str, int], coins: int) -> int:
    if card.colour == "green":
        return owned_times(card, district)
    return payable_times(card, wares, coins)


def leftover_items(wares: Mapping[str, int], coins: int, bread: int, stored: int) -> int:
    return sum(wares.get(w, 0) for w in WARES) + coins + bread + stored


def fountain_vp(comp: ComponentSet, cards: list[str], district: District) -> int:
    """Points of a player's fountain cards: each kind pays per item it counts (both copies score)."""
    total = 0
    for kind in cards:
        fk = comp.fountains[kind]
        total += fk.vp_each * district.count(fk.counts)
    return total
