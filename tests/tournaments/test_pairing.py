"""Swiss pairing properties (issue 31): seats, byes, repeat avoidance against brute force, determinism."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludothek.services.tournaments.pairing import (
    Entrant,
    PastGame,
    Round,
    meetings,
    pair_swiss,
    repeat_free_grouping,
    seat_counts,
    seat_imbalance,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play(rnd: Round, round_no: int, rng: random.Random) -> list[PastGame]:
    """Random results for every table of a round (ties allowed)."""
    games = []
    for table in rnd.tables:
        places = tuple(rng.randint(1, len(table.seats)) for _ in table.seats)
        games.append(PastGame(round_no, table.seats, places))
    return games


def run_rounds(entrants: list[Entrant], k: int, rounds: int, seed: int) -> tuple[list[PastGame], dict[int, int], Round]:
    """Play ``rounds`` rounds with random results, then pair the next one."""
    rng = random.Random(seed)
    history: list[PastGame] = []
    byes: dict[int, int] = {}
    for r in range(1, rounds + 1):
        rnd = pair_swiss(entrants, history, byes, k, r, seed)
        history += play(rnd, r, rng)
        for b in rnd.byes:
            byes[b] = byes.get(b, 0) + 1
    return history, byes, pair_swiss(entrants, history, byes, k, rounds + 1, seed)


fields = st.integers(2, 5).flatmap(lambda k: st.tuples(
    st.just(k), st.integers(k, 26), st.integers(0, 4), st.integers(0, 3), st.integers(0, 10**6)))


@SETTINGS
@given(fields)
def test_every_active_entrant_is_seated_once_or_has_a_bye_at_full_tables(case: tuple[int, int, int, int, int]) -> None:
    k, n, rounds, withdrawn, seed = case
    withdrawn = min(withdrawn, n - k)
    entrants = [Entrant(i, rating=1500 + (i * 37) % 200, withdrawn=i < withdrawn) for i in range(n)]
    _, byes, rnd = run_rounds(entrants, k, rounds, seed)
    active = {e.id for e in entrants if not e.withdrawn}
    seated = [s for t in rnd.tables for s in t.seats]
    assert all(len(t.seats) == k for t in rnd.tables)
    assert sorted(seated + list(rnd.byes)) == sorted(active)
    assert len(rnd.byes) == len(active) % k
    if rnd.byes:
        # Byes go to the fewest-byes entrants: nobody seated has fewer byes than a bye-taker.
        assert max(byes.get(b, 0) for b in rnd.byes) <= min(byes.get(s, 0) for s in seated)


@SETTINGS
@given(fields)
def test_same_input_same_round(case: tuple[int, int, int, int, int]) -> None:
    k, n, rounds, _, seed = case
    entrants = [Entrant(i) for i in range(n)]
    history, byes, rnd = run_rounds(entrants, k, rounds, seed)
    assert pair_swiss(entrants, history, byes, k, rounds + 1, seed) == rnd
    assert pair_swiss(list(reversed(entrants)), history, byes, k, rounds + 1, seed) == rnd


def partitions(items: list[int], k: int) -> Iterator[list[tuple[int, ...]]]:
    """Every way to cut ``items`` into unordered tables of ``k`` (brute force for small fields)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for others in itertools.combinations(rest, k - 1):
        left = [x for x in rest if x not in others]
        for tail in partitions(left, k):
            yield [(first, *others), *tail]


def repeat_free_exists(ids: list[int], k: int, history: list[PastGame]) -> bool:
    met = meetings(history)
    return any(all(b not in met.get(a, {}) for t in p for a, b in itertools.combinations(t, 2))
               for p in partitions(ids, k))


