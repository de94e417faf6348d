"""What a seat sees, and the log sentence for every action, in German and English.

Views hide exactly what the table hides: other players' fountain cards (until
the end), the cards a player is looking at, and other players' stored tiles.
Points are public, with the running total as Yucata shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ludothek.engine import score_part, seat_name

from .components import ScoringCard, Tile
from .geometry import HALF_NAMES, cell_name, frame_line, parse_cell

if TYPE_CHECKING:
    from .state import CarpeDiemState

NAMES: dict[str, tuple[str, str]] = {  # item: (de, en)
    "grapes": ("Trauben", "grapes"), "herbs": ("Kräuter", "herbs"), "chicken": ("Hühner", "chickens"),
    "fish": ("Fische", "fish"), "coins": ("Münzen", "coins"), "bread": ("Brote", "bread"),
    "vp": ("Siegpunkte", "points"), "steps": ("Banderolenschritte", "banner steps"),
    "pond": ("Teich", "pond"), "vineyard": ("Weinberg", "vineyard"), "garden": ("Garten", "garden"),
    "chicken_yard": ("Hühnerhof", "chicken yard"), "administrator": ("Verwalter-Unterkunft", "administrator dwelling"),
    "merchant": ("Händler-Unterkunft", "merchant dwelling"), "baker": ("Bäcker-Unterkunft", "baker dwelling"),
    "craftsman": ("Handwerker-Unterkunft", "craftsman dwelling"), "villa": ("Villa", "villa"),
    "market": ("Markt", "market"), "bakery": ("Backstube", "bakery"), "fountain": ("Brunnen", "fountain"),
    "landscapes": ("Landschaften", "landscapes"), "dwellings": ("Unterkünfte", "dwellings"),
    "chimneys": ("Schornsteine", "chimneys"),
}
#: Roof colours; only yellow (merchant) is confirmed by the rules page's example.
DWELLING_COLOURS = {"administrator": "blue", "merchant": "yellow", "baker": "orange", "craftsman": "green"}
SIDE_NAMES = {"de": ("oben", "rechts", "unten", "links"), "en": ("top", "right", "bottom", "left")}


def name(item: str, lang: str) -> str:
    de, en = NAMES.get(item, (item, item))
    return de if lang == "de" else en


def player(seat: int, lang: str) -> str:
    """The seat's player name (see `ludothek.engine.seat_name`)."""
    return seat_name(seat, lang)


def card_text(card: ScoringCard, lang: str) -> str:
    need = " + ".join(f"{n} {name(k, lang)}" for k, n in card.need)
    reward = " + ".join(f"{n} {name(k, lang)}" for k, n in card.reward)
    if card.colour == "red":
        return f"gib {need} ab → {reward}" if lang == "de" else f"pay {need} → {reward}"
    return f"besitze {need} → {reward}" if lang == "de" else f"own {need} → {reward}"


def tile_text(tile: Tile, lang: str) -> str:
    parts = []
    for part in tile.parts:
        text = name(part.kind, lang)
        if part.chimneys:
            text += f" ({part.chimneys} {name('chimneys', lang)})"
        parts.append(text)
    return f"{tile.id} ({' + '.join(parts)})"


def tile_json(tile: Tile) -> dict[str, Any]:
    return {
        "id": tile.id, "back": tile.back,
        "parts": [{"kind": p.kind, "at": [HALF_NAMES[h] for h in p.halves], "chimneys": p.chimneys,
                   "colour": DWELLING_COLOURS.get(p.kind)} for p in tile.parts],
        "rotations": [o.rotation for o in tile.orientations],
        "labels": {str(o.rotation): list(o.labels) for o in tile.orientations},
    }


def card_json(card: ScoringCard) -> dict[str, Any]:
    return {"id": card.id, "letter": card.letter, "colour": card.colour, "need": dict(card.need),
            "reward": dict(card.reward), "text": {"de": card_text(card, "de"), "en": card_text(card, "en")}}


def final_breakdown(state: CarpeDiemState, seat: int) -> dict[str, int]:
    """The parts of a final score: as in the running total, plus leftovers and fountain cards."""
    from . import scoring

    p = state.players[seat]
    d = p.district
    leftovers = scoring.leftover_items(p.wares, p.coins, p.bread, len(p.stored))
    return {
        "cards": p.vp, "banner": p.steps, "frame": d.frame_vp(), "villas": d.villa_vp(),
        "leftovers": leftovers // state.comp.rules.leftover_divisor,
        "fountains": scoring.fountain_vp(state.comp, p.fountains, d),
    }


_PART_LABELS = {
    "cards": ("Wertungskarten", "scoring cards"),
    "villas": ("Villen", "villas"),
    "banner": ("Bannerleiste", "banner track"),
    "frame": ("Rahmenziele", "frame goals"),
    "fountains": ("Brunnenkarten", "fountain cards"),
    "leftovers": ("Restbestände", "leftovers"),
}


def breakdown(state: CarpeDiemState) -> list[dict[str, Any]]:
    """Each seat's final score in its parts: cards, villas, banner track, frame goals, fountains, leftovers."""
    out = []
    for r in state.result():
        parts = final_breakdown(state, r.seat)
        out.append({"seat": r.seat, "rank": r.rank, "total": r.score,
                    "parts": [score_part(k, *_PART_LABELS[k], parts[k]) for k in _PART_LABELS]})
    return out


