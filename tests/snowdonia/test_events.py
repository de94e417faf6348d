"""Scenario tests for the end of the round: restocking, every event, the event track."""

from __future__ import annotations

from .helpers import kind, new, place, play, settle

#: The middle card's back is fog: the rates stay as they are for the events of round 1.
FOG = (1, 26, 3)


def end_round_with_events(st, occupied: list[int], cubes: int = 1) -> None:  # type: ignore[no-untyped-def]
    """Finish the round (all workers to the surveyor) with only event cubes in the bag."""
    st.events = [i + 1 in occupied for i in range(10)]
    st.bag = {"iron": 0, "stone": 0, "coal": 0, "event": cubes}
    place(st, {s: ["G", "G"] for s in range(st.num_players)})
    settle(st)


def test_restock_draws_the_player_count_amount_into_the_yard() -> None:
    st = new(3)
    yard = sum(st.yard.values())
    place(st, {0: ["G", "G"], 1: ["G", "G"], 2: ["G", "G"]})
    settle(st, prefer=["bag:iron"])
    assert st.round == 2 and sum(st.yard.values()) == yard + 9


def test_event_1_other_companies_excavate_whole_fields() -> None:
    st = new(2, row=FOG)
    st.tracks[0]["rubble"] = 1
    end_round_with_events(st, [])
    assert st.events[0]
    assert st.tracks[0]["rubble"] == 0 and st.tracks[1]["rubble"] == 0  # excavation rate 2: two whole fields
    assert st.sites[1]["dig"][0]["rubble"] == 4 and st.sites[1]["dig"][0]["owner"] is None
    assert all(p["rubble"] == 0 for p in st.players)


def test_event_2_trains_become_available() -> None:
    st = new(2, row=FOG)
    end_round_with_events(st, [1])
    assert st.trains_available and st.events[1]


def test_event_3_lay_track_from_the_bottom_without_owner() -> None:
    st = new(2, row=FOG)
    end_round_with_events(st, [1, 2])
    assert [t["laid"] for t in st.tracks[:3]] == [True, True, False]  # lay rate 2
    assert st.tracks[0]["rubble"] == 0 and st.tracks[0]["owner"] is None


def test_event_4_completes_a_station_and_returns_three_cubes() -> None:
    st = new(2, row=FOG)
    st.sites[1]["build"][0] = 1  # owner markers stay on a completed station
    end_round_with_events(st, [1, 2, 3])
    assert st.sites[1]["completed"] and all(d["rubble"] == 0 for d in st.sites[1]["dig"])
    assert st.events == [False, False, False, True] + [False] * 6
    assert st.bag["event"] == 3
    assert st.markers_on_stations(1) == [9]
    # no more building there
    assert not st.route.station_open(1)


def test_complete_station_skips_fully_built_stations() -> None:
    st = new(2, row=FOG)
    st.sites[1]["build"] = [0, 0, 1, 1]
    end_round_with_events(st, [1, 2, 3])
    assert not st.sites[1]["completed"] and st.sites[2]["completed"]


def test_event_6_maintenance_steel_card_or_lose() -> None:
    st = new(3)
    st.trains_available = True
    st.players[0].update(train=1, steel=1)
    st.players[1].update(train=2, unused=[21])
    st.players[2].update(train=3)
    st.shed = [t for t in st.shed if t["number"] not in (1, 2, 3)]
    st.deck.remove(21)
    end_round_with_events(st, [4, 5])
    assert kind(st) == "maint" and st.decision["seat"] == 0
    assert st.legal_actions() == ["maint:steel", "maint:lose"]
    play(st, "maint:steel")
    assert st.legal_actions() == ["maint:21", "maint:lose"]
    play(st, "maint:21")
    # seat 2 has nothing to pay with: the train goes back at once
    assert st.players[0]["train"] == 1 and st.players[0]["steel"] == 0
    assert st.players[1]["train"] == 2 and 21 in st.discard
    assert st.players[2]["train"] is None and st.shed_train(3) is not None


def test_returned_trains_get_coal_lowest_number_first() -> None:
    st = new(3)
    st.players[0].update(train=5, steel=1)
    st.players[1].update(train=1, steel=1)
    st.shed = [t for t in st.shed if t["number"] not in (1, 5)]
    end_round_with_events(st, [4, 5])
    st.bag["coal"] = 2
    play(st, "maint:lose", "maint:lose")
    assert st.shed_train(1) == {"number": 1, "coal": 1}
    assert st.shed_train(5) == {"number": 5, "coal": 1}  # one coal short
    # Yucata: the next coal paid into the bag tops the train up first
    st.coal_to_bag(1)
    assert st.shed_train(5) == {"number": 5, "coal": 2} and st.bag["coal"] == 0


def test_event_7_returns_cubes_4_to_6_and_10_returns_8_to_10_then_loop() -> None:
    st = new(2, row=FOG)
    end_round_with_events(st, [4, 5, 6])
    assert st.events == [False] * 6 + [True] + [False] * 3 and st.bag["event"] == 3
    st = new(2, row=FOG)
    end_round_with_events(st, [7, 8, 9])
    assert st.events == [False] * 6 + [True] + [False] * 3 and st.bag["event"] == 3
    st = new(2, row=FOG)
    end_round_with_events(st, [7])
    assert st.events[7]  # the next cube after 10 goes to 8 again


def test_several_events_resolve_one_by_one() -> None:
    st = new(2, row=FOG)
    end_round_with_events(st, [], cubes=3)
    assert st.events[:4] == [True, True, True, False]
    assert st.trains_available and st.tracks[0]["laid"]


def test_event_laying_the_last_track_gives_one_more_round() -> None:
    st = new(2, row=FOG)
    for t in st.tracks[:-1]:
        t.update(laid=True, rubble=0)
    end_round_with_events(st, [1, 2])
    assert st.route.all_laid() and st.end_after == 2 and not st.over
    assert st.round == 2
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    assert st.over and st.round == 2


def test_complete_station_when_every_station_is_built_does_nothing() -> None:
    st = new(2, row=FOG)
    for s in st.sites[1:]:
        s["build"] = [0] * len(s["build"])
    end_round_with_events(st, [1, 2, 3])
    assert not any(s["completed"] for s in st.sites)


def test_events_lay_only_the_track_that_is_left() -> None:
    st = new(2, row=FOG)
    for t in st.tracks[:-1]:
        t.update(laid=True, rubble=0, owner=0)
    end_round_with_events(st, [1, 2])
    assert st.tracks[-1]["laid"] and st.tracks[-1]["owner"] is None
    assert [t["owner"] for t in st.tracks[:-1]] == [0] * (len(st.tracks) - 1)
