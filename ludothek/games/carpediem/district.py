"""One player's district: the 6×6 building board inside its frame, and the rules of building.

Placement: the first tile goes on the shovel; every later tile touches an
earlier one along a full side; everything that touches must match (the frame
is meadow); tiles may be turned.  After a placement, the parts of the new tile
are followed across the district to find features that just became complete
(no half-side of theirs faces an empty cell any more).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from .components import DWELLINGS, LANDSCAPES, SINGLES, VILLA, ComponentSet, Orientation, Part, Tile
from .geometry import CELLS, FACING, NEIGHBOURS, frame_line, on_line

MEADOW = ""
T = TypeVar("T")

#: What a tile on a cell must show, packed into one int (see `District._needs`): per side (N, E, S, W,
#: 17 bits each) the code of the pair of labels that side must show, 0 where nothing constrains it.
Needs = int
_SIDE_BITS = 17
_SIDE_MASK = (1 << _SIDE_BITS) - 1

#: Labels interned as small numbers (meadow is 0), for the side codes.
_LABEL_IDS: dict[str, int] = {MEADOW: 0}


def _pair_code(a: str, b: str) -> int:
    """The code of a side showing label ``a`` then ``b`` (never 0)."""
    ia = _LABEL_IDS.setdefault(a, len(_LABEL_IDS))
    ib = _LABEL_IDS.setdefault(b, len(_LABEL_IDS))
    return (ia << 8 | ib) + 1


FRAME_CODE = _pair_code(MEADOW, MEADOW)

#: Per orientation (by identity, kept alive here): the code each of its sides shows, the code a
#: neighbour on each side must show to match it (the halves face each other in reverse order), and
#: that code already shifted to where it sits in the neighbour's `Needs` (what this tile "pushes"
#: onto the neighbour on its side N, E, S, W).
Codes = tuple[Orientation, tuple[int, ...], tuple[int, ...], tuple[int, ...]]
_CODES: dict[int, Codes] = {}


def _codes(orient: Orientation) -> Codes:
    found = _CODES.get(id(orient))
    if found is None or found[0] is not orient:
        labels = orient.labels
        own = tuple(_pair_code(labels[2 * s], labels[2 * s + 1]) for s in range(4))
        facing = tuple(_pair_code(labels[2 * s + 1], labels[2 * s]) for s in range(4))
        push = tuple(facing[s] << (_SIDE_BITS * ((s + 2) % 4)) for s in range(4))
        found = _CODES[id(orient)] = (orient, own, facing, push)
    return found


#: What the frame alone asks of each cell (meadow towards it), and each cell's neighbours as
#: (neighbour, the neighbour's side that faces the cell).
FRAME_NEEDS: tuple[Needs, ...] = tuple(
    sum(FRAME_CODE << (_SIDE_BITS * side) for side in range(4) if NEIGHBOURS[cell][side] is None)
    for cell in range(CELLS)
)
FACING_NEIGHBOURS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((n, (side + 2) % 4) for side, n in enumerate(NEIGHBOURS[cell]) if n is not None) for cell in range(CELLS)
)


#: Needs are interned: each distinct pattern gets the bits its constrained sides occupy ("care") and
#: one shared dictionary of answers, tile id → the rotations of that tile that satisfy it, as a mask
#: (bit ``rotation // 90``).  Patterns come back all game long, so a placement search is mostly
#: look-ups by short keys.  Tiles and needs are immutable, so the answers never go stale; the cache is
#: emptied if it ever grows large.
_FITTING: dict[Needs, tuple[int, dict[str, int]]] = {}
_FITTING_MAX = 20_000


def _answers(needs: Needs) -> tuple[int, dict[str, int]]:
    """The care mask and the shared answer dictionary of a needs pattern (interned)."""
    found = _FITTING.get(needs)
    if found is None:
        if len(_FITTING) >= _FITTING_MAX:
            _FITTING.clear()
        care = 0
        for side in range(4):
            if (needs >> (_SIDE_BITS * side)) & _SIDE_MASK:
                care |= _SIDE_MASK << (_SIDE_BITS * side)
        found = _FITTING[needs] = (care, {})
    return found


#: Per tile (by identity, kept alive here): each distinct orientation as (its rotation's mask bit,
#: the codes of its four sides packed like `Needs`), so a fit is one ``&`` and one ``==``; and the
#: orientation of each rotation (symmetric tiles map several rotations to one picture only once).
TileInfo = tuple[Tile, tuple[tuple[int, int], ...], dict[int, Orientation]]
_TILE_INFO: dict[int, TileInfo] = {}


def _tile_info(tile: Tile) -> TileInfo:
    found = _TILE_INFO.get(id(tile))
    if found is None or found[0] is not tile:
        if len(_TILE_INFO) >= _FITTING_MAX:
            _TILE_INFO.clear()
        table = []
        for orient in tile.orientations:
            own = _codes(orient)[1]
            packed = 0
            for side in range(4):
                packed |= own[side] << (_SIDE_BITS * side)
            table.append((1 << (orient.rotation // 90), packed))
        by_rotation = {o.rotation: o for o in tile.orientations}
        found = _TILE_INFO[id(tile)] = (tile, tuple(table), by_rotation)
    return found


def _tile_sides(tile: Tile) -> tuple[tuple[int, int], ...]:
    return _tile_info(tile)[1]


#: ``LINE_CELLS[side][position]``: the cells on the board line a frame goal at ``position`` (1..6) of
#: the frame part on ``side`` points along (see `frame_line`); index 0 is unused.
LINE_CELLS: tuple[tuple[frozenset[int], ...], ...] = tuple(
    (frozenset(), *(frozenset(c for c in range(CELLS) if on_line(c, frame_line(side, pos))) for pos in range(1, 7)))
    for side in range(4)
)


def _fit_mask(tile: Tile, needs: Needs, care: int) -> int:
    """The rotations of ``tile`` whose sides show every code of ``needs``, as a mask (bit ``rotation // 90``)."""
    mask = 0
    for bit, packed in _tile_sides(tile):
        if packed & care == needs:
            mask |= bit
    return mask


#: ``PAIRS_BY_MASK[cell][mask]``: the (cell, rotation) pairs a rotation mask stands for, in rotation order.
PAIRS_BY_MASK: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
    tuple(tuple((cell, 90 * q) for q in range(4) if mask >> q & 1) for mask in range(16)) for cell in range(CELLS)
)