def build_view(state: CarpeDiemState, seat: int | None) -> dict[str, Any]:
    comp = state.comp
    ended = state.stage == "end"
    seen_tiles: set[str] = set()
    players = []
    order = state.banner_order() if state.players else []
    L = comp.rules.banner_track_length
    for s, p in enumerate(state.players):
        d = p.district
        board = comp.boards[d.board]
        cells = []
        for c, entry in enumerate(d.cells):
            if entry:
                seen_tiles.add(entry[0])
                cells.append({"cell": cell_name(c), "tile": entry[0], "rotation": entry[1]})
        frame = []
        for side, fid in enumerate(d.frame):
            goals = []
            for gi, g in enumerate(comp.frames[fid].goals):
                line_kind, line_index = frame_line(side, g.position)
                goals.append({"position": g.position, "kind": g.kind, "vp": g.vp, "line": [line_kind, line_index],
                              "done": [side, gi] in [list(x) for x in d.goals_done]})
            frame.append({"side": side, "part": fid, "goals": goals})
        own = seat == s
        entry_view: dict[str, Any] = {
            "seat": s,
            "total": state.running_total(s),
            "vp": p.vp, "banner_vp": p.steps, "frame_vp": d.frame_vp(), "villa_vp": d.villa_vp(),
            "wares": dict(p.wares), "coins": p.coins, "bread": p.bread, "discs": p.discs,
            "patrician": p.pos + 1 if p.pos is not None else None,
            "stored_count": len(p.stored),
            "fountain_count": len(p.fountains),
            "banner": {"steps": p.steps, "space": min(p.steps, L), "order": order.index(s)},
            "district": {
                "board": d.board, "shovel": cell_name(board.shovel),
                "banners": sorted(cell_name(c) for c in board.banners),
                "banners_open": sorted(cell_name(c) for c in board.banners if d.cells[c] is None),
                "cells": cells, "frame": frame,
                "features": [{"kind": f.kind, "cells": [cell_name(c) for c in f.cells], "chimneys": f.chimneys}
                             for f in d.features],
                "counts": dict(sorted(d.counts.items())),
            },
        }
        if own:
            entry_view["stored"] = list(p.stored)
            seen_tiles.update(p.stored)
        if own or ended:
            entry_view["fountains"] = list(p.fountains)
        if ended and state.final is not None:
            entry_view["final"] = state.final[s]
            entry_view["final_breakdown"] = final_breakdown(state, s)
        players.append(entry_view)
    for space in state.rondel:
        seen_tiles.update(space)
    seen_tiles.update(t for t in state.seal if t)
    if state.held:
        seen_tiles.add(state.held)
    slots = []
    for k in range(1, len(state.slots)):
        cid = state.slots[k]
        slots.append({"slot": k, "card": card_json(comp.cards[cid]) if cid else None})
    circles = [{"name": f"{a}-{b}", "cards": [a, b], "disc": state.discs.get(f"{a}-{b}"),
                "usable": state.slots[a] is not None and state.slots[b] is not None}
               for a, b in state.circles()]
    view: dict[str, Any] = {
        "game": "carpediem",
        "provisional": comp.provisional,
        "stage": state.stage,
        "to_move": state.current_player(),
        "seat": seat,
        "pass": state.pass_no + 1,
        "round": min(state.turn_index // state.num_players + 1, comp.rules.rondel_spaces),
        "start_player": state.start if state.start >= 0 else None,
        "pass_start": (state.start + state.pass_no) % state.num_players if state.start >= 0 else None,
        "rondel": [{"space": i + 1, "tiles": list(t), "patricians": [s for s, p in enumerate(state.players)
                                                                    if p.pos == i]}
                   for i, t in enumerate(state.rondel)],
        "seal": list(state.seal),
        "held": state.held,
        "cards": slots,
        "grid": [comp.rules.grid_rows, comp.rules.grid_cols],
        "circles": circles,
        "cards_due": list(state.cards_due) if state.stage == "card" else [],
        "fountain_deck": state.fountain_deck_size(),
        "players": players,
        "banner_order": order,
        "breakdown": breakdown(state) if ended and state.final is not None else None,
    }
    if seat is not None and state.stage in ("fdraw", "freturn") and state.actor == seat:
        view["looking_at"] = list(state.fdrawn)
    view["tiles"] = {t: tile_json(comp.tiles[t]) for t in sorted(seen_tiles)}
    return view


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
    mode, _, count = mode.partition(":")
    if mode == "fail":
        pen = state.comp.rules.penalty
        return (f"{who} erfüllt Karte {slot} nicht und verliert {pen} Siegpunkte." if de
                else f"{who} cannot fulfil card {slot} and loses {pen} points.")
    times = 0
    if mode in ("fulfil", "both"):
        times = int(count) if count else scoring.card_times(card, p.district, p.wares, p.coins)
    if mode in ("bread", "both"):
        times += 1
    reward = " + ".join(f"{n * times} {name(k, lang)}" for k, n in card.reward)
    bread = (" (mit 3 Broten)" if de else " (with 3 bread)") if mode in ("bread", "both") else ""
    return (f"{who} erfüllt Karte {slot} {times}×{bread}: {reward}." if de
            else f"{who} fulfils card {slot} {times}×{bread}: {reward}.")
