"""The site's one call into standings: `site_standings` (issue 31).

The ranking itself is the pure ``standings.standings`` (points by place, a bye worth the mean of a
table's points, then Buchholz, head-to-head and the total game score; rules in its docstring and in
docs/tournaments.md, "Standings"). This adapter only turns its lines into the site's `StandingRow`,
the shape the pages and the API show, so that the site and the pure module can never rank apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .pairing import Entrant, PastGame
from .standings import standings


@dataclass
class StandingRow:
    """One entrant's line of the standings; ``rank`` is 1, 2, 3 … (the pure module never shares ranks)."""

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
    """The standings, best first, as ``standings.standings`` ranks them (``score`` is the game score)."""
    return [StandingRow(entrant=s.entrant, rank=s.rank, points=s.points, buchholz=s.buchholz, score=s.game_score,
                        games=s.games, byes=s.byes, withdrawn=s.withdrawn,
                        tiebreaks={"buchholz": s.buchholz, "head_to_head": s.head_to_head, "score": s.game_score})
            for s in standings(entrants, history, byes, table_size, points or None)]
