"""What a seat sees, in German and English (the log sentences are in `notation`).

Views hide exactly what the table hides: other players' fountain cards (until
the end), the cards a player is looking at, and other players' stored tiles.
Points are public, with the running total as Yucata shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ludothek.engine import score_part

from .components import ScoringCard, Tile
from .geometry import HALF_NAMES, cell_name, frame_line
from .notation import card_text

if TYPE_CHECKING:
    from .rules import CarpeDiemState

#: Roof colours; only yellow (merchant) is confirmed by the rules page's example.
DWELLING_COLOURS = {"administrator": "blue", "merchant": "yellow", "baker": "orange", "craftsman": "green"}


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
