"""Leagues (schedules, promotion and relegation) and knock-outs with multi-player tables (issue 31)."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludothek.services.tournaments.knockout import (
    knockout_advancers,
    knockout_plan,
    knockout_round,
    pair_knockout,
)
from ludothek.services.tournaments.league import league_schedule, pair_round_robin, promotion
from ludothek.services.tournaments.pairing import Entrant, PastGame, Round, seat_counts, seat_imbalance

SLOW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def meeting_counts(schedule: list[Round]) -> dict[frozenset[int], int]:
    counts: dict[frozenset[int], int] = {}
    for rnd in schedule:
        for t in rnd.tables:
            for a, b in itertools.combinations(t.seats, 2):
                counts[frozenset((a, b))] = counts.get(frozenset((a, b)), 0) + 1
    return counts


@SLOW
@given(st.integers(2, 5).flatmap(lambda k: st.tuples(st.just(k), st.integers(k, 11))), st.integers(0, 1000))
def test_a_season_meets_every_pair_and_seats_everybody_once_a_round(case: tuple[int, int], seed: int) -> None:
    k, n = case
    ids = [100 + 7 * i for i in range(n)]
    schedule = league_schedule(ids, k, seed=seed)
    counts = meeting_counts(schedule)
    assert all(counts.get(frozenset(p), 0) >= 1 for p in itertools.combinations(ids, 2))
    byes = dict.fromkeys(ids, 0)
    for rnd in schedule:
        seated = [s for t in rnd.tables for s in t.seats]
        assert all(len(t.seats) == k for t in rnd.tables)
        assert sorted(seated + list(rnd.byes)) == sorted(ids)
        assert len(rnd.byes) == n % k
        for b in rnd.byes:
            byes[b] += 1
    assert max(byes.values()) - min(byes.values()) <= 1  # byes rotate
    assert league_schedule(ids, k, seed=seed) == schedule


@pytest.mark.parametrize("n", range(2, 15))
def test_two_player_leagues_are_exact_round_robins_with_balanced_first_moves(n: int) -> None:
    ids = list(range(n))
    for meetings in (1, 2):
        schedule = league_schedule(ids, 2, meetings=meetings)
        assert len(schedule) == meetings * (n - 1 if n % 2 == 0 else n)
        assert set(meeting_counts(schedule).values()) == {meetings}
        history = [PastGame(r, t.seats, (1, 2)) for r, rnd in enumerate(schedule) for t in rnd.tables]
        assert all(seat_imbalance(c) <= 1 for c in seat_counts(history, 2).values())


def test_league_refuses_impossible_divisions() -> None:
    with pytest.raises(ValueError):
        league_schedule([1, 2], 3)
    with pytest.raises(ValueError):
        league_schedule([1, 1, 2], 2)
    with pytest.raises(ValueError):
        league_schedule([1, 2, 3], 2, meetings=0)


@given(st.lists(st.integers(0, 12), min_size=1, max_size=5), st.integers(0, 4), st.integers(0, 4),
       st.integers(0, 1000))
def test_promotion_moves_the_top_up_and_the_bottom_down_and_loses_nobody(sizes: list[int], up: int, down: int,
                                                                         seed: int) -> None:
    rng = random.Random(seed)
    counter = itertools.count(1)
    divisions = [[next(counter) for _ in range(size)] for size in sizes]
    leaving = {i for d in divisions for i in d if rng.random() < 0.1}
    newcomers = [next(counter) for _ in range(rng.randint(0, 3))]
    result = promotion(divisions, up, down, leaving=leaving, newcomers=newcomers)
    assert len(result) == len(divisions)
    everyone = sorted(i for d in divisions for i in d if i not in leaving) + newcomers
    assert sorted(i for d in result for i in d) == sorted(everyone)
    where = {i: d for d, members in enumerate(result) for i in members}
    for d, members in enumerate(divisions):
        staying = [i for i in members if i not in leaving]
        for pos, i in enumerate(staying):
            moved = where[i] - d
            assert moved in (-1, 0, 1)
            if moved == -1:
                assert d > 0 and pos < up
            if moved == 1:
                assert d < len(divisions) - 1 and pos >= len(staying) - down
            if d > 0 and pos < min(up, len(staying)):
                assert moved == -1  # the best of a lower division always go up
    assert all(where[i] == len(result) - 1 for i in newcomers)


def test_promotion_example_of_three_divisions() -> None:
    result = promotion([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], up=1, down=1)
    assert result == [[1, 2, 3, 5], [4, 6, 7, 9], [8, 10, 11, 12]]
    with pytest.raises(ValueError):
        promotion([[1, 2], [2, 3]], 1, 1)


@given(st.integers(2, 5).flatmap(lambda k: st.tuples(st.just(k), st.integers(1, k - 1), st.integers(k, 60))),
       st.integers(0, 1000))
def test_knockout_seats_everyone_and_exactly_the_top_k_of_each_table_advance(case: tuple[int, int, int],
                                                                            seed: int) -> None:
    k, a, n = case
    rng = random.Random(seed)
    alive = rng.sample(range(1000), n)
    rnd = knockout_round(alive, k, a, seed=seed)
    seated = [s for t in rnd.tables for s in t.seats]
    assert all(len(t.seats) == k for t in rnd.tables)
    assert sorted(seated + list(rnd.byes)) == sorted(alive)
    assert len(rnd.byes) == n % k
    assert list(rnd.byes) == [e for e in alive if e in rnd.byes]  # best seeds get the byes
    results = [PastGame(1, t.seats, tuple(rng.randint(1, k) for _ in t.seats)) for t in rnd.tables]
    going = knockout_advancers(rnd, results, a, alive)
    assert len(going) == len(rnd.tables) * a + len(rnd.byes)
    assert going == [e for e in alive if e in set(going)]  # seed order kept
    for t, game in zip(rnd.tables, results, strict=True):
        place = dict(zip(game.seats, game.places, strict=True))
        ahead = [s for s in t.seats if s in going]
        behind = [s for s in t.seats if s not in going]
        assert len(ahead) == a
        assert max(place[s] for s in ahead) <= min(place[s] for s in behind)


def test_knockout_deals_seeds_in_a_snake_and_breaks_cut_ties_by_score_then_seed() -> None:
    rnd = knockout_round(list(range(1, 17)), 4, 2)
    tables = [sorted(t.seats) for t in rnd.tables]
    assert tables == [[1, 8, 9, 16], [2, 7, 10, 15], [3, 6, 11, 14], [4, 5, 12, 13]]
    table = rnd.tables[0]
    places = {1: 1, 8: 2, 9: 2, 16: 4}
    game = PastGame(1, table.seats, tuple(places[s] for s in table.seats))
    rest = [PastGame(1, t.seats, tuple(range(1, 5))) for t in rnd.tables[1:]]
    assert {1, 8} <= set(knockout_advancers(rnd, [game, *rest], 2, list(range(1, 17))))  # seed 8 beats seed 9
    scores = {1: 50.0, 8: 30.0, 9: 31.0, 16: 10.0}
    game = PastGame(1, table.seats, game.places, tuple(scores[s] for s in table.seats))
    going = set(knockout_advancers(rnd, [game, *rest], 2, list(range(1, 17))))
    assert {1, 9} <= going and 8 not in going  # the higher score wins the tie at the cut
    with pytest.raises(ValueError):
        knockout_advancers(rnd, rest, 2, list(range(1, 17)))  # a table without a result


def test_knockout_plan() -> None:
    assert knockout_plan(64, 4, 2) == [64, 32, 16, 8, 4]
    assert knockout_plan(27, 3, 1) == [27, 9, 3]
    assert knockout_plan(10, 4, 2) == [10, 6, 4]
    with pytest.raises(ValueError):
        knockout_plan(5, 4, 2)  # 1 table + 1 bye -> 3 players: no full final
    with pytest.raises(ValueError):
        knockout_round([1, 2, 3], 4, 2)
    with pytest.raises(ValueError):
        knockout_round([1, 2, 3, 4], 4, 4)


def play_out(pair, entrants: list[Entrant], k: int, seed: int, withdraw_after: dict[int, int] | None = None
             ) -> list[Round]:
    """Call a format's pairing round after round with random results until it says the event is over."""
    rng = random.Random(seed)
    history: list[PastGame] = []
    byes: dict[int, int] = {}
    rounds: list[Round] = []
    for r in range(1, 50):
        for who, after in (withdraw_after or {}).items():
            if after == r - 1:
                entrants = [Entrant(e.id, e.rating, True) if e.id == who else e for e in entrants]
        rnd = pair(entrants, history, byes, k, r, seed)
        if rnd is None:
            return rounds
        rounds.append(rnd)
        history += [PastGame(r, t.seats, tuple(rng.sample(range(1, k + 1), k))) for t in rnd.tables]
        for b in rnd.byes:
            byes[b] = byes.get(b, 0) + 1
    raise AssertionError("the event never ended")


