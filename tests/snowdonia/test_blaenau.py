"""The variant Blaenau Ffestiniog: every rule of the seed's section, with chance outcomes chosen explicitly."""

from __future__ import annotations

import pytest

from ludothek.engine import IllegalAction
from ludothek.games.snowdonia import SnowdoniaState

from .helpers import kind, new, passes, place, play, settle

BF = {"map": "blaenau_ffestiniog"}


def blaenau(n: int = 2, ends: tuple[str, ...] = ("blaenau", "porthmadog"), outside: str = "blaenau") -> SnowdoniaState:
    """A Blaenau Ffestiniog game at the start of round 1: each seat's end (in turn order), then the outside surveyor."""
    st = new(n, options=BF)
    for end in ends:
        if kind(st) != "end":
            break
        st.apply_action(f"end:{end}")
    assert kind(st) == "outside" and st.decision is not None and st.decision["seat"] == st.order[-1]
    st.apply_action(f"outside:{outside}")
    settle(st)
    assert st.round == 1 and kind(st) == "place"
    return st


def station(st: SnowdoniaState, key: str) -> int:
    return st.lay.station_index(key)


# ----- set-up ---------------------------------------------------------------------------
def test_blaenau_lies_on_the_llanberis_space_and_porthmadog_is_the_other_end() -> None:
    st = new(2, options=BF)
    keys = [s.key for s in st.lay.stations]
    assert keys[0] == "blaenau" and keys[-1] == "porthmadog" and "plas" in keys
    assert st.lay.stations[station(st, "plas")].number == 4
    assert "dduallt" not in keys  # like Waterfall Station, only with 3-4 players
    assert "dduallt" in [s.key for s in new(3, options=BF).lay.stations]
    assert st.scen.provisional and st.view(0)["provisional"] is True


def test_contracts_28_and_29_are_out_of_the_game() -> None:
    st = new(4, options=BF)
    in_game = set(st.deck) | {c for c in st.row if c is not None}
    assert 28 not in in_game and 29 not in in_game
    assert 28 not in st.scen.contracts and 29 not in st.scen.contracts


def test_event_cube_on_space_7_and_trains_on_sale_from_the_start() -> None:
    st = blaenau(2)
    assert st.events[6] and not any(st.events[:6] + st.events[7:])
    assert st.bag["event"] == 4  # the fifth cube lies on space 7
    assert st.trains_available
    assert st.place_event_cube() == 8  # only spaces 8-10 are used


def test_ends_are_chosen_in_turn_order_with_three_places_each() -> None:
    st = new(4, options=BF)
    seats = []
    for _ in range(3):
        assert kind(st) == "end" and st.decision is not None
        seats.append(st.decision["seat"])
        assert st.legal_actions() == ["end:blaenau", "end:porthmadog"]
        st.apply_action("end:blaenau")
    assert seats == [0, 1, 2]
    # The fourth player has no choice left: Blaenau Ffestiniog is full.
    assert st.players[3]["end"] == "porthmadog" and st.players[3]["surveyor"] == len(st.lay.stations) - 1
    assert kind(st) == "outside" and st.decision is not None and st.decision["seat"] == 3
    with pytest.raises(IllegalAction):
        st.apply_action("end:porthmadog")
    st.apply_action("outside:porthmadog")
    assert st.outside_end == "porthmadog"


# ----- excavating and laying track from the own end ---------------------------------------
def test_each_player_excavates_from_their_own_end() -> None:
    st = blaenau(2, ends=("blaenau", "porthmadog"))
    first, last = st.lay.slots_before[1][0], st.lay.slots_before[-1][-1]
    before_first, before_last = st.tracks[first]["rubble"], st.tracks[last]["rubble"]
    assert before_first > 0 and before_last > 0
    place(st, {0: ["G", "G"], 1: ["B1", "G"]})
    assert st.tracks[first]["rubble"] == before_first  # nobody worked at Blaenau's end
    assert st.tracks[last]["rubble"] < before_last or st.players[1]["rubble"] == before_last
    assert st.players[1]["rubble"] > 0


def test_each_player_lays_track_from_their_own_end() -> None:
    st = blaenau(2, ends=("blaenau", "porthmadog"))
    for t in st.tracks:
        t["rubble"] = 0
    st.players[1]["steel"] = 1
    place(st, {0: ["G", "G"], 1: ["D1", "G"]})
    assert st.tracks[-1]["owner"] == 1 and st.tracks[-1]["laid"]
    assert not st.tracks[0]["laid"]


