"""Scenario tests for the worker actions A-G, the pub worker and fog."""

from __future__ import annotations

from ludothek.engine import IllegalAction

from .helpers import kind, new, passes, place, play, raw, settle


def clear_route_until(st, slot: int) -> None:  # type: ignore[no-untyped-def]
    """Remove the rubble from track slots 0..slot (inclusive) and the shovel sites before them."""
    for i in range(slot + 1):
        st.tracks[i]["rubble"] = 0
    for si in range(len(st.lay.stations)):
        if st.lay.slots_before[si] and st.lay.slots_before[si][-1] < slot:
            for d in st.sites[si]["dig"]:
                d["rubble"] = 0


# ----- A: stock yard ------------------------------------------------------------------
def test_stock_yard_up_to_three_cubes_one_coal_and_start_player() -> None:
    st = new(2)
    st.yard["coal"] = 3
    place(st, {0: ["A1", "G"], 1: ["A2", "G"]})
    assert kind(st) == "take" and st.decision["seat"] == 0
    legal = st.legal_actions()
    assert "take:iron+iron+iron" in legal and "take:iron+stone+coal" in legal
    assert "take:iron+coal+coal" not in legal and "take:iron+iron+iron+iron" not in legal
    assert "take:nothing" not in legal
    play(st, "take:iron+stone+coal")
    assert st.players[0]["iron"] == 1 and st.players[0]["stone"] == 1 and st.players[0]["coal"] == 1
    assert st.start_player == 1  # seat 1 is on the last space (A2)
    play(st, "take:iron+iron")
    assert st.round == 2 and st.order == [1, 0]


def test_stock_yard_train_3_takes_one_more() -> None:
    st = new(2)
    st.players[0]["train"] = 3
    st.shed = [t for t in st.shed if t["number"] != 3]
    place(st, {0: ["A1", "G"], 1: ["G", "G"]})
    assert "take:iron+iron+iron+stone" in st.legal_actions()
    assert "take:iron+iron+iron+stone+stone" not in st.legal_actions()


def test_stock_yard_empty_skips_the_worker() -> None:
    st = new(2)
    st.yard = {"iron": 0, "stone": 0, "coal": 0}
    place(st, {0: ["A1", "G"], 1: ["G", "G"]})
    assert st.round == 2


# ----- B: excavation --------------------------------------------------------------------
def test_excavation_at_work_rate_strictly_uphill() -> None:
    st = new(2)
    assert st.rate("excavate") == 2
    st.tracks[0]["rubble"] = 1
    place(st, {0: ["B1", "G"], 1: ["B2", "G"]})
    # seat 0 takes the 1 on slot 0 and 1 from slot 1; seat 1 takes the last 1 of slot 1 and 1 from the site
    assert st.players[0]["rubble"] == 2 and st.players[1]["rubble"] == 2
    assert st.tracks[0]["rubble"] == 0 and st.tracks[1]["rubble"] == 0
    assert st.sites[1]["dig"][0]["rubble"] == 3


def test_clearing_a_station_site_places_an_ownership_marker() -> None:
    st = new(2)
    st.tracks[0]["rubble"] = st.tracks[1]["rubble"] = 0
    st.sites[1]["dig"][0]["rubble"] = 1
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.sites[1]["dig"][0]["owner"] == 0 and st.players[0]["markers"] == 15
    assert st.sites[1]["dig"][1]["rubble"] == 1  # the second site is next, left to right
    assert st.markers_on_stations(0) == [4]


def test_excavation_takes_only_what_is_left() -> None:
    st = new(2)
    for t in st.tracks:
        t["rubble"] = 0
    for s in st.sites:
        for d in s["dig"]:
            d["rubble"] = 0
    st.tracks[-1]["rubble"] = 1
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.players[0]["rubble"] == 1 and st.route.rubble_left() == 0


def test_excavation_train_1_adds_two() -> None:
    st = new(2)
    st.players[0]["train"] = 1
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.players[0]["rubble"] == 4


def test_route_without_rubble_turns_area_b_into_a_build_space() -> None:
    st = new(2)
    for t in st.tracks:
        t["rubble"] = 0
    for s in st.sites:
        for d in s["dig"]:
            d["rubble"] = 0
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    settle(st)
    assert st.round == 2 and st.b_build
    assert st.area_spaces("B") == ["B1"] and st.space_action("B1") == "build"
    st.players[0]["stone"] = 1
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert kind(st) == "build" and "build:viaducts.4" in st.legal_actions()


