"""Leagues: a season's schedule inside one division, and promotion and relegation between seasons.

Pure functions like ``pairing`` (issue 31). Rules for players: docs/tournaments.md, "Formats".

A season is a round robin: every two members of a division meet (``meetings`` times), at tables of
the game's size. For two-player games this is the classic circle method (n-1 rounds, or n with a
bye each round when n is odd), and every pair meets exactly once per cycle. For larger tables a
perfect schedule exists only for special sizes, so the whole season is searched at once (simulated
annealing over the rounds' tables): with the fewest rounds that counting allows, then one more at a
time, until every pair meets and the byes rotate; unavoidable repeats are spread (a pair's extra
meetings cost their square). Large divisions, where that search gives up, are scheduled round by
round by the same local search as Swiss pairing. Seats are balanced as in Swiss.
"""

from __future__ import annotations

import functools
import itertools
import math
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
SEASON_EXTRA_ROUNDS = 4
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

    # The whole season at once: the fewest rounds the counting allows first, then one more at a time.
    n, k = len(ids), table_size
    per_round = (n // k) * k * (k - 1) // 2
    lower = max(-(-(n - 1) * meetings // (k - 1)), -(-(n * (n - 1) // 2) * meetings // per_round))
    for rounds in range(lower, lower + SEASON_EXTRA_ROUNDS + 1):
        found = _season_search(n, k, meetings, rounds, random.Random(f"season/{seed}/{rounds}"))
        if found is not None:
            for groups, byes in found:
                seat_and_record([[ids[x] for x in g] for g in groups], [ids[x] for x in byes])
            return schedule
    # Fallback (large divisions): round by round, greedy.
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
            grouping, cost = search.improve(start, budget=4_000)
            if cost < best_cost:
                chosen, best_cost = grouping, cost
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
    schedule = _cached_schedule(tuple(ids), table_size, seed)
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


UNCOVERED = 50.0  # cost of a pair short of its meetings; each meeting beyond costs its square
BYE_WEIGHT = 20.0
SEASON_ITERATIONS = 40_000


def _season_counts(season: Sequence[Sequence[Sequence[int]]], n: int) -> tuple[list[list[int]], list[int]]:
    """How often each pair meets and each player sits out, in a season of rounds (tables..., byes)."""
    cnt = [[0] * n for _ in range(n)]
    bye_count = [0] * n
    for groups in season:
        for t in groups[:-1]:
            for a, b in itertools.combinations(t, 2):
                cnt[a][b] += 1
                cnt[b][a] += 1
        for b in groups[-1]:
            bye_count[b] += 1
    return cnt, bye_count


def _season_search(n: int, k: int, meetings: int, rounds: int, rng: random.Random,
                   iterations: int = SEASON_ITERATIONS) -> list[tuple[list[list[int]], list[int]]] | None:
    """A whole season of ``rounds`` rounds for players 0..n-1, by simulated annealing; None if it fails.

    A move swaps two players of one round between tables (or between a table and the byes). The cost:
    ``UNCOVERED`` for every meeting a pair is short of ``meetings``, the square of every meeting beyond
    (so repeats spread evenly), and ``BYE_WEIGHT`` times the squared bye counts (so byes rotate).
    Success: every pair meets enough, none more than one meeting above the average (rounded up), and
    nobody has two byes more than another.
    """
    n_byes = n % k
    order = list(range(n))
    rng.shuffle(order)
    season: list[list[list[int]]] = []  # per round: tables..., then the byes as the last group
    for r in range(rounds):
        byes = [order[(r * n_byes + j) % n] for j in range(n_byes)]
        rest = [x for x in range(n) if x not in byes]
        rng.shuffle(rest)
        season.append([rest[i:i + k] for i in range(0, len(rest), k)] + [byes])
    cnt, bye_count = _season_counts(season, n)

    def w(c: int) -> float:
        return UNCOVERED * (meetings - c) if c < meetings else float((c - meetings) ** 2)

    cost = sum(w(cnt[a][b]) for a, b in itertools.combinations(range(n), 2))
    cost += BYE_WEIGHT * sum(c * c for c in bye_count)
    best_cost, best = cost, [[list(g) for g in groups] for groups in season]
    for it in range(iterations):
        temp = 2.0 * (1 - it / iterations) + 0.02
        groups = season[rng.randrange(rounds)]
        g1, g2 = rng.sample(range(len(groups)), 2) if len(groups) > 1 else (0, 0)
        if g1 == g2 or not groups[g1] or not groups[g2]:
            continue
        i, j = rng.randrange(len(groups[g1])), rng.randrange(len(groups[g2]))
        a, b = groups[g1][i], groups[g2][j]
        bye_g = len(groups) - 1
        delta = 0.0
        for g, out, inn in ((g1, a, b), (g2, b, a)):
            if g == bye_g:
                delta += BYE_WEIGHT * ((bye_count[inn] + 1) ** 2 - bye_count[inn] ** 2
                                       + (bye_count[out] - 1) ** 2 - bye_count[out] ** 2)
                continue
            for x in groups[g]:
                if x != out:
                    delta += w(cnt[inn][x] + 1) - w(cnt[inn][x]) + w(cnt[out][x] - 1) - w(cnt[out][x])
        if delta <= 0 or rng.random() < math.exp(-delta / temp):
            for g, out, inn in ((g1, a, b), (g2, b, a)):
                if g == bye_g:
                    bye_count[inn] += 1
                    bye_count[out] -= 1
                    continue
                for x in groups[g]:
                    if x != out:
                        cnt[inn][x] += 1
                        cnt[x][inn] += 1
                        cnt[out][x] -= 1
                        cnt[x][out] -= 1
            groups[g1][i], groups[g2][j] = b, a
            cost += delta
            if cost < best_cost - 1e-9:
                best_cost, best = cost, [[list(g) for g in gs] for gs in season]
                if all(cnt[x][y] == meetings for x, y in itertools.combinations(range(n), 2)):
                    break  # a perfect design: every pair exactly ``meetings`` times
    # Check the best season found.
    cnt, bye_count = _season_counts(best, n)
    counts = [cnt[a][b] for a, b in itertools.combinations(range(n), 2)]
    slots = rounds * (n // k) * k * (k - 1) // 2
    even = -(-slots // len(counts)) + 1  # no pair more than one meeting above the average, rounded up
    if min(counts) < meetings or max(counts) > even or max(bye_count) - min(bye_count) > 1:
        return None
    return [(groups[:-1], groups[-1]) for groups in best]


@functools.lru_cache(maxsize=64)
def _cached_schedule(ids: tuple[int, ...], table_size: int, seed: int) -> tuple[Round, ...]:
    """A season is asked for again every round; it is a pure function of these, so it is kept."""
    return tuple(league_schedule(ids, table_size, seed=seed))


def season_length(division: Sequence[int], table_size: int, seed: int = 0) -> int:
    """How many rounds `pair_round_robin` plays for these members (the same cached schedule)."""
    return len(_cached_schedule(tuple(sorted(division)), table_size, seed))
