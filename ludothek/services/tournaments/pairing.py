"""Who sits at which table in the next round: pure functions, no database (issue 31).

The types here are the contract between the pairing code and the site that stores tournaments:
entrants are plain integers (the site's entrant ids), a finished game is a `PastGame`, a round is
tables of entrant ids in seat order (seat 0 moves first) plus the byes.

This first version is deliberately naive (it seats by standing and ignores repeat opponents and seat
balance); the pairing work replaces the bodies and keeps the signatures.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Entrant:
    """One entrant as pairing sees them: an id, a rating (for the first round's order), withdrawn or not."""

    id: int
    rating: float = 1500.0
    withdrawn: bool = False


@dataclass(frozen=True)
class PastGame:
    """A finished (or forfeited) table: ids in seat order and each seat's place (1 = winner, ties share).

    ``scores`` is each seat's game score (for the total-score tie-break); empty when unknown.
    """

    round_no: int
    seats: tuple[int, ...]
    places: tuple[int, ...]
    scores: tuple[float, ...] = ()


@dataclass(frozen=True)
class Table:
    """One table of a round: entrant ids in seat order; seat 0 moves first."""

    seats: tuple[int, ...]


@dataclass(frozen=True)
class Round:
    """The tables of one round and the entrants who sit it out (a bye scores as documented in standings)."""

    tables: tuple[Table, ...]
    byes: tuple[int, ...] = field(default=())


def pair_swiss(
    entrants: Sequence[Entrant],
    history: Sequence[PastGame],
    byes_so_far: Mapping[int, int],
    table_size: int,
    round_no: int,
    seed: int = 0,
) -> Round:
    """The next Swiss round: similar standing together, no repeat opponents where avoidable,
    seat order balanced, byes to the fewest-byes entrants when the field does not divide.

    Naive placeholder: orders by points so far (then rating), gives byes to the last entrants.
    """
    active = [e for e in entrants if not e.withdrawn]
    points: dict[int, float] = {e.id: 0.0 for e in active}
    for game in history:
        for seat, place in zip(game.seats, game.places, strict=True):
            if seat in points:
                points[seat] += float(table_size - place)
    rng = random.Random(seed * 1000003 + round_no)
    order = sorted(active, key=lambda e: (-points[e.id], -e.rating, rng.random()))
    n_byes = len(order) % table_size
    byes = tuple(sorted((e.id for e in order), key=lambda i: (byes_so_far.get(i, 0), points[i]))[:n_byes])
    seated = [e.id for e in order if e.id not in byes]
    tables = tuple(Table(tuple(seated[i:i + table_size])) for i in range(0, len(seated), table_size))
    return Round(tables=tables, byes=byes)