# ----- C: workshop ----------------------------------------------------------------------
def test_workshop_three_conversions() -> None:
    st = new(2)
    st.players[0].update(iron=9, rubble=4)
    place(st, {0: ["C1", "G"], 1: ["G", "G"]})
    legal = st.legal_actions()
    assert "work:steel+steel+steel" in legal and "work:steel+stone+stone" in legal
    assert "work:nothing" not in legal and "work:steel+steel+stone+stone" not in legal  # must convert
    bag_iron = st.bag["iron"]
    raw(st, "work:steel+stone+stone")
    pl = st.players[0]
    assert (pl["iron"], pl["steel"], pl["rubble"], pl["stone"]) == (6, 1, 0, 2)
    assert st.bag["iron"] == bag_iron + 3 and st.bag["stone"] == 11 - 2
    assert st.steel == 17


def test_workshop_limited_by_steel_supply_and_stone_in_bag() -> None:
    st = new(2)
    st.players[0].update(iron=9, rubble=6)
    st.steel = 1
    st.bag["stone"] = 0
    place(st, {0: ["C1", "G"], 1: ["G", "G"]})
    assert st.legal_actions() == ["work:steel"]


def test_workshop_train_2_needs_two_iron() -> None:
    st = new(2)
    st.players[0].update(iron=6, train=2)
    place(st, {0: ["C1", "G"], 1: ["G", "G"]})
    play(st, "work:steel+steel+steel")
    assert st.players[0]["iron"] == 0 and st.players[0]["steel"] == 3


# ----- D: lay track ---------------------------------------------------------------------
def test_lay_track_at_work_rate_with_steel_and_markers() -> None:
    st = new(2)
    assert st.rate("lay_track") == 2
    clear_route_until(st, 2)
    st.players[0]["steel"] = 5
    place(st, {0: ["D1", "G"], 1: ["G", "G"]})
    assert [t["owner"] for t in st.tracks[:4]] == [0, 0, None, None]
    assert st.players[0]["steel"] == 3 and st.players[0]["markers"] == 14 and st.steel == 20
    assert st.markers_on_track(0) == [2, 2]


def test_lay_track_needs_cleared_cards_and_steel() -> None:
    st = new(2)
    clear_route_until(st, 0)
    st.players[0]["steel"] = 5
    st.players[0]["train"] = 7  # rate +1 does not help: only one card is free of rubble
    place(st, {0: ["D1", "G"], 1: ["G", "G"]})
    assert [t["laid"] for t in st.tracks[:2]] == [True, False]
    st2 = new(2)
    clear_route_until(st2, 5)
    st2.players[0].update(steel=5, train=7)
    place(st2, {0: ["D1", "G"], 1: ["G", "G"]})
    assert sum(t["laid"] for t in st2.tracks) == 3  # rate 2 + Ralph
    st3 = new(2)
    clear_route_until(st3, 5)
    st3.players[0]["steel"] = 1
    place(st3, {0: ["D1", "G"], 1: ["G", "G"]})
    assert sum(t["laid"] for t in st3.tracks) == 1


# ----- E: build -------------------------------------------------------------------------
def test_build_needs_cleared_track_before_the_station() -> None:
    st = new(2)
    st.players[0].update(stone=4, steel=2)
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    assert st.round == 2  # nothing could be built: the two cards before Two Viaducts have rubble
    st = new(2)
    st.players[0].update(stone=4, steel=2)
    st.tracks[0]["rubble"] = st.tracks[1]["rubble"] = 0
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    legal = st.legal_actions()
    assert set(legal) == {"build:viaducts.1", "build:viaducts.2", "build:viaducts.3", "build:viaducts.4"}
    assert "pass" not in legal  # a worker must act when it can
    play(st, "build:viaducts.1")
    assert st.sites[1]["build"][0] == 0 and st.players[0]["stone"] == 0 and st.bag["stone"] == 11 + 4
    assert st.players[0]["markers"] == 15


def test_station_shovel_rubble_does_not_block_building() -> None:
    st = new(2)
    st.players[0].update(steel=1)
    clear_route_until(st, 3)
    st.sites[st.lay.station_index("hebron")]["dig"][0]["rubble"] = 2  # Hebron's own shovel site still full
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    assert "build:hebron.3" in st.legal_actions()


