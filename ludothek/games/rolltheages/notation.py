"""Action strings of Roll Through the Ages and the dice outcome tables.

Dice are identical, so a roll is recorded as the multiset of faces that came
up, written in the canonical face order ``G F S X C W`` (1 good, 3 food,
2 goods + skull, 2 food or 2 workers, 7 coins, 3 workers): ``dice:F+S+W``.
Listing multisets instead of ordered faces keeps a 7-dice roll at 792
outcomes instead of 279 936, with their true (multinomial) probabilities.
Every action string is documented in ``docs/games/rolltheages.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache
from itertools import combinations_with_replacement, product
from math import factorial, prod

from .components import FACE_IDS, FACE_RANK, GOOD_IDS, MAX_CITIES

#: Trade items: the five goods and food.
FOOD = "food"
TRADE_ITEMS: tuple[str, ...] = (*GOOD_IDS, FOOD)
TRADE_INDEX: dict[str, int] = {item: i for i, item in enumerate(TRADE_ITEMS)}

CITY = "city"


def sort_faces(faces: Iterable[str]) -> list[str]:
    """Faces in canonical order."""
    return sorted(faces, key=FACE_RANK.__getitem__)


def faces_text(faces: Iterable[str]) -> str:
    """``F+S+W`` for a (sorted) sequence of faces."""
    return "+".join(faces)


def dice_action(faces: Iterable[str]) -> str:
    return "dice:" + faces_text(sort_faces(faces))


@cache
def roll_outcomes(k: int) -> tuple[tuple[str, float], ...]:
    """Every outcome of rolling ``k`` dice as ``(action, probability)``, in canonical order."""
    outcomes: list[tuple[str, float]] = []
    total = 6**k
    for combo in combinations_with_replacement(FACE_IDS, k):
        counts = Counter(combo).values()
        ways = factorial(k) // prod(factorial(c) for c in counts)
        outcomes.append(("dice:" + "+".join(combo), ways / total))
    return tuple(outcomes)


@cache
def roll_outcome_faces(k: int) -> dict[str, tuple[str, ...]]:
    """``action -> faces`` for the outcomes of rolling ``k`` dice."""
    return {action: tuple(action[5:].split("+")) for action, _ in roll_outcomes(k)}


@cache
def _roll_actions(k: int) -> tuple[str, ...]:
    return tuple(action for action, _ in roll_outcomes(k))


def roll_actions(k: int) -> list[str]:
    """The ``dice:`` actions for rolling ``k`` dice (a fresh list)."""
    return list(_roll_actions(k))


@cache
def _all_outcome_faces() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for k in range(1, MAX_CITIES + 1):
        table.update(roll_outcome_faces(k))
    return table


def parse_dice(action: str) -> tuple[str, ...] | None:
    """The faces of a well-formed ``dice:`` action in canonical order, else ``None``."""
    return _all_outcome_faces().get(action)


@cache
def sub_multisets(faces: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every non-empty sub-multiset of sorted ``faces``, each in canonical order (cached: do not mutate)."""
    counts = Counter(faces)
    kinds = [f for f in FACE_IDS if counts[f]]
    result: list[tuple[str, ...]] = []
    for takes in product(*(range(counts[f] + 1) for f in kinds)):
        if any(takes):
            result.append(tuple(f for f, t in zip(kinds, takes, strict=True) for _ in range(t)))
    return result


def payment_text(rows: Iterable[str], food: int) -> str:
    """``cloth+metal`` or ``stone+3food``: the goods rows and food a purchase spends."""
    items = list(rows)
    if food:
        items.append(f"{food}{FOOD}")
    return "+".join(items)