# ----- maintenance once Plas Halt is cleared -------------------------------------------------
def test_trains_need_maintenance_once_plas_halt_has_no_rubble() -> None:
    st = blaenau(2)
    st.players[0].update(train=4, steel=1)
    st.shed = [t for t in st.shed if t["number"] != 4]
    place(st, {0: ["G", "G"], 1: ["G", "G"]}, then_settle=False)
    settle(st, prefer=["bag:iron"])
    assert not st.plas_maintenance  # Plas Halt still has rubble: nothing happens
    for d in st.sites[station(st, "plas")]["dig"]:
        d["rubble"] = 0
    place(st, {0: ["G", "G"], 1: ["G", "G"]}, then_settle=False)
    settle(st, prefer=["bag:iron"])
    assert st.plas_maintenance and kind(st) == "maint"
    play(st, "maint:steel", prefer=["bag:iron"])
    assert st.players[0]["train"] == 4 and st.players[0]["steel"] == 0


# ----- building -------------------------------------------------------------------------------
def test_building_needs_the_surveyor_there_but_no_cleared_track() -> None:
    st = blaenau(2, ends=("blaenau", "porthmadog"))
    st.players[0].update(stone=5, steel=2)
    tany = station(st, "tanygrisiau")
    assert st.tracks[st.lay.slots_before[tany][0]]["rubble"] > 0  # the track there is not cleared
    assert not [a for a in st.build_options(0) if a.startswith("build:")]  # surveyor still at the start
    st.players[0]["surveyor"] = tany
    options = st.build_options(0)
    assert "build:tanygrisiau.1" in options and not any(o.startswith("build:tanybwlch") for o in options)
    # The other player comes from Porthmadog Harbour: Minffordd is the first station it reaches.
    st.players[1].update(stone=5, steel=2, surveyor=station(st, "minffordd"))
    assert any(o.startswith("build:minffordd") for o in st.build_options(1))
    assert not any(o.startswith("build:tanygrisiau") for o in st.build_options(1))


def test_some_stations_give_free_cubes_from_the_bag_and_the_bonus_lapses_when_it_is_empty() -> None:
    st = blaenau(2, ends=("blaenau", "porthmadog"))
    st.players[1].update(stone=1, surveyor=station(st, "minffordd"))
    bag_stone = st.bag["stone"]
    st.do_build(1, "build:minffordd.3")  # 1 stone for 7 points, and Minffordd gives a stone back
    assert st.players[1]["stone"] == 1 and st.bag["stone"] == bag_stone
    st.players[1].update(steel=1, surveyor=station(st, "penrhyn"))
    st.bag["coal"] = 0
    st.do_build(1, "build:penrhyn.2")
    assert st.players[1]["coal"] == 0  # no coal in the bag: the bonus lapses
    st.players[0].update(stone=3, surveyor=station(st, "tanybwlch"))
    iron = st.bag["iron"]
    st.do_build(0, "build:tanybwlch.1")
    assert st.players[0]["iron"] == 1 and st.bag["iron"] == iron - 1
    assert st.players[0]["stone"] == 0  # no bonus stone at Tan-y-Bwlch


# ----- surveyors --------------------------------------------------------------------------------
def test_the_first_surveyor_move_leaves_a_marker_on_the_start_station() -> None:
    st = blaenau(2, ends=("blaenau", "porthmadog"))
    last = len(st.lay.stations) - 1
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    for seat, start, now in ((0, 0, 2), (1, last, last - 2)):
        pl = st.players[seat]
        assert pl["start_marker"] and pl["markers"] == 15 and pl["surveyor"] == now, (seat, start)
    passes(st)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    assert st.players[0]["markers"] == 15  # only the first move costs a marker


def test_surveyor_points_count_from_the_own_end() -> None:
    st = blaenau(2, ends=("blaenau", "porthmadog"))
    st.players[0]["surveyor"] = station(st, "plas")
    st.players[1]["surveyor"] = station(st, "plas")
    assert st.score_parts(0)["surveyor"] == 7 and st.score_parts(1)["surveyor"] == 4
    assert st.holdings(0).surveyor_number == 4 and st.holdings(1).surveyor_number == 3


# ----- events ---------------------------------------------------------------------------------------
def test_events_run_from_the_outside_surveyors_end_and_alternate() -> None:
    st = blaenau(2, outside="porthmadog")
    st.rates["excavate"] = 1  # one field per excavate event
    last_slot = st.lay.slots_before[-1][-1]
    first_slot = st.lay.slots_before[1][0]
    st._task_event(8)  # excavate
    assert st.tracks[last_slot]["rubble"] == 0 and st.tracks[first_slot]["rubble"] > 0
    assert st.outside_end == "blaenau"
    st._task_event(8)
    assert st.tracks[first_slot]["rubble"] == 0 and st.outside_end == "porthmadog"


def test_a_whole_game_is_played_to_the_end_for_one_to_four_players() -> None:
    import random

    from ludothek.engine.conformance import random_action

    for n in (1, 2, 3, 4):
        rng = random.Random(n)
        st = new(n, options=BF)
        for _ in range(5000):
            if st.is_terminal():
                break
            st.apply_action(random_action(st, rng))
        assert st.is_terminal()
        assert all(p["end"] in ("blaenau", "porthmadog") for p in st.players)