def test_round_robin_in_the_shape_of_pair_swiss_ends_after_the_season() -> None:
    entrants = [Entrant(i) for i in range(1, 7)]
    rounds = play_out(pair_round_robin, entrants, 2, seed=3)
    assert rounds == league_schedule(list(range(1, 7)), 2, seed=3)
    rounds = play_out(pair_round_robin, entrants, 2, seed=3, withdraw_after={4: 2})
    assert len(rounds) == 5
    for rnd in rounds[2:]:
        assert all(4 not in t.seats for t in rnd.tables) and 4 not in rnd.byes
        assert len(rnd.byes) == 1  # the withdrawn player's opponent sits out


@pytest.mark.parametrize(("n", "k", "expected"), [(16, 4, 3), (16, 2, 4), (27, 3, 3), (11, 5, 2), (9, 3, 2), (10, 4, 3)])
def test_knockout_in_the_shape_of_pair_swiss_plays_down_to_one_final_table(n: int, k: int, expected: int) -> None:
    entrants = [Entrant(i, rating=1500 + 10 * i) for i in range(n)]
    rounds = play_out(pair_knockout, entrants, k, seed=1)
    assert len(rounds) == expected == len(knockout_plan(n, k, max(1, k // 2)))
    assert [sum(len(t.seats) for t in r.tables) + len(r.byes) for r in rounds] == knockout_plan(n, k, max(1, k // 2))
    assert len(rounds[-1].tables) == 1 and not rounds[-1].byes
    finalists = set(rounds[-1].tables[0].seats)
    assert all(any(f in t.seats for t in rounds[-2].tables) or f in rounds[-2].byes for f in finalists)


def test_a_knockout_whose_field_cannot_reach_a_full_final_stops_instead_of_guessing() -> None:
    with pytest.raises(ValueError):
        knockout_plan(12, 3, 1)  # 12 -> 4 -> 2: refused when the tournament is set up
    rounds = play_out(pair_knockout, [Entrant(i) for i in range(12)], 3, seed=1)
    assert len(rounds) == 2
