"""Standings (issue 31): a permutation, points conserved, ties share, tie-breaks in the documented order."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludothek.services.tournaments.pairing import Entrant, PastGame, pair_swiss
from ludothek.services.tournaments.points import bye_points, default_points, place_points
from ludothek.services.tournaments.standings import points_awarded, standings


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 5), st.integers(0, 20), st.integers(1, 4), st.integers(0, 10**6),
       st.sampled_from([None, "custom"]))
def test_standings_are_a_permutation_and_conserve_points(k: int, extra: int, rounds: int, seed: int,
                                                          scheme: str | None) -> None:
    n = k + extra
    rng = random.Random(seed)
    points_by_place = None if scheme is None else sorted((rng.randint(0, 10) for _ in range(k)), reverse=True)
    entrants = [Entrant(i, withdrawn=rng.random() < 0.1) for i in range(n)]
    if sum(not e.withdrawn for e in entrants) < k:
        entrants = [Entrant(i) for i in range(n)]
    history: list[PastGame] = []
    byes: dict[int, int] = {}
    for r in range(1, rounds + 1):
        rnd = pair_swiss(entrants, history, byes, k, r, seed, points_by_place=points_by_place)
        for t in rnd.tables:
            history.append(PastGame(r, t.seats, tuple(rng.randint(1, k) for _ in t.seats),
                                    tuple(float(rng.randint(0, 50)) for _ in t.seats)))
        for b in rnd.byes:
            byes[b] = byes.get(b, 0) + 1
    table = standings(entrants, history, byes, k, points_by_place)
    assert sorted(s.entrant for s in table) == sorted(e.id for e in entrants)
    assert [s.rank for s in table] == list(range(1, n + 1))
    assert sum(s.points for s in table) == pytest.approx(float(points_awarded(history, byes, k, points_by_place)))
    keys = [(s.points, s.buchholz, s.head_to_head, s.game_score, -s.entrant) for s in table]
    assert keys == sorted(keys, reverse=True)
    assert sum(s.games for s in table) == k * len(history)
    assert standings(list(reversed(entrants)), history, byes, k, points_by_place) == table


def test_default_points_are_linear_and_ties_share_the_places_they_span() -> None:
    table = default_points(4)
    assert [float(p) for p in table] == [3, 2, 1, 0]
    assert [float(p) for p in place_points((1, 1, 3, 4), table)] == [2.5, 2.5, 1, 0]
    assert [float(p) for p in place_points((2, 1, 2, 2), table)] == [1, 3, 1, 1]
    assert [float(p) for p in place_points((1, 1, 2), default_points(3))] == [1.5, 1.5, 0]  # dense ranks too
    assert float(bye_points(table)) == 1.5
    assert [float(p) for p in default_points(2)] == [1, 0]


def test_tie_breaks_in_order_buchholz_then_head_to_head_then_game_score_then_entry() -> None:
    e = [Entrant(i) for i in range(1, 7)]
    history = [
        PastGame(1, (1, 2), (1, 2), (10, 5)),
        PastGame(1, (3, 4), (1, 2), (7, 6)),
        PastGame(1, (5, 6), (1, 1), (3, 3)),
        PastGame(2, (1, 3), (2, 1), (4, 9)),
        PastGame(2, (2, 5), (1, 2), (8, 2)),
        PastGame(2, (4, 6), (1, 2), (5, 5)),
    ]
    table = {s.entrant: s for s in standings(e, history, {}, 2)}
    # 3 has two wins; 1, 2 and 4 one each; 5 and 6 a draw each.
    assert table[3].points == 2 and table[3].rank == 1
    assert {i: table[i].points for i in (1, 2, 4)} == {1: 1, 2: 1, 4: 1}
    # Buchholz: 1 met 2 (1) and 3 (2) = 3; 2 met 1 (1) and 5 (0.5) = 1.5; 4 met 3 (2) and 6 (0.5) = 2.5.
    assert (table[1].buchholz, table[4].buchholz, table[2].buchholz) == (3, 2.5, 1.5)
    assert [table[i].rank for i in (1, 4, 2)] == [2, 3, 4]
    # 5 and 6: equal points and Buchholz (2 and 4 both have 1) and they drew each other, so the game
    # score decides: 6 scored 3 + 5, 5 only 3 + 2.
    assert table[5].head_to_head == table[6].head_to_head == 0.5
    assert (table[5].game_score, table[6].game_score) == (5, 8)
    assert (table[6].rank, table[5].rank) == (5, 6)


def test_head_to_head_decides_between_equal_points_and_buchholz() -> None:
    g = PastGame
    history = [g(1, (6, 3), (2, 1)), g(1, (4, 5), (2, 1)), g(1, (1, 2), (2, 1)),
               g(2, (1, 5), (1, 2)), g(2, (6, 3), (1, 2)), g(2, (4, 2), (1, 2)),
               g(3, (5, 2), (1, 2)), g(3, (1, 4), (1, 2)), g(3, (6, 3), (2, 1))]
    table = {s.entrant: s for s in standings([Entrant(i) for i in range(1, 7)], history, {}, 2)}
    # 2 and 4 both have one win and Buchholz 5; 4 beat 2 in round 2, so 4 is ahead despite entering later.
    assert (table[2].points, table[2].buchholz) == (table[4].points, table[4].buchholz) == (1, 5)
    assert (table[4].head_to_head, table[2].head_to_head) == (1, 0)
    assert table[4].rank < table[2].rank


def test_a_bye_counts_its_documented_points_and_buchholz() -> None:
    e = [Entrant(i) for i in range(1, 4)]
    history = [PastGame(1, (1, 2), (1, 2))]
    table = {s.entrant: s for s in standings(e, history, {3: 1}, 2)}
    assert table[3].points == 0.5 and table[3].byes == 1 and table[3].games == 0
    assert table[3].buchholz == 0.5  # a bye: opponents with the entrant's own points


def test_bad_points_lists_are_refused() -> None:
    e = [Entrant(1), Entrant(2)]
    with pytest.raises(ValueError):
        standings(e, [], {}, 2, points_by_place=(1,))
    with pytest.raises(ValueError):
        standings(e, [], {}, 2, points_by_place=(0, 2))
    with pytest.raises(ValueError):
        standings([Entrant(1), Entrant(1)], [], {}, 2)
