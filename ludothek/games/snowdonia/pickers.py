"""Compact pickers for Snowdonia's decisions with many combinations.

The stock yard alone can offer 35 ways of taking cubes, the workshop seven conversions and a build
site several ways of paying; a contract moves a worker to one of 16 spaces.  Contracts themselves
(windows, taking, keeping) are picked on the cards the board draws, not here.  Instead of one sentence button per way, the board shows one picker:
the player clicks cubes (or a site and its substitutes) and confirms.  The picker data is built
here, from the legal actions only, so a picker can never offer an illegal action; the portal
renders it generically (``templates/boards/_picker.html``, ``static/pickers.js``).

Each picker is a dict: ``id``, ``title``, ``bases`` (what is picked first, e.g. a build site; a
single empty base when nothing is), ``tokens`` (the countable things, e.g. cubes) and ``options``
(one per legal action: its ``base``, its token ``counts`` and its sentence ``text``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .notation import CUBE_WORDS, WEATHER_WORDS, daffodils_text

if TYPE_CHECKING:
    from .rules import SnowdoniaState

TITLES = {
    "take": {"de": "Klötzchen vom Lagerplatz wählen", "en": "Pick cubes from the stock yard"},
    "work": {"de": "In der Werkstatt umwandeln", "en": "Convert in the workshop"},
    "build": {"de": "Bauplatz oder Lok wählen, dann den Ersatz", "en": "Pick a site or train, then substitutes"},
    "convert_stone": {"de": "Wie oft 2 Geröll in 1 Stein tauschen?", "en": "How often to turn 2 rubble into 1 stone?"},
    "convert_steel": {"de": "Wie oft 2 Eisen in 1 Stahl tauschen?", "en": "How often to turn 2 iron into 1 steel?"},
    "swap": {"de": "Welche Scheibe kommt in die Mitte der Vorhersage?", "en": "Which disc goes to the middle of the forecast?"},
    "move": {"de": "Welchen Arbeiter wohin versetzen?", "en": "Move which worker where?"},
    "maint": {"de": "Wie wartest du deine Lok?", "en": "How do you maintain your train?"},
}
TIMES = {"de": "mal", "en": "times"}
WEATHER_ICONS = {"sun": "☀", "rain": "☂", "fog": "≋"}
#: The choices under contracts and trains, each a plain choice of one of a few short labels.
CHOICES = ("swap", "move", "maint")
TOKEN_HINTS = {
    "steel": {"de": "Stahl (aus Eisen)", "en": "steel (from iron)"},
    "stone": {"de": "Stein (aus 2 Geröll)", "en": "stone (from 2 rubble)"},
    "rubble": {"de": "2 Geröll statt 1 Stein", "en": "2 rubble for 1 stone"},
    "iron": {"de": "Eisen statt Stahl", "en": "iron for steel"},
    "smash": {"de": "Stein zertrümmern (zu 2 Geröll)", "en": "smash stone (into 2 rubble)"},
}


def _counts(combo: str) -> dict[str, int]:
    if combo in ("", "nothing"):
        return {}
    return dict(Counter(p for p in combo.split("+") if p))


def _token(key: str, lang: str, hint: bool) -> dict[str, str]:
    label = TOKEN_HINTS[key][lang] if hint and key in TOKEN_HINTS else CUBE_WORDS[lang][key]
    return {"key": key, "label": label}


def _combo_picker(pid: str, legal: list[str], prefix: str, token_keys: tuple[str, ...], lang: str,
                  describe: Callable[[str], str], hint: bool = False) -> dict[str, Any] | None:
    actions = [a for a in legal if a.startswith(prefix)]
    if len(actions) < 2:
        return None
    options = [{"action": a, "base": "", "counts": _counts(a[len(prefix):]), "text": describe(a)} for a in actions]
    used = {k for o in options for k in o["counts"]}
    return {"id": pid, "title": TITLES[pid][lang], "bases": [{"key": "", "label": ""}],
            "tokens": [_token(k, lang, hint) for k in token_keys if k in used], "options": options}


def _build_picker(state: SnowdoniaState, legal: list[str], lang: str,
                  describe: Callable[[str], str]) -> dict[str, Any] | None:
    actions = [a for a in legal if a.startswith(("build:", "train:"))]
    if len(actions) < 2:
        return None
    options = []
    bases: dict[str, str] = {}
    for a in actions:
        head, *subs = a.split("+")
        options.append({"action": a, "base": head, "counts": dict(Counter(subs)), "text": describe(a)})
        bases.setdefault(head, _base_label(state, head, lang))
    used = {k for o in options for k in o["counts"]}
    return {"id": "build", "title": TITLES["build"][lang],
            "bases": [{"key": k, "label": v} for k, v in bases.items()],
            "tokens": [_token(k, lang, True) for k in ("rubble", "iron") if k in used], "options": options}


def _base_label(state: SnowdoniaState, head: str, lang: str) -> str:
    verb, _, arg = head.partition(":")
    if verb == "train":
        train = state.scen.trains[int(arg)]
        return f"{'Lok' if lang == 'de' else 'Train'} No.{arg} {train.name}"
    key, _, idx = arg.partition(".")
    station = next(s for s in state.lay.stations if s.key == key)
    site = station.build_sites[int(idx) - 1]
    if site.daffodils:
        cost = daffodils_text(site.daffodils, lang)
    elif site.stone:
        cost = f"{site.stone} {CUBE_WORDS[lang]['stone']}"
    else:
        cost = f"{site.steel} {CUBE_WORDS[lang]['steel']}"
    return f"{station.name} {idx} ({cost})"


def _count_picker(kind: str, legal: list[str], lang: str, describe: Callable[[str], str]) -> dict[str, Any] | None:
    """How often to convert (``convert:N``): one token counted from 0 up to the most allowed."""
    actions = [a for a in legal if a.startswith("convert:")]
    if len(actions) < 2:
        return None
    options = [{"action": a, "base": "", "counts": {"times": int(a[8:])} if int(a[8:]) else {}, "text": describe(a)}
               for a in actions]
    return {"id": kind, "title": TITLES[kind][lang], "bases": [{"key": "", "label": ""}],
            "tokens": [{"key": "times", "label": TIMES[lang]}], "options": options}


def _choice_label(state: SnowdoniaState, action: str, lang: str) -> str:
    verb, _, arg = action.partition(":")
    words = CUBE_WORDS[lang]
    if verb == "swap":
        return f"{WEATHER_ICONS.get(arg, '')} {WEATHER_WORDS[lang].get(arg, arg)}"
    if verb == "move":
        a, _, b = arg.partition(">")
        return f"{a} → {b}"
    if arg == "steel":
        return f"1 {words['steel']}" if lang == "en" else f"1 {words['steel']} abgeben"
    if arg == "lose":
        return "give the train back" if lang == "en" else "Lok zurückgeben"
    return f"{'discard contract' if lang == 'en' else 'Auftrag abwerfen'} #{arg}"


def _choice_picker(kind: str, state: SnowdoniaState, legal: list[str], lang: str,
                   describe: Callable[[str], str]) -> dict[str, Any] | None:
    """One of a few choices (swap a weather disc, move a worker, train maintenance) by short labels."""
    if len(legal) < 2:
        return None
    return {"id": kind, "title": TITLES[kind][lang],
            "bases": [{"key": a, "label": _choice_label(state, a, lang)} for a in legal], "tokens": [],
            "options": [{"action": a, "base": a, "counts": {}, "text": describe(a)} for a in legal]}


def pickers(state: SnowdoniaState, legal: list[str], lang: str, describe: Callable[[str], str]) -> list[dict[str, Any]]:
    """The pickers for the decision now open (none when the plain buttons are few enough)."""
    d = state.decision
    if d is None or not legal:
        return []
    kind = d["kind"]
    found: dict[str, Any] | None = None
    if kind in ("take", "take_two"):
        found = _combo_picker("take", legal, "take:", ("iron", "stone", "coal"), lang, describe)
    elif kind == "work":
        found = _combo_picker("work", legal, "work:", ("steel", "stone", "smash"), lang, describe, hint=True)
    elif kind == "build":
        found = _build_picker(state, legal, lang, describe)
    elif kind in ("convert_stone", "convert_steel"):
        found = _count_picker(kind, legal, lang, describe)
    elif kind in CHOICES:
        found = _choice_picker(kind, state, legal, lang, describe)
    elif kind in ("window", "keep", "contract") and len(legal) >= 2:
        # picked on the contract cards the board draws (not a generic picker): the portal folds the
        # sentence list away as for any picker
        found = {"id": "contracts", "kind": "cards", "actions": list(legal)}
    return [found] if found else []
