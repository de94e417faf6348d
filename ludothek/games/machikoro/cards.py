"""Machi Koro's components, loaded once from ``data/cards.json``, and the lookup tables the rules use.

The rules engine works on small integers (a kind is its index in the card
table, a landmark is one bit), so everything it needs per die sum is
precomputed here: which cards of each colour a sum activates and how much
each pays.  That keeps a roll's income down to a few list lookups.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

_DATA: dict[str, Any] = json.loads(
    resources.files(__package__).joinpath("data", "cards.json").read_text(encoding="utf-8")
)

BLUE, GREEN, RED, PURPLE = "blue", "green", "red", "purple"


@dataclass(frozen=True)
class Establishment:
    """One kind of establishment card."""

    index: int
    id: str
    de: str
    en: str
    colour: str
    icon: str
    cost: int
    rolls: tuple[int, ...]
    effect: str
    amount: int
    supply: int
    start: int
    per_icon: str | None

    def name(self, lang: str) -> str:
        return self.de if lang == "de" else self.en


@dataclass(frozen=True)
class Landmark:
    """One of the four landmarks (Großprojekte); ``bit`` is its flag in a player's landmark mask."""

    index: int
    id: str
    de: str
    en: str
    cost: int
    effect: str
    bit: int

    def name(self, lang: str) -> str:
        return self.de if lang == "de" else self.en


ESTABLISHMENTS: tuple[Establishment, ...] = tuple(
    Establishment(
        index=i,
        id=e["id"],
        de=e["de"],
        en=e["en"],
        colour=e["colour"],
        icon=e["icon"],
        cost=e["cost"],
        rolls=tuple(e["rolls"]),
        effect=e["effect"],
        amount=e["amount"],
        supply=e["supply"],
        start=e["start"],
        per_icon=e.get("per_icon"),
    )
    for i, e in enumerate(_DATA["establishments"])
)
LANDMARKS: tuple[Landmark, ...] = tuple(
    Landmark(index=i, id=m["id"], de=m["de"], en=m["en"], cost=m["cost"], effect=m["effect"], bit=1 << i)
    for i, m in enumerate(_DATA["landmarks"])
)
ICONS: dict[str, dict[str, str]] = _DATA["icons"]
COLOURS: dict[str, dict[str, str]] = _DATA["colours"]

NUM_KINDS = len(ESTABLISHMENTS)
KIND_INDEX: dict[str, int] = {e.id: e.index for e in ESTABLISHMENTS}
LANDMARK_INDEX: dict[str, int] = {m.id: m.index for m in LANDMARKS}


def _landmark_bit(effect: str) -> int:
    return next(m.bit for m in LANDMARKS if m.effect == effect)


TRAIN_STATION = _landmark_bit("two_dice")
SHOPPING_MALL = _landmark_bit("bonus_per_card")
AMUSEMENT_PARK = _landmark_bit("extra_turn_on_doubles")
RADIO_TOWER = _landmark_bit("reroll_once")
ALL_LANDMARKS = sum(m.bit for m in LANDMARKS)

_MALL = next(m for m in _DATA["landmarks"] if m["effect"] == "bonus_per_card")
MALL_ICONS: frozenset[str] = frozenset(_MALL["bonus_icons"])
MALL_BONUS: int = _MALL["amount"]

START_COINS: int = _DATA["start_coins"]
START_CARDS: tuple[int, ...] = tuple(e.start for e in ESTABLISHMENTS)
DISPLAY_KINDS: int = _DATA["komme_was_wolle"]["display_kinds"]
PURPLE_REMOVED: dict[int, int] = {
    int(k): v for k, v in _DATA["komme_was_wolle"]["purple_removed_per_kind"].items()
}
MAX_TWO_LIMIT: int = _DATA["max_two_limit"]
#: The per-kind limit when no limit applies (no player can own more cards than exist).
NO_LIMIT = 1_000

PURPLE_KINDS: tuple[int, ...] = tuple(e.index for e in ESTABLISHMENTS if e.colour == PURPLE)
TRADABLE_KINDS: tuple[int, ...] = tuple(e.index for e in ESTABLISHMENTS if e.colour != PURPLE)
IS_PURPLE: tuple[bool, ...] = tuple(e.colour == PURPLE for e in ESTABLISHMENTS)

STADIUM = next(e.index for e in ESTABLISHMENTS if e.effect == "take_from_each")
TV_STATION = next(e.index for e in ESTABLISHMENTS if e.effect == "take_from_chosen")
BUSINESS_CENTER = next(e.index for e in ESTABLISHMENTS if e.effect == "trade")

MAX_SUM = 12


def _kinds_with_icon(icon: str) -> tuple[int, ...]:
    return tuple(e.index for e in ESTABLISHMENTS if e.icon == icon)


def _mall_flag(e: Establishment) -> int:
    return MALL_BONUS if e.icon in MALL_ICONS else 0


#: Per die sum: red cards as ``(kind, amount, mall bonus)``, in table order.
RED_BY_SUM: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple((e.index, e.amount, _mall_flag(e)) for e in ESTABLISHMENTS if e.colour == RED and s in e.rolls)
    for s in range(MAX_SUM + 1)
)
#: Per die sum: blue cards as ``(kind, amount)``.
BLUE_BY_SUM: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((e.index, e.amount) for e in ESTABLISHMENTS if e.colour == BLUE and s in e.rolls)
    for s in range(MAX_SUM + 1)
)
#: Per die sum: green cards as ``(kind, amount, mall bonus, kinds counted)``; an empty
#: ``kinds counted`` means a flat payment, otherwise ``amount`` per card of those kinds.
GREEN_BY_SUM: tuple[tuple[tuple[int, int, int, tuple[int, ...]], ...], ...] = tuple(
    tuple(
        (e.index, e.amount, _mall_flag(e), _kinds_with_icon(e.per_icon) if e.per_icon else ())
        for e in ESTABLISHMENTS
        if e.colour == GREEN and s in e.rolls
    )
    for s in range(MAX_SUM + 1)
)
#: Per die sum: the purple kinds it activates, in resolution order (table order).
PURPLE_BY_SUM: tuple[tuple[int, ...], ...] = tuple(
    tuple(e.index for e in ESTABLISHMENTS if e.colour == PURPLE and s in e.rolls) for s in range(MAX_SUM + 1)
)
#: Establishments ordered by cost, so a build list can stop at the first unaffordable one.
KINDS_BY_COST: tuple[Establishment, ...] = tuple(sorted(ESTABLISHMENTS, key=lambda e: (e.cost, e.index)))
LANDMARKS_BY_COST: tuple[Landmark, ...] = tuple(sorted(LANDMARKS, key=lambda m: (m.cost, m.index)))


def raw_data() -> dict[str, Any]:
    """The parsed data file (for documentation and tests)."""
    return _DATA
