"""The site's one call into standings: `site_standings` (issue 31).

The pure standings module (``standings.py``, written alongside) is the reference; until it is wired
in, this adapter ranks by points by place summed (`default_points`), a bye counting the average of
the points on offer, then Buchholz (the sum of the opponents' points), then the total game score.
Everything the site shows of standings goes through `site_standings`, so swapping in the real module
is a change of this one file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .pairing import Entrant, PastGame


def default_points(table_size: int) -> tuple[float, ...]:
    """Points by place, first place first: ``table_size - place`` (2 players: 1/0; 4 players: 3/2/1/0)."""
    return tuple(float(table_size - place) for place in range(1, table_size + 1))


@dataclass
class StandingRow:
    """One entrant's line of the standings; ``rank`` is shared by entrants equal on every tie-break."""

    entrant: int
    rank: int = 0
    points: float = 0.0
    buchholz: float = 0.0
    score: float = 0.0
    games: int = 0
    byes: int = 0
    withdrawn: bool = False
    tiebreaks: dict[str, float] = field(default_factory=dict)


def site_standings(entrants: Sequence[Entrant], history: Sequence[PastGame], byes: Mapping[int, int],
                   table_size: int, points: Sequence[float] | None = None) -> list[StandingRow]:
    """The standings, best first (the adapter the lead replaces with ``standings.py`` at merge)."""
    table = tuple(points) if points else default_points(table_size)
    bye_points = sum(table) / len(table) if table else 0.0
    rows = {e.id: StandingRow(e.id, withdrawn=e.withdrawn) for e in entrants}
    opponents: dict[int, list[int]] = {e.id: [] for e in entrants}
    for game in history:
        for seat, place in zip(game.seats, game.places, strict=True):
            row = rows.get(seat)
            if row is None:
                continue
            row.points += table[min(max(place, 1), len(table)) - 1]
            row.games += 1
            opponents[seat].extend(o for o in game.seats if o != seat)
        for seat, score in zip(game.seats, game.scores, strict=False):
            if seat in rows:
                rows[seat].score += float(score)
    for entrant, count in byes.items():
        if entrant in rows:
            rows[entrant].byes += count
            rows[entrant].points += bye_points * count
    for entrant, row in rows.items():
        row.buchholz = sum(rows[o].points for o in opponents[entrant] if o in rows)
        row.tiebreaks = {"buchholz": row.buchholz, "score": row.score}
    order = sorted(rows.values(), key=lambda r: (-r.points, -r.buchholz, -r.score, r.entrant))
    for i, row in enumerate(order):
        before = order[i - 1] if i else None
        same = before is not None and (before.points, before.buchholz, before.score) == (row.points, row.buchholz,
                                                                                          row.score)
        row.rank = before.rank if same and before is not None else i + 1
    return order
