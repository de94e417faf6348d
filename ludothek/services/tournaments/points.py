"""Points by place: what one finished table is worth to each seat (issue 31).

Kept apart from ``pairing`` and ``standings`` because both need it: pairing seats players of similar
points together, standings rank by them. Arithmetic is exact (``Fraction``) so that two entrants
with equal points compare equal however their points were summed; callers turn them into floats only
for display.

The default for a table of k is linear: k-1 for first place down to 0 for last. That is the same as
counting the table as k-1 two-player games per seat: a seat scores one point for each opponent it
finished ahead of and half a point for each opponent it tied with. For two players it is the chess
1 / ½ / 0; for four players 3 / 2 / 1 / 0. Winner-heavy schemes (say 5 / 3 / 1 / 0) reward a single
good result more and make a five-round event noisier; the site may still pass its own list.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction


def default_points(table_size: int) -> tuple[Fraction, ...]:
    """Linear points by place for a table of ``table_size``: k-1, k-2, …, 0 (why: module docstring)."""
    if table_size < 2:
        raise ValueError(f"a table seats at least 2 players, not {table_size}")
    return tuple(Fraction(table_size - 1 - i) for i in range(table_size))


def points_table(table_size: int, points_by_place: Sequence[float] | None = None) -> tuple[Fraction, ...]:
    """The points for each place, checked: one value per place, never rising from first to last.

    A rising list would pay a player for doing worse; that is always a mistake in the settings, so it
    is refused rather than used.
    """
    if points_by_place is None:
        return default_points(table_size)
    if len(points_by_place) != table_size:
        raise ValueError(f"points by place need one value per place ({table_size}), got {len(points_by_place)}")
    values = tuple(Fraction(v).limit_denominator(10**6) for v in points_by_place)
    if any(later > earlier for earlier, later in itertools.pairwise(values)):
        raise ValueError("points by place must not rise from first place to last")
    return values


def bye_points(table: Sequence[Fraction]) -> Fraction:
    """What a bye is worth: the mean of a table's points (a draw with everybody).

    A bye is not the entrant's doing, so it neither rewards nor punishes them on average: an equal
    player expects exactly the mean of the places. (Chess often gives a full point; with multi-player
    tables that would be the winner's share, too generous for sitting out.)
    """
    return sum(table, Fraction(0)) / len(table)


def place_points(places: Sequence[int], table: Sequence[Fraction]) -> list[Fraction]:
    """Each seat's points for one finished table; seats that tie share the points of the places they span.

    Places may be given as competition ranks (1, 1, 3) or dense ranks (1, 1, 2): only their order
    counts. Two seats tied for first at a four-player table with 3/2/1/0 each get (3 + 2) / 2.
    """
    order = sorted(places)
    result: list[Fraction] = []
    for place in places:
        first = order.index(place)
        span = order.count(place)
        chunk = [table[i] if i < len(table) else Fraction(0) for i in range(first, first + span)]
        result.append(sum(chunk, Fraction(0)) / span)
    return result
