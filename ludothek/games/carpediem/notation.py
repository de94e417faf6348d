"""Carpe Diem's log sentences for every action, in German and English, and the names they use.

The views (`views`), pickers and terminal view name things the same way, so they take the names from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ludothek.engine import seat_name
from ludothek.engine.plural import Noun

from .components import ScoringCard, Tile
from .geometry import parse_cell

if TYPE_CHECKING:
    from .rules import CarpeDiemState

#: Every item a card, tile or district counts, with its forms for one and for more (see `count`).
NOUNS: dict[str, Noun] = {
    "grapes": Noun(de=("Traube", "Trauben"), en=("grape", "grapes")),
    "herbs": Noun(de=("Kräuter", "Kräuter"), en=("herb", "herbs")),  # the seed: "1 Kräuter", the ware's name
    "chicken": Noun(de=("Huhn", "Hühner"), en=("chicken", "chickens")),
    "fish": Noun(de=("Fisch", "Fische"), en=("fish", "fish")),
    "coins": Noun(de=("Münze", "Münzen"), en=("coin", "coins")),
    "bread": Noun(de=("Brot", "Brote"), en=("bread", "bread")),
    "vp": Noun(de=("Siegpunkt", "Siegpunkte"), en=("point", "points")),
    "steps": Noun(de=("Banderolenschritt", "Banderolenschritte"), en=("banner step", "banner steps")),
    "pond": Noun(de=("Teich", "Teiche"), en=("pond", "ponds")),
    "vineyard": Noun(de=("Weinberg", "Weinberge"), en=("vineyard", "vineyards")),
    "garden": Noun(de=("Garten", "Gärten"), en=("garden", "gardens")),
    "chicken_yard": Noun(de=("Hühnerhof", "Hühnerhöfe"), en=("chicken yard", "chicken yards")),
    "administrator": Noun(de=("Verwalter-Unterkunft", "Verwalter-Unterkünfte"),
                          en=("administrator dwelling", "administrator dwellings")),
    "merchant": Noun(de=("Händler-Unterkunft", "Händler-Unterkünfte"), en=("merchant dwelling", "merchant dwellings")),
    "baker": Noun(de=("Bäcker-Unterkunft", "Bäcker-Unterkünfte"), en=("baker dwelling", "baker dwellings")),
    "craftsman": Noun(de=("Handwerker-Unterkunft", "Handwerker-Unterkünfte"),
                      en=("craftsman dwelling", "craftsman dwellings")),
    "villa": Noun(de=("Villa", "Villen"), en=("villa", "villas")),
    "market": Noun(de=("Markt", "Märkte"), en=("market", "markets")),
    "bakery": Noun(de=("Backstube", "Backstuben"), en=("bakery", "bakeries")),
    "fountain": Noun(de=("Brunnen", "Brunnen"), en=("fountain", "fountains")),
    "landscapes": Noun(de=("Landschaft", "Landschaften"), en=("landscape", "landscapes")),
    "dwellings": Noun(de=("Unterkunft", "Unterkünfte"), en=("dwelling", "dwellings")),
    "chimneys": Noun(de=("Schornstein", "Schornsteine"), en=("chimney", "chimneys")),
}
#: Items whose name alone (a heading, a fountain card, a finished feature) is the plural: the wares and groups.
PLURAL_NAMES = frozenset({"grapes", "herbs", "chicken", "fish", "coins", "bread", "vp", "steps", "landscapes",
                          "dwellings", "chimneys"})
SIDE_NAMES = {"de": ("oben", "rechts", "unten", "links"), "en": ("top", "right", "bottom", "left")}


def name(item: str, lang: str) -> str:
    """The item's name on its own: wares in the plural ("Trauben"), a building in the singular ("Villa")."""
    noun = NOUNS.get(item)
    if noun is None:
        return item
    return noun.label(lang) if item in PLURAL_NAMES else noun.word(1, lang)


def count(n: int, item: str, lang: str) -> str:
    """``n`` of ``item`` in the right form: "1 Münze", "2 Villen", "1 banner step"."""
    noun = NOUNS.get(item)
    return noun.count(n, lang) if noun is not None else f"{n} {item}"


def player(seat: int, lang: str) -> str:
    """The seat's player name (see `ludothek.engine.seat_name`)."""
    return seat_name(seat, lang)


def card_text(card: ScoringCard, lang: str) -> str:
    need = " + ".join(count(n, k, lang) for k, n in card.need)
    reward = " + ".join(count(n, k, lang) for k, n in card.reward)
    if card.colour == "red":
        return f"gib {need} ab → {reward}" if lang == "de" else f"pay {need} → {reward}"
    return f"besitze {need} → {reward}" if lang == "de" else f"own {need} → {reward}"


def tile_text(tile: Tile, lang: str) -> str:
    parts = []
    for part in tile.parts:
        text = name(part.kind, lang)
        if part.chimneys:
            text += f" ({count(part.chimneys, 'chimneys', lang)})"
        parts.append(text)
    return f"{tile.id} ({' + '.join(parts)})"