#: An open cell: the cell, what a tile there must show, which bits of that count, and the shared
#: answers for that pattern (see `_answers`).
OpenCell = tuple[int, Needs, int, dict[str, int]]


@dataclass
class Feature:
    """A completed feature: its family, kind, the cells it covers and its chimneys."""

    family: str  # landscape, dwelling, villa, single
    kind: str
    cells: list[int]
    chimneys: int = 0

    def to_json(self) -> dict[str, object]:
        return {"family": self.family, "kind": self.kind, "cells": list(self.cells), "chimneys": self.chimneys}


class District:
    """The tiles built by one player, with what is complete and which frame goals are met."""

    __slots__ = ("_built_since", "_open", "board", "cells", "comp", "counts", "features", "frame", "goals_done",
                 "orient", "placed")

    def __init__(self, comp: ComponentSet, board: str, frame: list[str]):
        self.comp = comp
        self.board = board
        self.frame = frame  # frame part ids on sides top, right, bottom, left
        self.cells: list[tuple[str, int] | None] = [None] * CELLS
        self.orient: list[Orientation | None] = [None] * CELLS
        self.features: list[Feature] = []
        self.goals_done: list[tuple[int, int]] = []  # (side, goal index)
        self.counts: dict[str, int] = {}
        self.placed = 0
        #: The frontier with each cell's needed labels (see `_needs`, interned by `_answers`), in cell
        #: order, as of some build;
        #: `_built_since` lists the cells built after it (see `_frontier_needs`).  Both are never
        #: changed in place, so copies share them.
        self._open: tuple[OpenCell, ...] | None = None
        self._built_since: tuple[int, ...] = ()

    def copy(self) -> District:
        other = District.__new__(District)
        other.comp = self.comp
        other.board = self.board
        other.frame = list(self.frame)
        other.cells = list(self.cells)
        other.orient = list(self.orient)
        other.features = list(self.features)  # features are never changed after completion
        other.goals_done = list(self.goals_done)
        other.counts = dict(self.counts)
        other.placed = self.placed
        other._open = self._open  # never changed in place: a build replaces it
        other._built_since = self._built_since
        return other

    # ----- queries ---------------------------------------------------------------
    @property
    def empty(self) -> bool:
        return self.placed == 0

    def count(self, item: str) -> int:
        return self.counts.get(item, 0)

    def fits(self, orient: Orientation, cell: int) -> bool:
        """Whether a tile turned as ``orient`` may be built on ``cell`` now."""
        if self.cells[cell] is not None:
            return False
        nbs = NEIGHBOURS[cell]
        if self.placed == 0:
            if cell != self.comp.boards[self.board].shovel:
                return False
        elif not any(n is not None and self.cells[n] is not None for n in nbs):
            return False
        return self._matches(orient, cell)

    def _matches(self, orient: Orientation, cell: int) -> bool:
        """Whether every half of ``orient`` on ``cell`` matches the frame and the built neighbours."""
        nbs = NEIGHBOURS[cell]
        labels = orient.labels
        for side in range(4):
            n = nbs[side]
            a, b = 2 * side, 2 * side + 1
            if n is None:
                if labels[a] != MEADOW or labels[b] != MEADOW:
                    return False
                continue
            other = self.orient[n]
            if other is None:
                continue
            if labels[a] != other.labels[FACING[a]] or labels[b] != other.labels[FACING[b]]:
                return False
        return True

    def frontier(self) -> list[int]:
        """Cells where a tile may go as far as position alone is concerned."""
        if self.placed == 0:
            return [self.comp.boards[self.board].shovel]
        cells = self.cells
        out = []
        for cell in range(CELLS):
            if cells[cell] is None:
                for n in NEIGHBOURS[cell]:
                    if n is not None and cells[n] is not None:
                        out.append(cell)
                        break
        return out

    def _needs(self, cell: int) -> Needs:
        """What a tile on ``cell`` must show, packed (see `Needs`): meadow to the frame, a match to built neighbours.

        The same test as `_matches`, but worked out once per cell rather than
        once per orientation: `placements` is the engine's hottest loop.
        """
        orient = self.orient
        code = FRAME_NEEDS[cell]
        for n, facing_side in FACING_NEIGHBOURS[cell]:
            other = orient[n]
            if other is not None:
                found = _CODES.get(id(other))
                if found is None or found[0] is not other:
                    found = _codes(other)
                code |= found[3][facing_side]
        return code

    def _frontier_needs(self) -> tuple[OpenCell, ...]:
        """The frontier with each cell's needs, kept up to date incrementally.

        A build changes only its own cell (no longer open) and its empty
        neighbours (new or stricter needs); every other open cell keeps its
        needs.  So the frontier is worked out in full once and then patched
        after each build instead of being recomputed.
        """
        open_cells = self._open
        if open_cells is not None and not self._built_since:
            return open_cells
        if open_cells is None:
            open_cells = tuple(self._open_entry(cell) for cell in self.frontier())
        else:
            current = {entry[0]: entry for entry in open_cells}
            cells = self.cells
            for built in self._built_since:
                current.pop(built, None)
                for n in NEIGHBOURS[built]:
                    if n is not None and cells[n] is None:
                        current[n] = self._open_entry(n)
            open_cells = tuple(current[c] for c in sorted(current))
        self._open = open_cells
        self._built_since = ()
        return open_cells

    def _open_entry(self, cell: int) -> OpenCell:
        needs = self._needs(cell)
        care, answers = _answers(needs)
        return (cell, needs, care, answers)

    def placements(self, tile: Tile) -> list[tuple[int, int]]:
        """Every (cell, rotation) where ``tile`` fits, in cell then rotation order."""
        return self.placements_as(tile, PAIRS_BY_MASK)

    def placements_as(self, tile: Tile, by_mask: Sequence[Sequence[tuple[T, ...]]]) -> list[T]:
        """`placements`, each fitting cell given as ``by_mask[cell][rotation mask]`` (concatenated).

        The engine passes a table of its ``build:<cell>:<rotation>`` actions,
        so the hottest list of the game is made of ready strings with one
        look-up per open cell, never a tuple or a name per placement.
        """
        out: list[T] = []
        tid = tile.id
        sides = None
        for cell, needs, care, answers in self._frontier_needs():
            mask = answers.get(tid)
            if mask is None:  # a pattern this tile has not met yet: one & and == per orientation
                if sides is None:
                    sides = _tile_sides(tile)
                mask = 0
                for bit, packed in sides:
                    if packed & care == needs:
                        mask |= bit
                answers[tid] = mask
            if mask:
                out += by_mask[cell][mask]
        return out

    def fits_rotation(self, tile: Tile, cell: int, rotation: int) -> bool:
        """Whether ``tile`` turned by ``rotation`` may be built on ``cell`` now (`fits`, from the frontier)."""
        if self.cells[cell] is not None or rotation % 90 or not 0 <= rotation < 360:
            return False
        for c, needs, care, answers in self._frontier_needs():
            if c == cell:
                mask = answers.get(tile.id)
                if mask is None:
                    mask = answers[tile.id] = _fit_mask(tile, needs, care)
                return bool(mask >> (rotation // 90) & 1)
        return False

    def can_place(self, tile: Tile) -> bool:
        tid = tile.id
        for _, needs, care, answers in self._frontier_needs():
            mask = answers.get(tid)
            if mask is None:
                mask = answers[tid] = _fit_mask(tile, needs, care)
            if mask:
                return True
        return False

    # ----- building --------------------------------------------------------------
    def place(self, tile: Tile, rotation: int, cell: int) -> list[Feature]:
        """Build ``tile`` (already checked with `fits`) and return the features it completes."""
        orient = _tile_info(tile)[2].get(rotation)
        assert orient is not None
        self.cells[cell] = (tile.id, rotation)
        self.orient[cell] = orient
        if self.placed == 0:
            self._open = None  # the first build: the frontier is worked out afresh next time
            self._built_since = ()
        else:
            self._built_since = (*self._built_since, cell)
        self.placed += 1
        done: list[Feature] = []
        seen: set[int] = set()
        for index, part in enumerate(tile.parts):
            if part.kind == VILLA:
                self.counts["chimneys"] = self.count("chimneys") + part.chimneys
            if cell * 4 + index in seen:
                continue
            if part.kind in SINGLES:
                done.append(Feature("single", part.kind, [cell]))
                continue
            group, closed = self._group(cell, index)
            seen.update(group)
            if closed:
                cells = sorted({k >> 2 for k in group})
                chimneys = sum(self._part(k >> 2, k & 3).chimneys for k in group)
                done.append(Feature(part.family, part.kind, cells, chimneys))
        for feature in done:
            self._record(feature)
        return done

    def _part(self, cell: int, index: int) -> Part:
        entry = self.cells[cell]
        assert entry is not None
        return self.comp.tiles[entry[0]].parts[index]

    def _group(self, cell: int, index: int) -> tuple[set[int], bool]:
        """The parts joined to part ``index`` on ``cell`` (each as ``cell * 4 + index``), and whether none is open."""
        orients = self.orient
        start = cell * 4 + index
        group = {start}
        todo = [start]
        closed = True
        while todo:
            k = todo.pop()
            c = k >> 2
            orient = orients[c]
            assert orient is not None
            nbs = NEIGHBOURS[c]
            for h in orient.part_halves[k & 3]:
                n = nbs[h >> 1]
                other = orients[n] if n is not None else None
                if other is None or n is None:  # the frame or an empty cell: this part is still open
                    closed = False
                    continue
                j = other.part_at[FACING[h]]
                if j >= 0:
                    key = n * 4 + j
                    if key not in group:
                        group.add(key)
                        todo.append(key)
        return group, closed

    def _record(self, feature: Feature) -> None:
        self.features.append(feature)
        self.counts[feature.kind] = self.count(feature.kind) + 1
        if feature.kind in LANDSCAPES:
            self.counts["landscapes"] = self.count("landscapes") + 1
        elif feature.kind in DWELLINGS:
            self.counts["dwellings"] = self.count("dwellings") + 1

    def new_goals(self, completed: list[Feature] | None = None) -> list[tuple[int, int, int]]:
        """Frame goals met now but not before: (side, goal index, points); marks them met.

        ``completed``: the features the last build completed, if known.  Only a
        newly completed feature can meet a goal that was not met before, so
        those are all that need looking at; without it, every feature is.
        """
        features = self.features if completed is None else completed
        if not features:
            return []
        # The cells of the features by kind: a goal is met when its line crosses any feature of its kind.
        cells_by_kind: dict[str, set[int]] = {}
        for f in features:
            known = cells_by_kind.get(f.kind)
            if known is None:
                cells_by_kind[f.kind] = set(f.cells)
            else:
                known.update(f.cells)
        out = []
        done = self.goals_done
        frames = self.comp.frames
        for side, part_id in enumerate(self.frame):
            for gi, goal in enumerate(frames[part_id].goals):
                cells = cells_by_kind.get(goal.kind)
                if cells is None or (side, gi) in done:
                    continue
                if not LINE_CELLS[side][goal.position].isdisjoint(cells):
                    done.append((side, gi))
                    out.append((side, gi, goal.vp))
        return out

    def frame_vp(self) -> int:
        return sum(self.comp.frames[self.frame[s]].goals[g].vp for s, g in self.goals_done)

    def villa_vp(self) -> int:
        return sum(self.comp.villa_vp(f.chimneys) for f in self.features if f.kind == VILLA)

    def open_cells(self) -> int:
        return sum(1 for c in self.cells if c is None)

    # ----- persistence -----------------------------------------------------------
    def to_json(self) -> dict[str, object]:
        return {
            "board": self.board,
            "frame": list(self.frame),
            "cells": [list(c) if c else None for c in self.cells],
            "features": [f.to_json() for f in self.features],
            "goals_done": [list(g) for g in self.goals_done],
            "counts": dict(sorted(self.counts.items())),
        }
