"""Where things sit on a tile and on a district: sides, half-sides, rotation, cell names.

Every tile side is split into two halves so that a landscape can be drawn
into one corner of a tile (touching one or both halves next to that corner).
The eight halves are numbered clockwise from the north-west:

    0 ``Nw``  1 ``Ne``  (north side, west to east)
    2 ``En``  3 ``Es``  (east side, north to south)
    4 ``Se``  5 ``Sw``  (south side, east to west)
    6 ``Ws``  7 ``Wn``  (west side, south to north)

A quarter turn clockwise moves half ``h`` to ``h + 2``.  Half ``h`` of a tile
faces half ``FACING[h]`` of the neighbour on that side.
"""

from __future__ import annotations

SIZE = 6
CELLS = SIZE * SIZE
SIDES = "NESW"
HALF_NAMES = ("Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn")
HALF_INDEX = {name: i for i, name in enumerate(HALF_NAMES)}
#: Half ``h`` of a tile touches half ``FACING[h]`` of the neighbouring tile.
FACING = (5, 4, 7, 6, 1, 0, 3, 2)
#: Row and column offsets of the neighbour on side N, E, S, W.
OFFSETS = ((-1, 0), (0, 1), (1, 0), (0, -1))
ROTATIONS = (0, 90, 180, 270)
COLUMNS = "abcdef"


def side_halves(side: str) -> tuple[int, int]:
    """The two halves of side ``side`` ("N", "E", "S" or "W")."""
    d = SIDES.index(side)
    return (2 * d, 2 * d + 1)


def parse_halves(entries: list[str]) -> tuple[int, ...]:
    """Half numbers for a data file's ``at`` list: full sides ("N") or halves ("Ne")."""
    out: list[int] = []
    for entry in entries:
        if entry in SIDES and len(entry) == 1:
            out.extend(side_halves(entry))
        elif entry in HALF_INDEX:
            out.append(HALF_INDEX[entry])
        else:
            raise ValueError(f"unknown side or half-side {entry!r}; use N/E/S/W or one of {', '.join(HALF_NAMES)}")
    return tuple(sorted(out))


def rotate_half(half: int, quarter_turns: int) -> int:
    return (half + 2 * quarter_turns) % 8


def cell_name(cell: int) -> str:
    """``a1`` is the top-left cell as its owner sees the district; rows count downwards."""
    return f"{COLUMNS[cell % SIZE]}{cell // SIZE + 1}"


def parse_cell(name: str) -> int:
    if len(name) != 2 or name[0] not in COLUMNS or name[1] not in "123456":
        raise ValueError(f"unknown cell {name!r}; cells are a1 to f6")
    return (int(name[1]) - 1) * SIZE + COLUMNS.index(name[0])


def neighbour(cell: int, side: int) -> int | None:
    """The cell on side ``side`` (0..3 = N, E, S, W), or None where the frame is."""
    r, c = divmod(cell, SIZE)
    dr, dc = OFFSETS[side]
    r, c = r + dr, c + dc
    if 0 <= r < SIZE and 0 <= c < SIZE:
        return r * SIZE + c
    return None


NEIGHBOURS: tuple[tuple[int | None, ...], ...] = tuple(
    tuple(neighbour(cell, side) for side in range(4)) for cell in range(CELLS)
)


def on_line(cell: int, line: tuple[str, int]) -> bool:
    """Whether ``cell`` lies on a row (``("row", r)``) or column (``("col", c)``), 0-based."""
    kind, index = line
    return (cell // SIZE if kind == "row" else cell % SIZE) == index


def frame_line(side: int, position: int) -> tuple[str, int]:
    """The board line a frame goal points along.

    ``side`` is where its frame part sits (0 top, 1 right, 2 bottom, 3 left);
    ``position`` (1..6) counts clockwise along that part, as the owner sees it.
    """
    p = position - 1
    if side == 0:
        return ("col", p)
    if side == 1:
        return ("row", p)
    if side == 2:
        return ("col", SIZE - 1 - p)
    return ("row", SIZE - 1 - p)
