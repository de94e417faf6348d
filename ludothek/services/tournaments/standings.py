"""Standings of a Swiss or league: points by place, then tie-breaks (issue 31). Pure: no database.

Order, each rule only among entrants equal on all rules before it (docs/tournaments.md, "Standings"):

1. **Points**: points by place from every finished game (default linear, k-1 … 0, see ``points``);
   seats that tie share the points of the places they span; a bye is worth the mean of a table's
   points (a draw with everybody).
2. **Buchholz**: the strength of the opposition. For each game played, the mean final points of the
   opponents at that table; summed over the games. A bye counts as a game against opponents with
   the entrant's own points (an unplayed round neither helps nor hurts). Rounds an entrant missed
   for any other reason (after withdrawing) count nothing.
3. **Head-to-head**: among the entrants still tied, their results against each other: in every game
   where two of them sat together, one point for finishing ahead of the other, half for a tie.
4. **Game score**: the sum of the entrant's own scores in the games (where the game reports scores).
5. **Entry order**: the lower entrant id (the earlier entry) first, so the order is total and the
   same on every computation.

Ranks are 1, 2, 3 … with no shared ranks: rule 5 always separates.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ludothek.services.tournaments.pairing import Entrant, PastGame, check_table_size, current_points
from ludothek.services.tournaments.points import bye_points, place_points, points_table


@dataclass(frozen=True)
class Standing:
    """One line of the standings (values as floats for display; compared exactly while ranking)."""

    rank: int
    entrant: int
    points: float
    buchholz: float
    head_to_head: float
    game_score: float
    games: int
    byes: int
    withdrawn: bool = False


def standings(
    entrants: Sequence[Entrant],
    history: Sequence[PastGame],
    byes: Mapping[int, int],
    table_size: int,
    points_by_place: Sequence[float] | None = None,
) -> list[Standing]:
    """Every entrant (withdrawn ones too, marked) ranked by the rules in the module docstring.

    Games between ids that are not entrants are ignored; so are seats of such ids at a table.
    """
    check_table_size(table_size)
    points_table(table_size, points_by_place)  # refuses a bad points list before any work
    ids = [e.id for e in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError("an entrant appears twice")
    known = set(ids)
    points = current_points(ids, history, byes, table_size, points_by_place)
    games = dict.fromkeys(ids, 0)
    score = {i: Fraction(0) for i in ids}
    buchholz = {i: points[i] * byes.get(i, 0) for i in ids}
    for game in history:
        at_table = [s for s in game.seats if s in known]
        for pos, who in enumerate(game.seats):
            if who not in known:
                continue
            games[who] += 1
            if pos < len(game.scores):
                score[who] += Fraction(game.scores[pos])
            opponents = [o for o in at_table if o != who]
            if opponents:
                buchholz[who] += sum((points[o] for o in opponents), Fraction(0)) / len(opponents)

    def primary(i: int) -> tuple[Fraction, Fraction]:
        return (points[i], buchholz[i])

    h2h = {i: Fraction(0) for i in ids}
    for _, group_iter in itertools.groupby(sorted(ids, key=primary), key=primary):
        group = set(group_iter)
        if len(group) < 2:
            continue
        for game in history:
            present = [(s, p) for s, p in zip(game.seats, game.places, strict=True) if s in group]
            for (a, pa), (b, pb) in itertools.combinations(present, 2):
                if pa < pb:
                    h2h[a] += 1
                elif pb < pa:
                    h2h[b] += 1
                else:
                    h2h[a] += Fraction(1, 2)
                    h2h[b] += Fraction(1, 2)

    withdrawn = {e.id: e.withdrawn for e in entrants}
    order = sorted(ids, key=lambda i: (-points[i], -buchholz[i], -h2h[i], -score[i], i))
    return [Standing(rank=r, entrant=i, points=float(points[i]), buchholz=float(buchholz[i]),
                     head_to_head=float(h2h[i]), game_score=float(score[i]), games=games[i],
                     byes=byes.get(i, 0), withdrawn=withdrawn[i])
            for r, i in enumerate(order, start=1)]


def points_awarded(history: Sequence[PastGame], byes: Mapping[int, int], table_size: int,
                   points_by_place: Sequence[float] | None = None) -> Fraction:
    """All points handed out: every game gives its table's total, every bye its value (a checkable sum)."""
    table = points_table(table_size, points_by_place)
    total = sum((sum(place_points(g.places, table), Fraction(0)) for g in history), Fraction(0))
    return total + bye_points(table) * sum(byes.values())
