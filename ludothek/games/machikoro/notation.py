"""Machi Koro's action notation (documented in ``docs/games/machikoro.md``).

Actions are stored in game records, so these strings are stable:

=====================  ==========================================================
``roll:1`` ``roll:2``  roll one or two dice (a choice only with the Train Station)
``dice:4``             chance: one die shows 4
``dice:3+4``           chance: two dice show 3 and 4 (smaller first; ``dice:5+5`` is doubles)
``keep`` ``reroll``    Radio Tower: keep the roll or roll again
``tv:N``               TV Station: take coins from player N (1..n, seat + 1)
``trade:A:N:B``        Business Center: give your A to player N for their B
``notrade``            Business Center: decline the trade
``build:ID``           build an establishment or landmark (``build:cafe``, ``build:train_station``)
``pass``               build nothing
``draw:ID``            chance ("Komme, was wolle"): the top card of the deck is ID
=====================  ==========================================================

Every fixed string is made once here, so the engine hands out and compares the
same string objects instead of formatting new ones on every turn.
"""

from __future__ import annotations

from .cards import ESTABLISHMENTS, KIND_INDEX, LANDMARK_INDEX, LANDMARKS

PASS = "pass"
KEEP = "keep"
REROLL = "reroll"
NOTRADE = "notrade"
ROLL_ONE = "roll:1"
ROLL_TWO = "roll:2"

#: ``build:ID`` for each establishment (by kind index) and landmark (by landmark index).
BUILD_KIND: tuple[str, ...] = tuple(f"build:{e.id}" for e in ESTABLISHMENTS)
BUILD_LANDMARK: tuple[str, ...] = tuple(f"build:{m.id}" for m in LANDMARKS)
DRAW_KIND: tuple[str, ...] = tuple(f"draw:{e.id}" for e in ESTABLISHMENTS)

#: Chance outcomes with one die, and with two dice as the 21 unordered pairs.
ONE_DIE: tuple[str, ...] = tuple(f"dice:{a}" for a in range(1, 7))
TWO_DICE: tuple[str, ...] = tuple(f"dice:{a}+{b}" for a in range(1, 7) for b in range(a, 7))
ONE_DIE_OUTCOMES: tuple[tuple[str, float], ...] = tuple((a, 1 / 6) for a in ONE_DIE)
TWO_DICE_OUTCOMES: tuple[tuple[str, float], ...] = tuple(
    (f"dice:{a}+{b}", (1 if a == b else 2) / 36) for a in range(1, 7) for b in range(a, 7)
)
#: ``dice:...`` -> (first die, second die or 0).
DICE_VALUES: dict[str, tuple[int, int]] = {f"dice:{a}": (a, 0) for a in range(1, 7)} | {
    f"dice:{a}+{b}": (a, b) for a in range(1, 7) for b in range(a, 7)
}

#: ``build:ID`` -> (is landmark, index).
BUILD_TARGET: dict[str, tuple[bool, int]] = {s: (False, i) for i, s in enumerate(BUILD_KIND)} | {
    s: (True, i) for i, s in enumerate(BUILD_LANDMARK)
}
DRAW_TARGET: dict[str, int] = {s: i for i, s in enumerate(DRAW_KIND)}

#: ``tv:N`` for each seat (N = seat + 1).
TV_TARGET: tuple[str, ...] = tuple(f"tv:{seat + 1}" for seat in range(8))


#: ``trade:A:N:B`` by (give kind, seat, take kind), made once.
TRADE_ACTION: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(
        tuple(f"trade:{give.id}:{seat + 1}:{take.id}" for take in ESTABLISHMENTS)
        for seat in range(len(TV_TARGET))
    )
    for give in ESTABLISHMENTS
)


def tv_action(seat: int) -> str:
    return TV_TARGET[seat]


def trade_action(give: int, seat: int, take: int) -> str:
    return TRADE_ACTION[give][seat][take]


def parse_tv(action: str) -> int | None:
    """The target seat of ``tv:N``, or ``None`` if malformed."""
    if not action.startswith("tv:"):
        return None
    text = action[3:]
    if not text.isdigit() or text.startswith("0") or len(text) > 1:
        return None
    return int(text) - 1


def parse_trade(action: str) -> tuple[int, int, int] | None:
    """``(give kind, seat, take kind)`` of ``trade:A:N:B``, or ``None`` if malformed."""
    parts = action.split(":")
    if len(parts) != 4 or parts[0] != "trade":
        return None
    give, seat, take = KIND_INDEX.get(parts[1]), parse_tv("tv:" + parts[2]), KIND_INDEX.get(parts[3])
    if give is None or seat is None or take is None:
        return None
    return give, seat, take


def parse_build(action: str) -> tuple[bool, int] | None:
    return BUILD_TARGET.get(action)


def kind_of(card_id: str) -> int | None:
    return KIND_INDEX.get(card_id)


def landmark_of(card_id: str) -> int | None:
    return LANDMARK_INDEX.get(card_id)
