"""Knock-out with multi-player tables: the best ``advance_k`` of each table go on (issue 31). Pure.

Rules for players: docs/tournaments.md, "Formats".

* **Seeding.** The entrants still in are given best first (the site seeds by rating, later rounds
  keep the order). They are dealt to the tables in a snake (1, 2, …, m, then m, …, 2, 1), so the
  strongest seeds meet as late as possible and every table gets a similar mix.
* **Byes.** When the field does not divide into tables, the remainder go through without playing:
  the entrants with the fewest byes so far, best seed first (the reward for a good seed, as in any
  knock-out bracket).
* **Advancing.** From each table the ``advance_k`` best places go on. A tie across the cut (two
  seats sharing the last advancing place) is broken by the game's score where the game reports one,
  then by the better seed: always exactly ``advance_k`` per table.
* **The final** is the round whose field is exactly one table. ``knockout_plan`` tells in advance
  whether a field size reaches a full final; a field that would shrink below one table before that
  is refused when the tournament is set up, not discovered halfway.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from ludothek.services.tournaments.pairing import (
    Entrant,
    PastGame,
    Round,
    Table,
    assign_seats,
    check_table_size,
    seat_counts,
)


def _check(table_size: int, advance_k: int) -> None:
    check_table_size(table_size)
    if not 1 <= advance_k < table_size:
        raise ValueError(f"between 1 and {table_size - 1} players advance from a table of {table_size}, not {advance_k}")


def knockout_plan(entrants: int, table_size: int, advance_k: int) -> list[int]:
    """The field size of every round, ending with the final (one full table); ValueError if none.

    Each round: ``tables = n // table_size`` tables send ``advance_k`` each, and the ``n % table_size``
    byes go through.
    """
    _check(table_size, advance_k)
    sizes = [entrants]
    n = entrants
    while n > table_size:
        n = (n // table_size) * advance_k + n % table_size
        sizes.append(n)
    if n != table_size:
        raise ValueError(f"a knock-out of {entrants} with tables of {table_size} ({advance_k} advancing) "
                         f"ends with {n} players, not a full final table")
    return sizes


def knockout_round(
    alive: Sequence[int],
    table_size: int,
    advance_k: int,
    round_no: int = 1,
    byes_so_far: Mapping[int, int] | None = None,
    history: Sequence[PastGame] = (),
    seed: int = 0,
) -> Round:
    """The tables of one knock-out round for ``alive`` (entrant ids, best seed first).

    ``history`` only balances seats (each player gets a seat they used least, as in Swiss).
    Raises ValueError when fewer than one table's worth of entrants are left or an id repeats.
    """
    _check(table_size, advance_k)
    if len(set(alive)) != len(alive):
        raise ValueError("an entrant appears twice")
    if len(alive) < table_size:
        raise ValueError(f"{len(alive)} entrants cannot fill a table of {table_size}")
    byes_so_far = byes_so_far or {}
    seed_of = {e: i for i, e in enumerate(alive)}
    n_byes = len(alive) % table_size
    byes = sorted(alive, key=lambda e: (byes_so_far.get(e, 0), seed_of[e]))[:n_byes]
    taken = set(byes)
    seated = [e for e in alive if e not in taken]
    m = len(seated) // table_size
    groups: list[list[int]] = [[] for _ in range(m)]
    for i, e in enumerate(seated):
        row, col = divmod(i, m)
        groups[col if row % 2 == 0 else m - 1 - col].append(e)
    counts = seat_counts(history, table_size)
    rng = random.Random(f"knockout/{seed}/{round_no}")
    tables = tuple(Table(assign_seats(g, counts, table_size, rng)) for g in groups)
    return Round(tables=tables, byes=tuple(sorted(byes, key=seed_of.__getitem__)))


def knockout_advancers(rnd: Round, results: Sequence[PastGame], advance_k: int, seeding: Sequence[int]) -> list[int]:
    """Who goes on from a played round: the byes and the best ``advance_k`` of each table, in seed order.

    ``results`` holds one finished game per table of ``rnd`` (matched by its set of players); a table
    without a result is an error, since advancing must not guess.
    """
    seed_of = {e: i for i, e in enumerate(seeding)}
    by_table = {frozenset(g.seats): g for g in results}
    going = list(rnd.byes)
    for table in rnd.tables:
        if not 1 <= advance_k < len(table.seats):
            raise ValueError(f"{advance_k} cannot advance from a table of {len(table.seats)}")
        game = by_table.get(frozenset(table.seats))
        if game is None:
            raise ValueError(f"no result for the table {table.seats}")
        place = dict(zip(game.seats, game.places, strict=True))
        score = dict(zip(game.seats, game.scores, strict=True)) if game.scores else {}
        order = sorted(table.seats, key=lambda e: (place[e], -score.get(e, 0.0), seed_of.get(e, len(seed_of))))
        going.extend(order[:advance_k])
    return sorted(going, key=lambda e: seed_of.get(e, len(seed_of)))


def pair_knockout(
    entrants: Sequence[Entrant],
    history: Sequence[PastGame],
    byes_so_far: Mapping[int, int],
    table_size: int,
    round_no: int,
    seed: int = 0,
    advance_k: int | None = None,
) -> Round | None:
    """Round ``round_no`` of a knock-out, in the shape of ``pair_swiss``; None when it is over.

    Seeding: rating, best first (then the earlier entry). The rounds before are replayed from the
    seeding and ``history`` (the same pure functions give the same tables), so the site needs to
    store nothing but games. ``advance_k`` defaults to half a table (one of two, two of four or five,
    one of three). Withdrawn entrants drop out at once. Over when the last round played was the final
    (one table), or fewer players are left than a table seats.
    """
    del byes_so_far
    k = table_size
    advance = advance_k if advance_k is not None else max(1, k // 2)
    gone = {e.id for e in entrants if e.withdrawn}
    seeding = [e.id for e in sorted(entrants, key=lambda e: (-e.rating, e.id))]
    alive = [i for i in seeding if i not in gone]
    byes: dict[int, int] = {}
    for r in range(1, round_no):
        if len(alive) <= k:
            return None  # round r was the final
        earlier = [g for g in history if g.round_no < r]  # as it was when round r was paired
        rnd = knockout_round(alive, k, advance, r, byes, earlier, seed)
        results = [g for g in history if g.round_no == r]
        going = set(knockout_advancers(rnd, results, advance, seeding))
        for b in rnd.byes:
            byes[b] = byes.get(b, 0) + 1
        alive = [i for i in seeding if i in going and i not in gone]
    if len(alive) < k:
        return None
    return knockout_round(alive, k, advance, round_no, byes, [g for g in history if g.round_no < round_no], seed)
