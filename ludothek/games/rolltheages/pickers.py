"""Compact pickers for Roll Through the Ages: buying a development and placing workers.

A purchase can be paid in many ways (``buy:leadership:wood+pottery``), and workers go to a city or a
monument in any number (``work:step_pyramid:3``): dozens of sentence buttons.  The pickers let a player
pick the development (or target) first, then the goods rows (or the number of workers), and confirm.
For a purchase, the cheapest payment (least value spent) is preselected.  Data shape: see
``ludothek/games/snowdonia/pickers.py``; built from the legal actions only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ludothek.engine import pick

from .components import GOOD_IDS, GOOD_INDEX, GOODS
from .notation import FOOD, development_name, item_name, target_name

if TYPE_CHECKING:
    from .rules import RollState

TITLES = {
    "buy": {"de": "Errungenschaft wählen, dann womit du bezahlst", "en": "Pick a development, then how to pay"},
    "work": {"de": "Ziel wählen, dann wie viele Arbeiter", "en": "Pick a target, then how many workers"},
}
WORKERS = {"de": "Arbeiter", "en": "workers"}


def _payment(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in filter(None, text.split("+")):
        if item.endswith(FOOD):
            counts[FOOD] = int(item[: -len(FOOD)])
        else:
            counts[item] = 1
    return counts


def _buy_picker(state: RollState, legal: list[str], lang: str, describe: Callable[[str], str]) -> dict[str, Any] | None:
    actions = [a for a in legal if a.startswith("buy:")]
    if len(actions) < 2:
        return None
    board = state.boards[state.active]
    per_food = board.param("granaries", "coins_per_food")

    def spent(counts: dict[str, int]) -> int:
        rows = sum(GOODS[GOOD_INDEX[g]].values[board.goods[GOOD_INDEX[g]]] for g in counts if g != FOOD)
        return rows + counts.get(FOOD, 0) * per_food

    options: list[dict[str, Any]] = []
    for a in actions:
        _, dev, *rest = a.split(":")
        options.append({"action": a, "base": dev, "counts": _payment(rest[0] if rest else ""), "text": describe(a)})
    cheapest: dict[str, dict[str, Any]] = {}
    for o in options:
        best = cheapest.get(o["base"])
        if best is None or spent(o["counts"]) < spent(best["counts"]):
            cheapest[o["base"]] = o
    for o in cheapest.values():
        o["preset"] = True
    used = {k for o in options for k in o["counts"]}
    bases = list(dict.fromkeys(o["base"] for o in options))
    return {"id": "buy", "title": TITLES["buy"][lang],
            "bases": [{"key": b, "label": development_name(b, lang)} for b in bases],
            "tokens": [{"key": k, "label": item_name(k, lang)} for k in (*GOOD_IDS, FOOD) if k in used],
            "options": options}


def _work_picker(state: RollState, legal: list[str], lang: str, describe: Callable[[str], str]) -> dict[str, Any] | None:
    actions = [a for a in legal if a.startswith("work:")]
    if len(actions) < 2:
        return None
    board = state.boards[state.active]
    options: list[dict[str, Any]] = []
    for a in actions:
        _, target, n = a.split(":")
        options.append({"action": a, "base": target, "counts": {"workers": int(n)}, "text": describe(a)})
    bases: list[str] = list(dict.fromkeys(a.split(":")[1] for a in actions))
    return {"id": "work", "title": TITLES["work"][lang],
            "bases": [{"key": b, "label": target_name(b, board.cities + 1, lang)} for b in bases],
            "tokens": [{"key": "workers", "label": pick(WORKERS, lang)}], "options": options}


def pickers(state: RollState, legal: list[str], lang: str, describe: Callable[[str], str]) -> list[dict[str, Any]]:
    """The pickers for the active player's phase (buying or building)."""
    found = [_buy_picker(state, legal, lang, describe), _work_picker(state, legal, lang, describe)]
    return [p for p in found if p]
