"""Shared set-up for the Carpe Diem tests: games with chosen chance outcomes, and test tiles."""

from __future__ import annotations

import dataclasses
from typing import Any

from ludothek.games.carpediem import GAME
from ludothek.games.carpediem.components import ComponentSet, FramePart, Goal, _tiles, load
from ludothek.games.carpediem.geometry import parse_cell
from ludothek.games.carpediem.rules import CarpeDiemState


def new_game(
    n: int = 2,
    start: int = 0,
    boards: tuple[str, ...] = ("I", "II", "III", "IV"),
    places: tuple[int, ...] | None = None,
) -> CarpeDiemState:
    """A game after setup: chosen start player and boards, frames F01.. in order,
    cards, seal and rondel tiles as the first legal outcome each time."""
    state = GAME.new_state(n)
    assert isinstance(state, CarpeDiemState)
    state.apply_action(f"start:{start}")
    for b in boards[:n]:
        state.apply_action(f"board:{b}")
    for i in range(4 * n):
        state.apply_action(f"frame:F{i + 1:02d}")
    while state.stage == "deal":
        state.apply_action(state.legal_actions()[0])
    for space in places or tuple(range(1, n + 1)):
        state.apply_action(f"place:{space}")
    while state.stage == "reveal":
        state.apply_action(state.legal_actions()[0])
    return state


def comp_with(tiles: list[dict[str, Any]], frames: dict[str, list[Goal]] | None = None) -> ComponentSet:
    """The shipped set plus hand-made test tiles (ids must start with T) and frame parts."""
    comp = load()
    extra = _tiles({"tiles": [{"back": "light", **t} for t in tiles]})
    parts = dict(comp.frames)
    for fid, goals in (frames or {}).items():
        parts[fid] = FramePart(fid, tuple(goals))
    return dataclasses.replace(comp, tiles={**comp.tiles, **extra}, frames=parts)


def use_comp(state: CarpeDiemState, comp: ComponentSet) -> None:
    state.comp = comp
    for p in state.players:
        p.district.comp = comp


def put(state: CarpeDiemState, seat: int, tile: str, cell: str, rotation: int = 0) -> None:
    """Lay a tile without any reward: arranging a district for a scenario."""
    d = state.players[seat].district
    t = state.comp.tiles[tile]
    orient = t.orientation(rotation)
    assert orient is not None and d.fits(orient, parse_cell(cell)), (tile, cell, rotation)
    d.place(t, rotation, parse_cell(cell))


def build(state: CarpeDiemState, seat: int, tile: str, cell: str, rotation: int = 0) -> None:
    """Hand ``seat`` the tile as if just taken and build it with the real action."""
    state.stage = "build"
    state.actor = seat
    state.held = tile
    state.apply_action(f"build:{cell}:{rotation}", seat=seat)


def enter_scoring(state: CarpeDiemState) -> None:
    """Jump to the scoring round at the end of the current pass."""
    state.turn_index = state.comp.rules.rondel_spaces * state.num_players - 1
    state.stage = "move"
    state.pending = []
    state.rondel = [[] for _ in state.rondel]
    state._end_turn()
