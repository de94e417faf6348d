"""One player's district: the 6×6 building board inside its frame, and the rules of building.

Placement: the first tile goes on the shovel; every later tile touches an
earlier one along a full side; everything that touches must match (the frame
is meadow); tiles may be turned.  After a placement, the parts of the new tile
are followed across the district to find features that just became complete
(no half-side of theirs faces an empty cell any more).
"""

from __future__ import annotations

from dataclasses import dataclass

from .components import DWELLINGS, LANDSCAPES, SINGLES, VILLA, ComponentSet, Orientation, Part, Tile
from .geometry import CELLS, FACING, NEIGHBOURS, frame_line, on_line

MEADOW = ""


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

    __slots__ = ("_open", "board", "cells", "comp", "counts", "features", "frame", "goals_done", "orient", "placed")

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
        #: The frontier with each cell's needed labels (see `_needs`), until the next build.
        self._open: list[tuple[int, list[tuple[int, str]]]] | None = None

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

    def _needs(self, cell: int) -> list[tuple[int, str]]:
        """The half-edge labels a tile on ``cell`` must show: (half, label) for the frame and built neighbours.

        The same test as `_matches`, but worked out once per cell rather than
        once per orientation: `placements` is the engine's hottest loop.
        """
        nbs = NEIGHBOURS[cell]
        needs: list[tuple[int, str]] = []
        for side in range(4):
            n = nbs[side]
            a, b = 2 * side, 2 * side + 1
            if n is None:
                needs.append((a, MEADOW))
                needs.append((b, MEADOW))
                continue
            other = self.orient[n]
            if other is not None:
                needs.append((a, other.labels[FACING[a]]))
                needs.append((b, other.labels[FACING[b]]))
        return needs

    def placements(self, tile: Tile) -> list[tuple[int, int]]:
        """Every (cell, rotation) where ``tile`` fits, in cell then rotation order."""
        out = []
        orients = tile.orientations
        open_cells = self._open
        if open_cells is None:
            open_cells = self._open = [(cell, self._needs(cell)) for cell in self.frontier()]
        for cell, needs in open_cells:
            for orient in orients:
                labels = orient.labels
                for half, label in needs:
                    if labels[half] != label:
                        break
                else:
                    out.append((cell, orient.rotation))
        return out

    def can_place(self, tile: Tile) -> bool:
        return any(self._matches(o, cell) for cell in self.frontier() for o in tile.orientations)

    # ----- building --------------------------------------------------------------
    def place(self, tile: Tile, rotation: int, cell: int) -> list[Feature]:
        """Build ``tile`` (already checked with `fits`) and return the features it completes."""
        orient = tile.orientation(rotation)
        assert orient is not None
        self.cells[cell] = (tile.id, rotation)
        self.orient[cell] = orient
        self._open = None
        self.placed += 1
        done: list[Feature] = []
        seen: set[tuple[int, int]] = set()
        for index, part in enumerate(tile.parts):
            if part.kind == VILLA:
                self.counts["chimneys"] = self.count("chimneys") + part.chimneys
            if (cell, index) in seen:
                continue
            if part.kind in SINGLES:
                done.append(Feature("single", part.kind, [cell]))
                continue
            group, closed = self._group(cell, index)
            seen.update(group)
            if closed:
                cells = sorted({c for c, _ in group})
                chimneys = sum(self._part(c, i).chimneys for c, i in group)
                done.append(Feature(part.family, part.kind, cells, chimneys))
        for feature in done:
            self._record(feature)
        return done

    def _part(self, cell: int, index: int) -> Part:
        entry = self.cells[cell]
        assert entry is not None
        return self.comp.tiles[entry[0]].parts[index]

    def _group(self, cell: int, index: int) -> tuple[set[tuple[int, int]], bool]:
        """The parts joined to part ``index`` on ``cell``, and whether none of them is open."""
        group = {(cell, index)}
        todo = [(cell, index)]
        closed = True
        while todo:
            c, i = todo.pop()
            orient = self.orient[c]
            assert orient is not None
            for h in orient.part_halves[i]:
                n = NEIGHBOURS[c][h // 2]
                other = self.orient[n] if n is not None else None
                if n is None or other is None:
                    closed = False
                    continue
                j = other.part_at[FACING[h]]
                if j >= 0 and (n, j) not in group:
                    group.add((n, j))
                    todo.append((n, j))
        return group, closed

    def _record(self, feature: Feature) -> None:
        self.features.append(feature)
        self.counts[feature.kind] = self.count(feature.kind) + 1
        if feature.kind in LANDSCAPES:
            self.counts["landscapes"] = self.count("landscapes") + 1
        elif feature.kind in DWELLINGS:
            self.counts["dwellings"] = self.count("dwellings") + 1

    def new_goals(self) -> list[tuple[int, int, int]]:
        """Frame goals met now but not before: (side, goal index, points); marks them met."""
        out = []
        for side, part_id in enumerate(self.frame):
            for gi, goal in enumerate(self.comp.frames[part_id].goals):
                if (side, gi) in self.goals_done:
                    continue
                line = frame_line(side, goal.position)
                if any(f.kind == goal.kind and any(on_line(c, line) for c in f.cells) for f in self.features):
                    self.goals_done.append((side, gi))
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