def test_trains_only_after_the_event_one_each_and_trade_in() -> None:
    st = new(2)
    st.players[0]["steel"] = 4
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    assert st.round == 2  # no site open, no trains yet
    st.trains_available = True
    place(st, {1: ["E1", "G"], 0: ["E2", "G"]})
    settle(st)
    passes(st)
    # seat 1 (start player now? no: seat 0 stays) - find seat 0's build decision
    while kind(st) == "build" and st.decision["seat"] != 0:
        play(st, st.legal_actions()[0]) if st.legal_actions() else None
    assert kind(st) == "build" and st.decision["seat"] == 0
    assert "train:4" in st.legal_actions() and "train:7" not in st.legal_actions()  # 7 is set aside
    play(st, "train:4")
    assert st.players[0]["train"] == 4 and st.players[0]["coal"] == 1 and st.players[0]["steel"] == 3
    assert st.shed_train(4) is None


def test_trade_in_returns_the_old_train_refilled_from_the_bag() -> None:
    st = new(2)
    st.trains_available = True
    st.players[0].update(steel=2, train=5)
    st.shed = [t for t in st.shed if t["number"] != 5]
    coal_in_bag = st.bag["coal"]
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    assert "train:5" not in st.legal_actions()
    play(st, "train:1")
    assert st.players[0]["train"] == 1
    assert st.shed_train(5) == {"number": 5, "coal": 2}
    assert st.bag["coal"] == coal_in_bag - 2 + 0  # refilled from the bag


def test_pub_worker_for_coal() -> None:
    st = new(2)
    st.players[0].update(train=6, coal=2)
    st.players[1].update(train=5, coal=1)
    st.shed = [t for t in st.shed if t["number"] not in (5, 6)]
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    settle(st)
    # round 2: seat 0 decides first; Padarn costs 2 coal
    assert kind(st) == "pub" and st.decision["seat"] == 0
    bag = st.bag["coal"]
    play(st, "pub:hire")
    assert st.players[0]["coal"] == 0 and st.workers_total(0) == 3
    assert kind(st) == "place" and st.decision["seat"] == 0
    play(st, "place:G")
    # seat 1 decides before placing its own first worker
    assert kind(st) == "pub" and st.decision["seat"] == 1
    play(st, "pub:no")
    assert st.bag["coal"] == bag + 2
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    assert st.players[0]["surveyor"] == 5 and st.players[1]["surveyor"] == 4


def test_pub_needs_enough_coal() -> None:
    st = new(2)
    st.players[0].update(train=6, coal=1)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    settle(st)
    assert st.round == 2 and kind(st) == "place"


# ----- F and G --------------------------------------------------------------------------
def test_site_office_takes_a_face_up_contract_and_row_refills() -> None:
    st = new(2, row=(10, 11, 12))
    place(st, {0: ["F1", "G"], 1: ["G", "G"]})
    assert st.legal_actions() == ["contract:10", "contract:11", "contract:12"]
    play(st, "contract:11")
    assert st.players[0]["unused"] == [11]
    # end of round: the card on position 1 is discarded, the rest shift left, new cards fill up
    assert st.discard == [10] and st.row[0] == 12 and st.row[1] is not None


def test_surveyor_is_unlimited_and_stops_at_the_summit() -> None:
    st = new(2)
    st.players[0]["surveyor"] = 5
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    assert st.players[0]["surveyor"] == 6 and st.players[1]["surveyor"] == 2  # 6 = summit with 2 players


# ----- fog ------------------------------------------------------------------------------
def test_fog_blocks_excavation_and_track_laying() -> None:
    st = new(2, row=(1, 26, 3))  # middle card's back is fog: the weather of round 2
    assert st.forecast[1] == "fog"
    rates = dict(st.rates)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    settle(st)
    assert st.round == 2 and st.fog() and st.rates == rates
    legal = st.legal_actions()
    assert not any(a.startswith(("place:B", "place:D")) for a in legal)
    assert "place:A1" in legal
    try:
        st.apply_action("place:B1")
    except IllegalAction:
        pass
    else:  # pragma: no cover
        raise AssertionError("fog must block B")


def test_illegal_actions_change_nothing() -> None:
    st = new(2)
    before = st.snapshot()
    for bad in ("place:Z9", "take:iron", "place:A1 ", "build:summit.1"):
        try:
            st.apply_action(bad)
        except IllegalAction as exc:
            assert str(exc)
    assert st.snapshot() == before


def test_illegal_placements_say_why() -> None:
    st = new(2)
    play(st, "place:A1")
    for action, words in (("place:A1", "already taken"), ("place:A9", "no action space"), ("train:4", "not legal")):
        try:
            st.apply_action(action)
        except IllegalAction as exc:
            assert words in str(exc)
        else:  # pragma: no cover
            raise AssertionError(action)