small_fields = st.sampled_from([(2, 4), (2, 6), (2, 8), (2, 10), (3, 6), (3, 9), (4, 8), (4, 12), (3, 12), (5, 10)])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_fields, st.integers(1, 6), st.integers(0, 10**6))
def test_no_repeat_opponents_whenever_a_repeat_free_round_exists(field: tuple[int, int], past: int, seed: int) -> None:
    """Random earlier tables (not necessarily Swiss ones) and random standings: brute force decides."""
    k, n = field
    rng = random.Random(seed)
    ids = list(range(n))
    history = []
    for r in range(past):
        rng.shuffle(ids)
        history += [PastGame(r, tuple(ids[i:i + k]), tuple(rng.randint(1, k) for _ in range(k)))
                    for i in range(0, n, k)]
    entrants = [Entrant(i, rating=rng.uniform(1000, 2000)) for i in range(n)]
    rnd = pair_swiss(entrants, history, {}, k, past + 1, seed)
    met = meetings(history)
    repeats = sum(1 for t in rnd.tables for a, b in itertools.combinations(t.seats, 2) if b in met.get(a, {}))
    if repeat_free_exists(list(range(n)), k, history):
        assert repeats == 0
    else:
        assert repeats > 0


def test_the_exhaustive_search_finds_a_grouping_exactly_when_one_exists() -> None:
    rng = random.Random(5)
    for _ in range(40):
        k, n = rng.choice([(2, 8), (3, 9), (4, 8)])
        met: list[dict[int, int]] = [{} for _ in range(n)]
        for a, b in itertools.combinations(range(n), 2):
            if rng.random() < 0.45:
                met[a][b] = met[b][a] = 1
        found = repeat_free_grouping(list(range(n)), k, met)
        history = [PastGame(0, (a, b), (1, 2)) for a in range(n) for b in met[a] if a < b]
        assert (found is not None) == repeat_free_exists(list(range(n)), k, history)
        if found is not None:
            assert all(b not in met[a] for t in found for a, b in itertools.combinations(t, 2))


def test_first_round_seats_similar_ratings_together_and_later_rounds_similar_points() -> None:
    entrants = [Entrant(i, rating=2000 - 10 * i) for i in range(16)]
    first = pair_swiss(entrants, [], {}, 4, 1)
    assert [sorted(t.seats) for t in first.tables] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]
    # Round 2: the four winners share a table (they never met).
    history = [PastGame(1, t.seats, tuple(1 + sorted(t.seats).index(s) for s in t.seats)) for t in first.tables]
    second = pair_swiss(entrants, history, {}, 4, 2)
    assert sorted(second.tables[0].seats) == [0, 4, 8, 12]


def test_two_player_seat_order_alternates_over_a_swiss() -> None:
    rng = random.Random(3)
    entrants = [Entrant(i) for i in range(32)]
    history: list[PastGame] = []
    for r in range(1, 8):
        rnd = pair_swiss(entrants, history, {}, 2, r, seed=1)
        history += play(rnd, r, rng)
    counts = seat_counts(history, 2)
    assert max(seat_imbalance(c) for c in counts.values()) <= 1


def test_withdrawn_entrants_are_never_seated_and_bad_input_is_refused() -> None:
    entrants = [Entrant(i, withdrawn=i % 3 == 0) for i in range(9)]
    rnd = pair_swiss(entrants, [], {}, 2, 1)
    assert not {s for t in rnd.tables for s in t.seats} & {0, 3, 6}
    # Too few left for one table (withdrawals): a round without tables, which ends the tournament.
    assert pair_swiss([Entrant(1), Entrant(2), Entrant(3, withdrawn=True)], [], {}, 3, 1) == Round(tables=())
    with pytest.raises(ValueError):
        pair_swiss([Entrant(1), Entrant(1)], [], {}, 2, 1)
    with pytest.raises(ValueError):
        pair_swiss([Entrant(1), Entrant(2)], [], {}, 1, 1)
    with pytest.raises(ValueError):
        pair_swiss([Entrant(1), Entrant(2)], [], {}, 2, 1, points_by_place=(0, 1))
