"""Who sits at which table in the next round: pure functions, no database (issue 31).

The types here are the contract between the pairing code and the site that stores tournaments:
entrants are plain integers (the site's entrant ids), a finished game is a `PastGame`, a round is
tables of entrant ids in seat order (seat 0 moves first) plus the byes.

Swiss pairing (`pair_swiss`) works in three steps, described for players in docs/tournaments.md:

1. **Byes.** When the active entrants do not divide into full tables, the remainder sit the round out.
   They are the entrants with the fewest byes so far, and among those the lowest in the standings
   (a bye is worth a draw with everybody, which helps the weakest most and disturbs the top least).
2. **Tables.** The others are ordered by points (then rating, then a seeded draw) and cut into
   consecutive tables, which seats players of similar standing together. A local search then swaps
   players between tables to remove repeat opponents and seat conflicts, paying for each swap in
   standing distance. The cost of a table, in falling weight: previous meetings of each pair at it
   (so a repeat is avoided whenever a swap can avoid it), players who could not get a seat they have
   used least (seat balance), and the squared points gap of each pair, in units of one win.
   Where the search still leaves a repeat in a field of up to 40, an exhaustive search (with a work
   limit, so it is complete for small fields) looks for a repeat-free grouping in standing order, and
   the cheaper result wins.
3. **Seats.** Within each table the seat order is chosen so that each player gets a seat they have
   used least often; over the rounds every player's use of the seats differs by at most one where the
   field allows it.

Everything is a function of its arguments and the seed: same input, same round.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ludothek.services.tournaments.points import bye_points, place_points, points_table


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


# Weights of the table cost (module docstring, step 2). A repeat outweighs any standing gap a real
# event produces; a seat conflict is worth a few pairs one win apart.
REPEAT_WEIGHT = 1_000_000.0
SEAT_WEIGHT = 20.0
SPREAD_WEIGHT = 1.0
# Work limits: swap evaluations of the local search, nodes of the exhaustive repeat-free search. The
# exhaustive search is complete well beyond the fields the tests check against brute force (≤ 12).
SEARCH_EVALS = 150_000
EXACT_NODES = 20_000
EXACT_FIELD = 40  # larger fields: the local search alone (each exhaustive step costs the field squared)


def check_table_size(table_size: int) -> None:
    """Refuse a table size no game has: fewer than two seats."""
    if table_size < 2:
        raise ValueError(f"a table seats at least 2 players, not {table_size}")


def current_points(
    ids: Iterable[int],
    history: Sequence[PastGame],
    byes_so_far: Mapping[int, int],
    table_size: int,
    points_by_place: Sequence[float] | None = None,
) -> dict[int, Fraction]:
    """Points so far of each id (games by place, plus each bye at its documented value)."""
    table = points_table(table_size, points_by_place)
    points = {i: bye_points(table) * byes_so_far.get(i, 0) for i in ids}
    for game in history:
        for seat, pts in zip(game.seats, place_points(game.places, table), strict=True):
            if seat in points:
                points[seat] += pts
    return points


def meetings(history: Iterable[PastGame]) -> dict[int, dict[int, int]]:
    """How often each two entrants sat at the same table: ``met[a][b]``."""
    met: dict[int, dict[int, int]] = {}
    for game in history:
        for a, b in itertools.permutations(game.seats, 2):
            row = met.setdefault(a, {})
            row[b] = row.get(b, 0) + 1
    return met


def seat_counts(history: Iterable[PastGame], table_size: int) -> dict[int, list[int]]:
    """How often each entrant sat in each seat position (seats beyond ``table_size`` are ignored)."""
    counts: dict[int, list[int]] = {}
    for game in history:
        for pos, who in enumerate(game.seats):
            if pos < table_size:
                counts.setdefault(who, [0] * table_size)[pos] += 1
    return counts


def seat_imbalance(counts: Sequence[int]) -> int:
    """A player's seat imbalance: most-used seat minus least-used seat (the benchmark's measure)."""
    return max(counts) - min(counts) if counts else 0


def least_used_mask(counts: Sequence[int] | None, table_size: int) -> int:
    """Bitmask of the seats a player has used least: taking one of them never worsens their balance."""
    if counts is None:
        return (1 << table_size) - 1
    low = min(counts)
    return sum(1 << s for s, c in enumerate(counts) if c == low)


_MATCH_MEMO: dict[tuple[int, ...], int] = {}


def _seat_conflicts(masks: tuple[int, ...]) -> int:
    """How many players at a table cannot get a least-used seat: size minus a maximum matching."""
    key = tuple(sorted(masks))
    hit = _MATCH_MEMO.get(key)
    if hit is not None:
        return hit
    best = 0
    states = {0: 0}  # used-seat mask -> players matched
    for m in key:
        nxt = dict(states)
        for used, got in states.items():
            free = m & ~used
            while free:
                bit = free & -free
                free ^= bit
                u = used | bit
                if nxt.get(u, -1) < got + 1:
                    nxt[u] = got + 1
        states = nxt
    best = max(states.values())
    result = len(key) - best
    if len(_MATCH_MEMO) < 200_000:
        _MATCH_MEMO[key] = result
    return result


class GroupSearch:
    """The local search over groupings of ``n`` players (local indices) into tables of ``k``.

    Each table keeps its cost and, per member, that member's share of the pair cost and the sorted
    seat masks of the others, so one swap is priced with a few dictionary look-ups.
    """

    def __init__(self, k: int, met: list[dict[int, int]], pts: list[float], masks: list[int],
                 rng: random.Random) -> None:
        self.k = k
        self.met = met
        self.pts = pts
        self.masks = masks
        self.rng = rng

    def pair_cost(self, x: int, others: Iterable[int]) -> float:
        """Pair part of the cost between ``x`` and ``others``: repeats, then the points gap squared."""
        row = self.met[x]
        px = self.pts[x]
        total = 0.0
        for o in others:
            c = row.get(o)
            if c:
                total += REPEAT_WEIGHT * c
            d = px - self.pts[o]
            total += SPREAD_WEIGHT * d * d
        return total

    def table_cost(self, t: Sequence[int]) -> float:
        total = 0.0
        for i, x in enumerate(t):
            total += self.pair_cost(x, t[i + 1:])
        return total + SEAT_WEIGHT * _seat_conflicts(tuple(self.masks[x] for x in t))

    def repeats(self, t: Sequence[int]) -> int:
        return sum(self.met[x].get(y, 0) for i, x in enumerate(t) for y in t[i + 1:])

    def defective(self, t: Sequence[int]) -> bool:
        return self.repeats(t) > 0 or _seat_conflicts(tuple(self.masks[x] for x in t)) > 0

    def _prepare(self, t: list[int]) -> tuple[float, list[float], list[tuple[int, ...]], float]:
        """(pair cost, each member's pair share, each member's others' masks, full cost) of a table."""
        shares = [self.pair_cost(x, t[:i] + t[i + 1:]) for i, x in enumerate(t)]
        pair_total = sum(shares) / 2
        rest_masks = [tuple(sorted(self.masks[y] for j, y in enumerate(t) if j != i)) for i in range(len(t))]
        full = pair_total + SEAT_WEIGHT * _seat_conflicts(tuple(self.masks[x] for x in t))
        return pair_total, shares, rest_masks, full

    def improve(self, tables: list[list[int]], budget: int = SEARCH_EVALS) -> tuple[list[list[int]], float]:
        """Best-improvement swaps out of defective tables, with random kicks out of local minima.

        Candidate partner tables are tried nearest in standing first (a window), all tables only when
        the window offers nothing. Returns the cheapest grouping seen and its cost.
        """
        k = self.k
        tables = [list(t) for t in tables]
        n_tables = len(tables)
        info = [self._prepare(t) for t in tables]
        best = ([list(t) for t in tables], sum(i[3] for i in info))
        evals = 0
        kicks = 0
        masks = self.masks
        conflicts = _seat_conflicts

        def best_swap(ti: int, ai: int, candidates: Iterable[int]) -> tuple[float, int, int] | None:
            nonlocal evals
            a = tables[ti][ai]
            pair_i, shares_i, rest_masks_i, full_i = info[ti]
            rest_i = tables[ti][:ai] + tables[ti][ai + 1:]
            base_i = pair_i - shares_i[ai]
            key_i = rest_masks_i[ai]
            mask_a = masks[a]
            found: tuple[float, int, int] | None = None
            best_delta = -1e-9
            for tj in candidates:
                tab_j = tables[tj]
                pair_j, shares_j, rest_masks_j, full_j = info[tj]
                for bj in range(k):
                    b = tab_j[bj]
                    evals += 1
                    new_i = (base_i + self.pair_cost(b, rest_i)
                             + SEAT_WEIGHT * conflicts((*key_i, masks[b])))
                    new_j = (pair_j - shares_j[bj] + self.pair_cost(a, tab_j[:bj] + tab_j[bj + 1:])
                             + SEAT_WEIGHT * conflicts((*rest_masks_j[bj], mask_a)))
                    delta = new_i + new_j - full_i - full_j
                    if delta < best_delta:
                        best_delta, found = delta, (delta, tj, bj)
            return found

        def apply(ti: int, ai: int, tj: int, bj: int) -> None:
            tables[ti][ai], tables[tj][bj] = tables[tj][bj], tables[ti][ai]
            info[ti] = self._prepare(tables[ti])
            info[tj] = self._prepare(tables[tj])

        window = 6
        while evals < budget:
            bad = [i for i in range(n_tables) if self.defective(tables[i])]
            if not bad:
                break
            moved = False
            for ti in bad:
                for ai in range(k):
                    near = [j for d in range(1, window + 1) for j in (ti - d, ti + d) if 0 <= j < n_tables]
                    move = best_swap(ti, ai, near)
                    if move is None and n_tables > 2 * window + 1:
                        far = [j for j in range(n_tables) if j != ti and abs(j - ti) > window]
                        move = best_swap(ti, ai, far)
                    if move is not None:
                        apply(ti, ai, move[1], move[2])
                        moved = True
            total = sum(i[3] for i in info)
            if total < best[1] - 1e-9:
                best = ([list(t) for t in tables], total)
            if not moved:
                # A local minimum with defects left: kick one defective player elsewhere and descend again.
                kicks += 1
                if kicks > 40 or n_tables < 2:
                    break
                ti = self.rng.choice(bad)
                tj = self.rng.choice([j for j in range(ti - 2, ti + 3) if j != ti and 0 <= j < n_tables])
                apply(ti, self.rng.randrange(k), tj, self.rng.randrange(k))
        return best


class _OutOfWork(Exception):
    pass


def repeat_free_grouping(order: Sequence[int], k: int, met: Sequence[Mapping[int, int]],
                         node_limit: int = EXACT_NODES) -> list[list[int]] | None:
    """Tables of ``k`` with no two players who met before, preferring standing order; None if none.

    Depth-first: the first player left takes the earliest compatible companions. Complete (it finds a
    grouping whenever one exists) unless it runs out of its ``node_limit``, which small fields never do.
    Raises nothing; returns None on exhaustion too.
    """
    nodes = 0

    def compatible(x: int, chosen: Sequence[int]) -> bool:
        return all(c not in met[x] for c in chosen)

    def rec(remaining: list[int]) -> list[list[int]] | None:
        nonlocal nodes
        if not remaining:
            return []
        # Prune: a player with too few compatible players left can never be seated.
        for x in remaining:
            if sum(1 for y in remaining if y != x and y not in met[x]) < k - 1:
                return None
        p, rest = remaining[0], remaining[1:]
        cands = [q for q in rest if q not in met[p]]

        def choose(start: int, chosen: list[int]) -> list[list[int]] | None:
            nonlocal nodes
            if len(chosen) == k - 1:
                nodes += 1
                if nodes > node_limit:
                    raise _OutOfWork
                taken = set(chosen)
                sub = rec([r for r in rest if r not in taken])
                return None if sub is None else [[p, *chosen], *sub]
            for i in range(start, len(cands)):
                q = cands[i]
                if compatible(q, chosen):
                    found = choose(i + 1, [*chosen, q])
                    if found is not None:
                        return found
            return None

        return choose(0, [])

    try:
        return rec(list(order))
    except _OutOfWork:
        return None


def assign_seats(members: Sequence[int], counts: Mapping[int, Sequence[int]], table_size: int,
                 rng: random.Random) -> tuple[int, ...]:
    """Seat order for one table: each player in a seat they used least, evenly across positions.

    Among all orders (at most 5! = 120) the one with the fewest players outside a least-used seat,
    then the smallest sum of squared seat counts afterwards; the seeded draw decides the rest.
    """
    zero = [0] * table_size
    best_key: tuple[int, int, float] | None = None
    best: tuple[int, ...] = tuple(members)
    for perm in itertools.permutations(members):
        conflicts = 0
        square = 0
        for pos, who in enumerate(perm):
            c = counts.get(who, zero)
            if pos < len(c) and c[pos] != min(c):
                conflicts += 1
            used = (c[pos] if pos < len(c) else 0) + 1
            square += used * used
        key = (conflicts, square, rng.random())
        if best_key is None or key < best_key:
            best_key, best = key, perm
    return best


def choose_byes(candidates: Sequence[int], count: int, byes_so_far: Mapping[int, int],
                points: Mapping[int, Fraction], ratings: Mapping[int, float], rng: random.Random) -> list[int]:
    """The ``count`` entrants who sit out: fewest byes so far, then lowest points, then lowest rating."""
    draw = {i: rng.random() for i in candidates}
    order = sorted(candidates, key=lambda i: (byes_so_far.get(i, 0), points.get(i, Fraction(0)),
                                              ratings.get(i, 0.0), draw[i]))
    return order[:count]


def _rng(seed: int, round_no: int, salt: int) -> random.Random:
    return random.Random(f"{seed}/{round_no}/{salt}")


def group_tables(order: Sequence[int], k: int, history: Sequence[PastGame], points: Mapping[int, Fraction],
                 point_unit: Fraction, table_size: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Cut ``order`` (best first) into tables of ``k`` and improve them (module docstring, steps 2–3)."""
    ids = list(order)
    local = {e: i for i, e in enumerate(ids)}
    met_all = meetings(history)
    met = [{local[o]: c for o, c in met_all.get(e, {}).items() if o in local} for e in ids]
    unit = float(point_unit) or 1.0
    pts = [float(points.get(e, Fraction(0))) / unit for e in ids]
    counts = seat_counts(history, table_size)
    masks = [least_used_mask(counts.get(e), table_size) for e in ids]
    search = GroupSearch(k, met, pts, masks, rng)
    start = [list(range(i, i + k)) for i in range(0, len(ids), k)]
    tables, cost = search.improve(start)
    if len(ids) <= EXACT_FIELD and any(search.repeats(t) for t in tables):
        exact = repeat_free_grouping(list(range(len(ids))), k, met)
        if exact is not None:
            tables2, cost2 = search.improve(exact)
            if cost2 < cost:
                tables, cost = tables2, cost2
    # Top tables first: by the best standing seated at each.
    tables.sort(key=min)
    seat_rng = random.Random(rng.random())
    return [assign_seats([ids[x] for x in t], counts, table_size, seat_rng) for t in tables]


def pair_swiss(
    entrants: Sequence[Entrant],
    history: Sequence[PastGame],
    byes_so_far: Mapping[int, int],
    table_size: int,
    round_no: int,
    seed: int = 0,
    points_by_place: Sequence[float] | None = None,
) -> Round:
    """The next Swiss round: similar standing together, no repeat opponents where avoidable,
    seat order balanced, byes to the fewest-byes entrants when the field does not divide.

    Withdrawn entrants are not seated. ``points_by_place`` is the tournament's points list (default:
    linear, see ``points``). Fewer active entrants than one table seats (withdrawals) give a round
    without tables and without byes: the tournament is over. Raises ValueError for a table size below
    2, an entrant listed twice, or a bad points list.
    """
    check_table_size(table_size)
    active = [e for e in entrants if not e.withdrawn]
    if len({e.id for e in active}) != len(active):
        raise ValueError("an entrant appears twice")
    if len(active) < table_size:
        return Round(tables=())  # nobody can play: the tournament cannot go on (the site ends it)
    rng = _rng(seed, round_no, 1)
    ids = sorted(e.id for e in active)  # the order entrants are listed in must not matter
    points = current_points(ids, history, byes_so_far, table_size, points_by_place)
    ratings = {e.id: e.rating for e in active}
    draw = {i: rng.random() for i in ids}
    order = sorted(ids, key=lambda i: (-points[i], -ratings[i], draw[i]))
    byes = choose_byes(order, len(order) % table_size, byes_so_far, points, ratings, rng)
    taken = set(byes)
    seated = [i for i in order if i not in taken]
    table = points_table(table_size, points_by_place)
    unit = table[0] - table[-1]
    tables = group_tables(seated, table_size, history, points, unit, table_size, rng)
    return Round(tables=tuple(Table(t) for t in tables), byes=tuple(sorted(byes)))