def describe(state: CarpeDiemState, action: str, lang: str = "en") -> str:
    de = lang == "de"
    head, _, arg = action.partition(":")
    who = player(state.actor, lang) if state.actor >= 0 else ""
    comp = state.comp
    if head == "start":
        return f"{player(int(arg), lang)} beginnt." if de else f"{player(int(arg), lang)} starts."
    if head == "board":
        s = len(state.pending_boards)
        return f"{player(s, lang)} erhält Bau-Tableau {arg}." if de else f"{player(s, lang)} gets building board {arg}."
    if head == "frame":
        s = next(i for i in range(state.num_players) if len(state.pending_frames[i]) < 4)
        side = SIDE_NAMES["de" if de else "en"][len(state.pending_frames[s])]
        goals = ", ".join(f"{name(g.kind, lang)} {g.vp}" for g in comp.frames[arg].goals)
        if de:
            return f"{player(s, lang)} erhält Rahmenteil {arg} ({side}; Aufgaben: {goals})."
        return f"{player(s, lang)} gets frame part {arg} ({side}; goals: {goals})."
    if head == "card" and state.stage == "deal":
        slot = state.deal_slots[sum(1 for x in state.slots if x is not None)]
        text = card_text(comp.cards[arg], lang)
        return f"Wertungskarte {arg} auf Feld {slot}: {text}." if de else f"Scoring card {arg} on space {slot}: {text}."
    if head == "tile":
        t = tile_text(comp.tiles[arg], lang)
        if state.reveal_target == "seal":
            return f"Siegelfeld: {t}." if de else f"Seal space: {t}."
        rules = comp.rules
        number = (rules.rondel_spaces * rules.tiles_per_space - state.reveal_left) // rules.tiles_per_space + 1
        return f"Feld {number}: {t}." if de else f"Space {number}: {t}."
    if head == "fountain":
        return f"{who} sieht die Brunnenkarte {name(arg, lang)}." if de else f"{who} looks at fountain card {name(arg, lang)}."
    if head == "place":
        return f"{who} stellt den Patrizier auf Feld {arg}." if de else f"{who} puts the patrician on space {arg}."
    if head == "move":
        space, _, bread = arg.partition(":")
        if bread:
            return (f"{who} gibt 1 Brot ab und setzt den Patrizier auf Feld {space}." if de
                    else f"{who} pays 1 bread and puts the patrician on space {space}.")
        return f"{who} zieht auf Feld {space}." if de else f"{who} moves to space {space}."
    if head == "take":
        t = tile_text(comp.tiles[arg], lang)
        return f"{who} nimmt {t}." if de else f"{who} takes {t}."
    if head == "store":
        return f"{who} legt das Plättchen verdeckt aufs Lagerfeld." if de else f"{who} stores the tile face down."
    if head == "build":
        return _describe_build(state, arg, lang)
    if head in ("return", "keep"):
        if head == "keep":
            return f"{who} behält die Brunnenkarte." if de else f"{who} keeps the fountain card."
        if arg.startswith("old"):
            return (f"{who} behält beide neuen Brunnenkarten und legt eine ältere zurück." if de
                    else f"{who} keeps both new fountain cards and puts an older one back.")
        return (f"{who} behält eine Brunnenkarte und legt die andere zurück." if de
                else f"{who} keeps one fountain card and puts the other back.")
    if head == "seal":
        t = tile_text(comp.tiles[arg], lang)
        return f"{who} nimmt vom Siegelfeld {t}." if de else f"{who} takes {t} from the seal spaces."
    if head == "disc":
        a, b = arg.split("-")
        return (f"{who} legt eine Scheibe zwischen die Karten {a} und {b}." if de
                else f"{who} puts a disc between cards {a} and {b}.")
    if head == "card":
        return _describe_card(state, arg, lang)
    return action


def _describe_build(state: CarpeDiemState, arg: str, lang: str) -> str:
    de = lang == "de"
    who = player(state.actor, lang)
    cell, _, rot = arg.partition(":")
    assert state.held is not None
    tile = state.comp.tiles[state.held]
    district = state.players[state.actor].district.copy()
    done = district.place(tile, int(rot), parse_cell(cell))
    text = (f"{who} baut {tile_text(tile, lang)} auf {cell}, gedreht um {rot}°" if de
            else f"{who} builds {tile_text(tile, lang)} on {cell}, turned {rot}°")
    if done:
        names = ", ".join(f"{name(f.kind, lang)} ({len(f.cells)})" for f in done)
        text += f"; fertig: {names}" if de else f"; completes: {names}"
    return text + "."


def _describe_card(state: CarpeDiemState, arg: str, lang: str) -> str:
    from . import scoring

    de = lang == "de"
    who = player(state.actor, lang)
    slot_text, _, mode = arg.partition(":")
    slot = int(slot_text)
    card = state.card(slot)
    p = state.players[state.actor]
    mode, _, times_text = mode.partition(":")
    if mode == "fail":
        pen = state.comp.rules.penalty
        return (f"{who} erfüllt Karte {slot} nicht und verliert {count(pen, 'vp', lang)}." if de
                else f"{who} cannot fulfil card {slot} and loses {count(pen, 'vp', lang)}.")
    times = 0
    if mode in ("fulfil", "both"):
        times = int(times_text) if times_text else scoring.card_times(card, p.district, p.wares, p.coins)
    if mode in ("bread", "both"):
        times += 1
    reward = " + ".join(count(n * times, k, lang) for k, n in card.reward)
    bread = (" (mit 3 Broten)" if de else " (with 3 bread)") if mode in ("bread", "both") else ""
    return (f"{who} erfüllt Karte {slot} {times}×{bread}: {reward}." if de
            else f"{who} fulfils card {slot} {times}×{bread}: {reward}.")
