"""A terminal rendering of a Machi Koro position, built only from ``state.view(seat)``."""

from __future__ import annotations

from typing import Any

from ludothek.engine import State, seat_name
from ludothek.engine.core import check_lang

from .cards import COLOURS, ESTABLISHMENTS, LANDMARKS
from .notation import COIN

_KINDS = {e.id: e for e in ESTABLISHMENTS}
_MARKS = {"active": "[x]", "built": "[+]", "unbuilt": "[ ]"}

_WORDS = {
    "de": {
        "player": "Spieler",
        "you": "du",
        "city": "Stadt",
        "landmarks": "Großprojekte",
        "market": "Auslage",
        "deck": "Nachziehstapel",
        "in_deck": "in Klammern: davon noch im Nachziehstapel",
        "cost": "Kosten",
        "turn": "am Zug",
        "extra": "Extrazug (Freizeitpark)",
        "dice": "Letzter Wurf",
        "finished": "fertig, Platz",
        "over": "Spielende",
        "rank": "Platz",
        "empty": "  (leer)",
        "legend": "[x] in Kraft  [+] gebaut, ab dem nächsten Zug  [ ] nicht gebaut",
        "nothing": "(keine Unternehmen)",
    },
    "en": {
        "player": "Player",
        "you": "you",
        "city": "City",
        "landmarks": "Landmarks",
        "market": "Market",
        "deck": "Deck",
        "in_deck": "in brackets: still in the deck",
        "cost": "cost",
        "turn": "to move",
        "extra": "extra turn (Amusement Park)",
        "dice": "Last roll",
        "finished": "finished, place",
        "over": "Game over",
        "rank": "place",
        "empty": "  (empty)",
        "legend": "[x] in effect  [+] built, works from the next turn  [ ] not built",
        "nothing": "(no establishments)",
    },
}


def _name(card_id: str, lang: str) -> str:
    if card_id in _KINDS:
        return _KINDS[card_id].name(lang)
    return next(m.name(lang) for m in LANDMARKS if m.id == card_id)


def _card_label(card_id: str, lang: str) -> str:
    e = _KINDS[card_id]
    rolls = "-".join(str(r) for r in (e.rolls[0], e.rolls[-1])) if len(e.rolls) > 1 else str(e.rolls[0])
    return f"{e.name(lang)} ({COLOURS[e.colour][lang]}, {rolls})"


def _city_lines(city: dict[str, Any], view: dict[str, Any], lang: str) -> list[str]:
    w = _WORDS[lang]
    seat = city["seat"]
    title = seat_name(seat, lang)
    if seat == view["you"]:
        title += f" ({w['you']})"
    if seat == view["turn"] and view["to_move"] != -4:
        title += f" - {w['turn']}"
        if view["extra_turn"]:
            title += f", {w['extra']}"
    if city["place"] is not None:
        title += f" - {w['finished'] if city['finished'] else w['rank']} {city['place']}"
    coins = city["coins"]
    lines = [f"{title}: {COIN.count(coins, lang)}"]
    marks = "  ".join(f"{_MARKS[state]} {_name(lm, lang)}" for lm, state in city["landmarks"].items())
    lines.append(f"  {w['landmarks']}: {marks}")
    owned = ", ".join(f"{n}x {_card_label(card, lang)}" for card, n in city["establishments"].items())
    lines.append(f"  {w['city']}: {owned or w['nothing']}")
    return lines


def render(state: State, seat: int | None, lang: str = "en") -> str:
    """What ``seat`` sees (``None``: a spectator), as plain text in ``lang``."""
    check_lang(lang)
    w = _WORDS[lang]
    view = state.view(seat)
    cities = view["cities"]
    order = sorted(cities, key=lambda c: (c["seat"] != seat, c["seat"]))
    lines: list[str] = []
    for city in order:
        lines.extend(_city_lines(city, view, lang))
    lines.append(w["legend"])
    market = view["market"]
    deck_by_kind = market.get("deck_by_kind")
    piles = []
    for card_id, count in market["piles"].items():
        e = _KINDS[card_id]
        extra = f" ({deck_by_kind[card_id]})" if deck_by_kind is not None else ""
        if count or deck_by_kind is not None:
            piles.append(f"  {count:>2}{extra:<5} {_card_label(card_id, lang):<48} {w['cost']} {e.cost}")
    header = f"{w['market']}:"
    if "deck" in market:
        header += f"  {w['deck']}: {market['deck']} ({w['in_deck']})"
    lines.append(header)
    lines.extend(piles or [w["empty"]])
    if view["dice"]:
        dice = view["dice"]
        lines.append(
            f"{w['dice']}: {' + '.join(map(str, dice))}" + (f" = {sum(dice)}" if len(dice) == 2 else "")
        )
    if view["result"] is not None:
        ranking = sorted(view["result"], key=lambda r: (r["rank"], r["seat"]))
        lines.append(
            f"{w['over']}: " + ", ".join(f"{r['rank']}. {seat_name(r['seat'], lang)}" for r in ranking)
        )
    return "\n".join(lines)
