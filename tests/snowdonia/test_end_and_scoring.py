"""Both ends of the game, solo rules, and scoring with the optimal contract choice."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from ludothek.games.snowdonia.components import Contract, scenario
from ludothek.games.snowdonia.scoring import Holdings, contract_value_alone, optimal_assignment

from .helpers import kind, new, place, play, settle
from .test_actions import clear_route_until

C = scenario().contracts


def holdings(stations: int = 0, track: int = 0, rubble: int = 0, coal: int = 0, surveyor: float = 0) -> Holdings:
    return Holdings(stations, track, rubble, coal, surveyor)


# ----- the end ----------------------------------------------------------------------------
def test_player_laying_the_last_track_ends_the_game_after_that_round() -> None:
    st = new(2)
    for t in st.tracks[:-1]:
        t.update(laid=True, rubble=0)
    st.tracks[-1]["rubble"] = 0
    st.players[1]["steel"] = 1
    yard = dict(st.yard)
    place(st, {0: ["G", "G"], 1: ["D1", "G"]})
    assert st.over and st.round == 1
    assert st.tracks[-1]["owner"] == 1
    assert st.yard == yard  # no restock after the last round
    assert st.legal_actions() == []


def test_two_players_end_when_nobody_has_markers() -> None:
    st = new(2)
    for pl in st.players:
        pl["markers"] = 0
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    assert st.over


def test_three_players_do_not_end_for_missing_markers() -> None:
    st = new(3)
    for pl in st.players:
        pl["markers"] = 0
    place(st, {0: ["G", "G"], 1: ["G", "G"], 2: ["G", "G"]})
    settle(st)
    assert not st.over and st.round == 2


def test_markers_run_out_for_one_player_only() -> None:
    st = new(2)
    st.players[0]["markers"] = 0
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    settle(st)
    assert not st.over


# ----- solo -------------------------------------------------------------------------------
def test_solo_ends_immediately_when_all_16_markers_are_placed() -> None:
    st = new(1)
    st.players[0]["markers"] = 1
    clear_route_until(st, 0)
    st.players[0]["steel"] = 1
    place(st, {0: ["D1", "G"]})
    assert st.over and st.result()[0].rank == 1
    assert st.players[0]["surveyor"] == 0  # the game ended before area G


def test_two_players_end_immediately_with_the_last_marker() -> None:
    st = new(2)
    st.players[0]["markers"] = 0
    st.players[1].update(markers=1, steel=1)
    clear_route_until(st, 0)
    place(st, {0: ["G", "G"], 1: ["D1", "G"]})
    assert st.over and st.tracks[0]["owner"] == 1
    assert st.players[0]["surveyor"] == 0


def test_solo_row_is_discarded_and_refilled_every_round() -> None:
    st = new(1, row=(10, 11, 12))
    place(st, {0: ["G", "G"]})
    settle(st)
    assert st.discard == [10, 11, 12] and None not in st.row and not set(st.row) & {10, 11, 12}


def test_solo_train_lost_to_maintenance_never_returns() -> None:
    st = new(1, options={"solo_train": "4"})
    st.players[0]["train"] = 4
    st.shed = []
    st.events = [True] * 5 + [False] * 5
    st.bag = {"iron": 0, "stone": 0, "coal": 0, "event": 1}
    place(st, {0: ["G", "G"]})
    settle(st)
    assert st.players[0]["train"] is None and st.shed == []


# ----- scoring ----------------------------------------------------------------------------
def test_optimal_assignment_beats_greedy_on_track_markers() -> None:
    # 6 track markers: greedy takes #20 (5 track, 40) and then #25 (1 track, 7) = 47,
    # but #21 + #22 (3 track each, 24 + 24) = 48.
    cards = [C[20], C[21], C[22], C[25]]
    best, values = optimal_assignment(cards, holdings(track=6))
    assert best == 48 and values == {20: 0, 21: 24, 22: 24, 25: 0}


def test_optimal_assignment_over_several_resources() -> None:
    # 2 station markers, 2 track, 12 rubble:
    # #4 (2 stations + 2 track = 17) uses both track markers; #5 (2 st + 1 tr + 4 rubble = 14) competes for the
    # stations; #12 (12 rubble = 16) competes with #5 and #11 for rubble.
    cards = [C[4], C[5], C[11], C[12]]
    best, values = optimal_assignment(cards, holdings(stations=2, track=2, rubble=12))
    assert best == 17 + 16 and values[4] == 17 and values[12] == 16 and values[5] == 0 and values[11] == 0
    # with 16 rubble #11 fits as well
    best, _ = optimal_assignment(cards, holdings(stations=2, track=2, rubble=16))
    assert best == 17 + 16 + 5


def test_surveyor_serves_one_contract_and_coal_scores_two_each() -> None:
    cards = [C[28], C[29], C[27]]
    best, values = optimal_assignment(cards, holdings(stations=5, surveyor=6, coal=3))
    assert values == {27: 6, 28: 23, 29: 0} and best == 29
    best, values = optimal_assignment(cards, holdings(stations=4, surveyor=7))
    assert values[29] == 15 and values[28] == 0 and best == 15


def test_unfulfilled_contracts_score_nothing() -> None:
    best, values = optimal_assignment([C[17], C[1]], holdings(rubble=15, stations=4))
    assert best == 0 and values == {1: 0, 17: 0}


def test_final_score_hand_computed() -> None:
    st = new(3)
    si = st.lay.station_index("hebron")
    st.sites[si]["build"][0] = 0  # 6
    st.sites[si]["dig"][0]["owner"] = 0  # 3
    st.sites[1]["build"][1] = 0  # 7
    st.tracks[0].update(laid=True, owner=0)  # number 2
    st.tracks[5].update(laid=True, owner=0)  # number 3
    st.players[0].update(surveyor=st.lay.station_index("halfway"), train=4, rubble=5, coal=2, used=[3, 24], unused=[11, 27])
    parts = st.score_parts(0)
    # stations 6+3+7 = 16, track 2+3 = 5, surveyor Halfway 7, train No. 4: 9,
    # contracts: #3 (3 stations) 6, #24 (1 track) 4, #11 (4 rubble) 5, #27 2 coal = 4
    assert parts["stations"] == 16 and parts["track"] == 5 and parts["surveyor"] == 7 and parts["train"] == 9
    assert parts["contracts"] == 6 + 4 + 5 + 4
    assert parts["total"] == 16 + 5 + 7 + 9 + 19
    panel = st.view(1)["panels"][0]
    assert panel["points_now"] == 21 and panel["points_final"] == 56
    assert {c["number"]: c["value"] for c in panel["contracts"]["used"]} == {3: 6, 24: 4}


def test_tie_goes_to_the_player_later_in_turn_order() -> None:
    st = new(3)
    st.start_player = 1
    place(st, {1: ["G", "G"], 2: ["G", "G"], 0: ["G", "G"]})
    settle(st)
    st.over = True
    st.order = [1, 2, 0]
    for s in range(3):
        st.players[s]["surveyor"] = 2
    ranks = {r.seat: r.rank for r in st.result()}
    assert ranks == {0: 1, 2: 2, 1: 3}


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_a_decision_is_always_pending_until_the_end(n: int) -> None:
    st = new(n)
    assert kind(st) in ("place", "pub")
    play(st)


def test_solo_also_gets_the_build_space_in_area_b() -> None:
    st = new(1)
    for t in st.tracks:
        t["rubble"] = 0
    for s in st.sites:
        for d in s["dig"]:
            d["rubble"] = 0
    place(st, {0: ["G", "G"]})
    settle(st)
    assert st.b_build and st.area_spaces("B") == ["B1"]


def test_solo_train_is_the_only_one_and_needs_the_event() -> None:
    st = new(1, options={"solo_train": "7"})
    st.players[0]["steel"] = 2
    assert [t["number"] for t in st.shed] == [7]
    place(st, {0: ["E1", "G"]})
    settle(st)
    assert st.players[0]["train"] is None  # no trains before the event
    st.trains_available = True
    place(st, {0: ["E1", "G"]})
    assert st.legal_actions() == ["train:7"]


def brute_force(cards: list[Contract], h: Holdings) -> int:
    """Try every subset of contracts: the reference the dynamic programme must match."""
    best = 0
    for k in range(len(cards) + 1):
        for subset in combinations(cards, k):
            if sum(c.stations for c in subset) > h.stations or sum(c.track for c in subset) > h.track:
                continue
            if sum(c.rubble for c in subset) > h.rubble or sum(c.uses_surveyor for c in subset) > 1:
                continue
            best = max(best, sum(contract_value_alone(c, h) for c in subset))
    return best


@settings(max_examples=60)
@given(
    numbers=hst.sets(hst.integers(1, 30), min_size=0, max_size=9),
    stations=hst.integers(0, 10),
    track=hst.integers(0, 10),
    rubble=hst.integers(0, 40),
    coal=hst.integers(0, 5),
    surveyor=hst.sampled_from([0, 1, 4, 5, 6, 7]),
)
def test_optimal_assignment_equals_brute_force(
    numbers: set[int], stations: int, track: int, rubble: int, coal: int, surveyor: int
) -> None:
    cards = [C[n] for n in sorted(numbers)]
    h = holdings(stations, track, rubble, coal, surveyor)
    best, values = optimal_assignment(cards, h)
    assert best == brute_force(cards, h) == sum(values.values())
