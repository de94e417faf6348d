"""Pickers for Carpe Diem's scoring round and fountain draws.

In a scoring round the player resolves the due cards one at a time (so picking a card first is picking
the order), each in a mode (``fulfil``, ``bread``, ``both``, ``fail``) and, for a red card, how often
it is handed in (``card:7:fulfil:1``; plain ``fulfil`` is the most).  The picker lists card and mode
first, then the number of times, with the most preselected.  At a fountain the player picks which card
goes back, each named.  Data shape: see ``ludothek/games/snowdonia/pickers.py``; built from the legal
actions only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .notation import name

if TYPE_CHECKING:
    from .rules import CarpeDiemState

MODES = {"fulfil": ("erfüllen", "fulfil"), "bread": ("mit 3 Broten", "with 3 bread"),
         "both": ("erfüllen + 3 Brote", "fulfil + 3 bread"), "fail": ("nicht erfüllen (−4)", "fail (−4)")}
TITLES = {"card": ("Karte und Art wählen, dann wie oft", "Pick a card and how, then how often"),
          "fountain": ("Welche Brunnenkarte legst du zurück?", "Which fountain card goes back?")}
TIMES = ("mal", "times")


def _t(pair: tuple[str, str], lang: str) -> str:
    return pair[0] if lang == "de" else pair[1]


def _card_picker(legal: list[str], lang: str, describe: Callable[[str], str]) -> dict[str, Any] | None:
    actions = [a for a in legal if a.startswith("card:")]
    if len(actions) < 2:
        return None
    parsed = [(a, *a.split(":")[1:]) for a in actions]
    most: dict[str, int] = {}
    for _, slot, mode, *n in parsed:
        if n:
            most[f"{slot}:{mode}"] = max(most.get(f"{slot}:{mode}", 0), int(n[0]) + 1)
    options: list[dict[str, Any]] = []
    for a, slot, mode, *n in parsed:
        base = f"{slot}:{mode}"
        counts = {"times": int(n[0])} if n else ({"times": most[base]} if base in most else {})
        options.append({"action": a, "base": base, "counts": counts, "text": describe(a),
                        "preset": not n})  # the most is what a player usually wants
    bases: list[str] = list(dict.fromkeys(f"{slot}:{mode}" for _, slot, mode, *_n in parsed))
    card = "Karte" if lang == "de" else "card"
    return {"id": "card", "title": _t(TITLES["card"], lang),
            "bases": [{"key": b, "label": f"{card} {b.split(':')[0]}: {_t(MODES[b.split(':')[1]], lang)}"} for b in bases],
            "tokens": [{"key": "times", "label": _t(TIMES, lang)}] if most else [], "options": options}


def _fountain_picker(state: CarpeDiemState, legal: list[str], lang: str,
                     describe: Callable[[str], str]) -> dict[str, Any] | None:
    actions = [a for a in legal if a.startswith("return:")]
    if len(actions) < 2:
        return None
    seat = state.current_player()
    kept = state.players[seat].fountains
    back = "zurück" if lang == "de" else "put back"
    new, old = ("neu", "behalten") if lang == "de" else ("new", "kept")
    options, bases = [], []
    for a in actions:
        which = a.split(":")[1]
        i = int(which[3:]) - 1
        kind = state.fdrawn[i] if which.startswith("new") else kept[i]
        label = f"{back}: {name(kind, lang)} ({new if which.startswith('new') else old})"
        bases.append({"key": which, "label": label})
        options.append({"action": a, "base": which, "counts": {}, "text": describe(a)})
    return {"id": "fountain", "title": _t(TITLES["fountain"], lang), "bases": bases, "tokens": [], "options": options}


def pickers(state: CarpeDiemState, legal: list[str], lang: str, describe: Callable[[str], str]) -> list[dict[str, Any]]:
    """The card picker in a scoring round, the fountain picker at a fountain draw."""
    found = [_card_picker(legal, lang, describe), _fountain_picker(state, legal, lang, describe)]
    return [p for p in found if p]
