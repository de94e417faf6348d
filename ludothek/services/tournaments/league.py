"""Leagues: a season's schedule inside one division, and promotion and relegation between seasons.

Pure functions like ``pairing`` (issue 31). Rules for players: docs/tournaments.md, "Formats".

A season is a round robin: every two members of a division meet (``meetings`` times), at tables of
the game's size. For two-player games this is the classic circle method (n-1 rounds, or n with a
bye each round when n is odd), and every pair meets exactly once per cycle. For larger tables a
perfect schedule exists only for special sizes, so rounds are built one at a time by the same local
search as Swiss pairing, where a pair's cost grows with the square of how often it has met: new
pairs first, and repeats spread evenly; rounds are added until every pair has met. Seats are
balanced as in Swiss.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Collection, Mapping, Sequence

from ludothek.services.tournaments.pairing import (
    Entrant,
    GroupSearch,
    PastGame,
    Round,
    Table,
    assign_seats,
    check_table_size,
    least_used_mask,
)

RESTARTS = 8
PAIR_MET = 10  # cost of seating a pair that met before, plus one per earlier meeting: new pairs first


def _pairs_below(counts: dict[tuple[int, int], int], ids: Sequence[int], target: int) -> list[tuple[int, int]]:
    return [(a, b) for a, b in itertools.combinations(ids, 2) if counts.get((min(a, b), max(a, b)), 0) < target]


def _circle(ids: list[int]) -> list[list[tuple[int, int]]]:
    """Pairings of the circle method: one player fixed, the others rotate (None marks the bye)."""
    players: list[int | None] = list(ids)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    rounds: list[list[tuple[int, int]]] = []
    for _ in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b))
        rounds.append(pairs)
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def league_schedule(division: Sequence[int], table_size: int, meetings: int = 1, seed: int = 0) -> list[Round]:
    """The rounds of one division's season: every pair meets at least ``meetings`` times, seats balanced.

    ``division`` is the members' entrant ids. When the division does not divide into tables, each
    round's byes go to the members with the fewest byes so far. Raises ValueError for a division
    smaller than one table, a repeated id, or ``meetings`` below 1.
    """
    check_table_size(table_size)
    ids = list(division)
    if len(set(ids)) != len(ids):
        raise ValueError("a member appears twice in the division")
    if len(ids) < table_size:
        raise ValueError(f"a division of {len(ids)} cannot fill a table of {table_size}")
    if meetings < 1:
        raise ValueError("every pair meets at least once")
    rng = random.Random(f"league/{seed}")
    counts: dict[tuple[int, int], int] = {}
    seats: dict[int, list[int]] = {i: [0] * table_size for i in ids}
    byes_so_far = dict.fromkeys(ids, 0)
    schedule: list[Round] = []

    def seat_and_record(groups: list[list[int]], byes: list[int]) -> None:
        tables = []
        for group in groups:
            order = assign_seats(group, seats, table_size, rng)
            for pos, who in enumerate(order):
                seats[who][pos] += 1
            for a, b in itertools.combinations(order, 2):
                key = (min(a, b), max(a, b))
                counts[key] = counts.get(key, 0) + 1
            tables.append(Table(order))
        for b in byes:
            byes_so_far[b] += 1
        schedule.append(Round(tables=tuple(tables), byes=tuple(sorted(byes))))

    if table_size == 2:
        # Who moves first: a regular tournament on the rotating players (each moves first in half of
        # their games among them) and alternation for the fixed player, so everybody's count of first
        # moves differs from their second moves by at most one over the cycle; cycles alternate.
        fixed = ids[0] if len(ids) % 2 == 0 else None
        ring = [i for i in ids if i != fixed]
        pos = {e: x for x, e in enumerate(ring)}
        half = (len(ring) - 1) // 2
        for cycle in range(meetings):
            for r, pairs in enumerate(_circle(ids)):
                paired = {x for p in pairs for x in p}
                groups = []
                for a, b in pairs:
                    if fixed in (a, b):
                        other = b if a == fixed else a
                        first = fixed if r % 2 == 0 else other
                    else:
                        first = a if 1 <= (pos[b] - pos[a]) % len(ring) <= half else b
                    second = b if first == a else a
                    groups.append([first, second] if cycle % 2 == 0 else [second, first])
                for group in groups:
                    group_seats = tuple(group)
                    for p_, who in enumerate(group_seats):
                        seats[who][p_] += 1
                    for a, b in itertools.combinations(group_seats, 2):
                        counts[(min(a, b), max(a, b))] = counts.get((min(a, b), max(a, b)), 0) + 1
                for b in ids:
                    if b not in paired:
                        byes_so_far[b] += 1
                schedule.append(Round(tables=tuple(Table(tuple(g)) for g in groups),
                                      byes=tuple(sorted(i for i in ids if i not in paired))))
        return schedule

    limit = len(ids) * len(ids) * meetings  # never reached: each round meets at least one new pair
    while _pairs_below(counts, ids, meetings) and len(schedule) < limit:
        draw = {i: rng.random() for i in ids}
        byes = sorted(ids, key=lambda i: (byes_so_far[i], draw[i]))[:len(ids) % table_size]
        seated = [i for i in ids if i not in set(byes)]
        local = {e: x for x, e in enumerate(seated)}
        met = [{local[o]: PAIR_MET + counts[(min(e, o), max(e, o))]
                for o in seated if o != e and counts.get((min(e, o), max(e, o)), 0)} for e in seated]
        masks = [least_used_mask(seats[e], table_size) for e in seated]
        search = GroupSearch(table_size, met, [0.0] * len(seated), masks, rng)
        chosen: list[list[int]] = []
        best_cost = float("inf")
        for _ in range(RESTARTS):  # small fields: several random starts find far better rounds than one
            perm = list(range(len(seated)))
            rng.shuffle(perm)
            start = [perm[i:i + table_size] for i in range(0, len(perm), table_size)]
            found, cost = search.improve(start, budget=4_000)
            if cost < best_cost:
                chosen, best_cost = found, cost
            if cost == 0:
                break
        tables = [[seated[x] for x in g] for g in chosen]
        below = set(_pairs_below(counts, ids, meetings))
        if not any((min(a, b), max(a, b)) in below for t in tables for a, b in itertools.combinations(t, 2)):
            tables, byes = _forced_round(ids, sorted(below)[0], table_size, byes)
        seat_and_record(tables, byes)
    return schedule


def _forced_round(ids: Sequence[int], pair: tuple[int, int], k: int, byes: list[int]) -> tuple[list[list[int]], list[int]]:
    """A round that seats ``pair`` together (a fallback that guarantees progress; rarely used)."""
    a, b = pair
    byes = [x for x in byes if x not in pair]
    others = [x for x in ids if x not in pair]
    while len(byes) < len(ids) % k:
        byes.append(next(x for x in reversed(others) if x not in byes))
    rest = [x for x in others if x not in byes]
    seated = [a, b, *rest]
    return [seated[i:i + k] for i in range(0, len(seated), k)], byes


def promotion(
    divisions: Sequence[Sequence[int]],
    up: int,
    down: int,
    leaving: Collection[int] = (),
    newcomers: Sequence[int] = (),
) -> list[list[int]]:
    """Next season's divisions from this season's final standings (top division first).

    Each division is its members' ids in final standing order. The best ``up`` of every division but
    the top move up one division; the worst ``down`` of every division but the bottom move down one.
    A division too small for both gives promotion first (nobody moves both ways). ``leaving``
    members drop out before anything moves; ``newcomers`` join the bottom division. Within a new
    division, those relegated from above come first, then those who stayed (in standing order), then
    those promoted from below: that is the seeding order for the next season.
    """
    if up < 0 or down < 0:
        raise ValueError("promotion and relegation counts cannot be negative")
    flat = [i for d in divisions for i in d]
    if len(set(flat)) != len(flat):
        raise ValueError("an entrant is in two divisions")
    if set(newcomers) & set(flat) or len(set(newcomers)) != len(newcomers):
        raise ValueError("a newcomer is already in a division")
    gone = set(leaving)
    ranked = [[i for i in d if i not in gone] for d in divisions]
    last = len(ranked) - 1
    promoted: list[list[int]] = []
    relegated: list[list[int]] = []
    for d, members in enumerate(ranked):
        p = min(up, len(members)) if d > 0 else 0
        r = min(down, len(members) - p) if d < last else 0
        promoted.append(members[:p])
        relegated.append(members[len(members) - r:] if r else [])
    result: list[list[int]] = []
    for d, members in enumerate(ranked):
        moving = set(promoted[d]) | set(relegated[d])
        stay = [i for i in members if i not in moving]
        from_above = relegated[d - 1] if d > 0 else []
        from_below = promoted[d + 1] if d < last else []
        result.append([*from_above, *stay, *from_below])
    if result:
        result[-1].extend(newcomers)
    return result


def pair_round_robin(
    entrants: Sequence[Entrant],
    history: Sequence[PastGame],
    byes_so_far: Mapping[int, int],
    table_size: int,
    round_no: int,
    seed: int = 0,
) -> Round | None:
    """Round ``round_no`` of a one-division round robin, in the shape of ``pair_swiss``; None when over.

    The season is the ``league_schedule`` of every entrant (withdrawn ones too, so the schedule does
    not change under the players' feet). A table with a withdrawn player is not played: the others at
    it sit the round out with a bye. ``history`` and ``byes_so_far`` are not needed (the schedule is
    fixed) and accepted for the common shape.
    """
    del history, byes_so_far
    ids = sorted(e.id for e in entrants)
    if len(ids) < table_size or round_no < 1:
        return None
    schedule = league_schedule(ids, table_size, seed=seed)
    if round_no > len(schedule):
        return None
    gone = {e.id for e in entrants if e.withdrawn}
    rnd = schedule[round_no - 1]
    tables = tuple(t for t in rnd.tables if not gone & set(t.seats))
    byes = [b for b in rnd.byes if b not in gone]
    byes += [s for t in rnd.tables if gone & set(t.seats) for s in t.seats if s not in gone]
    if not tables:
        return None
    return Round(tables=tables, byes=tuple(sorted(byes)))
