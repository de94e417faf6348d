"""Rules audit: scenario tests for the points an independent check of the seed and the reference raised.

Each test sets its chance outcomes explicitly.  The first group failed before the audit's fixes;
the others pin down rulings the audit documented and the known facts the provisional values must fit.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from ludothek.games.snowdonia import SnowdoniaState
from ludothek.games.snowdonia.components import scenario

from .helpers import kind, new, place, play, raw, settle

#: The middle card's back is fog: round 2 is foggy.
FOG_ROW = (1, 26, 3)


def give(st: SnowdoniaState, seat: int, *numbers: int) -> None:
    for n in numbers:
        if n in st.deck:
            st.deck.remove(n)
        st.players[seat]["unused"].append(n)


def to_move(st: SnowdoniaState) -> int | None:
    """The seat asked for the pending decision."""
    return None if st.decision is None else int(st.decision["seat"])


def area(st: SnowdoniaState) -> str | None:
    return None if st.decision is None else str(st.decision.get("area"))


# ----- fixed by the audit ---------------------------------------------------------------------
@pytest.mark.parametrize("card", [20, 23])
def test_contracts_20_and_23_take_two_cubes_not_fewer(card: int) -> None:
    """#20/#23: "Nimm dir sofort 2 beliebige Waren" — two cubes, not "up to two" as at the stock yard."""
    st = new(2)
    give(st, 0, card)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    play(st, f"play:{card}")
    assert kind(st) == "take_two"
    legal = st.legal_actions()
    assert legal and all(a.count("+") == 1 for a in legal)  # every choice is exactly two cubes
    assert "take:iron" not in legal and "take:coal" not in legal and "take:nothing" not in legal
    assert "take:iron+coal" in legal and "take:coal+coal" not in legal  # still at most 1 coal


def test_contract_20_takes_what_is_left_when_the_yard_has_fewer_than_two() -> None:
    st = new(2)
    give(st, 0, 20)
    st.yard = {"iron": 0, "stone": 0, "coal": 2}
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    play(st, "play:20")
    assert kind(st) == "take_two" and st.legal_actions() == ["take:coal"]  # the coal limit leaves one cube
    play(st, "take:coal")
    assert st.players[0]["coal"] == 1 and st.yard["coal"] == 1


def test_contract_29_lifts_the_coal_limit_for_contract_23_too() -> None:
    st = new(3)
    give(st, 0, 23, 29)
    st.yard["coal"] = 2
    place(st, {0: ["G", "G"], 1: ["G", "G"], 2: ["G", "G"]})
    play(st, "play:29", "play:23")
    assert st.legal_actions()[-1] == "take:coal+coal"
    assert all(a.count("+") == 1 for a in st.legal_actions())


def test_workshop_worker_must_convert_at_least_once_when_it_can() -> None:
    """Seed: a worker on an action space must carry the action out if possible ("er kann nicht darauf
    verzichten"); "up to three" conversions still allows one or two, but not none."""
    st = new(2)
    st.players[0].update(iron=9, rubble=4)
    place(st, {0: ["C1", "G"], 1: ["G", "G"]})
    assert kind(st) == "work"
    legal = st.legal_actions()
    assert "work:nothing" not in legal
    assert "work:steel" in legal and "work:stone" in legal and "work:steel+steel+steel" in legal


def test_workshop_with_nothing_to_convert_asks_nothing() -> None:
    st = new(2)
    st.players[0].update(iron=2, rubble=1)
    place(st, {0: ["C1", "G"], 1: ["G", "G"]})
    assert st.round == 2 and st.players[0]["iron"] == 2


def test_stock_yard_action_is_still_up_to_three() -> None:
    """The stock yard itself keeps "up to 3" (ruling 2): one or two cubes are allowed there."""
    st = new(2)
    place(st, {0: ["A1", "G"], 1: ["G", "G"]})
    assert kind(st) == "take"
    legal = st.legal_actions()
    assert "take:iron" in legal and "take:iron+stone" in legal and "take:iron+iron+iron" in legal


# ----- rulings documented by the audit ------------------------------------------------------------
def test_contract_windows_begin_with_the_current_start_player() -> None:
    """Each window runs "beim Startspieler beginnend" (ruling 20): the marker taken on the stock
    yard's last space in A moves the start of every later window of the same round at once,
    while the placement order (and so the tie-break) stays the one the round began with."""
    st = new(3)
    give(st, 0, 26)
    give(st, 2, 30)
    place(st, {0: ["G", "G"], 1: ["G", "G"], 2: ["A3", "G"]})
    assert kind(st) == "take" and to_move(st) == 2
    play(st, "take:iron+iron+iron")
    assert st.start_player == 2 and st.order == [0, 1, 2]
    assert kind(st) == "window" and area(st) == "B" and to_move(st) == 2
    play(st, "pass")
    assert kind(st) == "window" and area(st) == "B" and to_move(st) == 0
    play(st, "pass")
    assert st.round == 2 and st.order == [2, 0, 1]


def test_contract_22_moves_the_start_of_the_following_windows() -> None:
    """#22 "Nimm dir den Startspielerstein", played in A's window, makes its player the first
    to be asked in B's window of the same round."""
    st = new(3)
    give(st, 0, 26)
    give(st, 1, 22)
    give(st, 2, 30)
    place(st, {0: ["G", "G"], 1: ["G", "G"], 2: ["G", "G"]})
    assert kind(st) == "window" and area(st) == "A" and to_move(st) == 1
    play(st, "play:22")
    assert st.start_player == 1
    assert kind(st) == "window" and area(st) == "B" and to_move(st) == 2
    play(st, "pass")
    assert kind(st) == "window" and area(st) == "B" and to_move(st) == 0


def test_worker_stays_on_its_space_in_the_view_while_its_owner_decides() -> None:
    """The stock yard worker is still shown on A3 while its owner picks the cubes."""
    st = new(3)
    place(st, {0: ["G", "G"], 1: ["G", "G"], 2: ["A3", "G"]})
    assert kind(st) == "take" and to_move(st) == 2
    for seat in (0, 1, 2, None):
        view = st.view(seat) if seat is not None else st.view(None)
        area_a = next(a for a in view["areas"] if a["area"] == "A")
        assert next(sp for sp in area_a["spaces"] if sp["id"] == "A3")["worker"] == 2


def test_fog_also_closes_area_b_when_it_holds_the_build_space() -> None:
    """Fog discs lie on areas B and D; once B is the set-aside train card's build space it is closed too."""
    st = new(2, row=FOG_ROW)
    for t in st.tracks:
        t["rubble"] = 0
    for s in st.sites:
        for d in s["dig"]:
            d["rubble"] = 0
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    settle(st)
    assert st.round == 2 and st.fog() and st.b_build
    assert not any(a.startswith(("place:B", "place:D")) for a in st.legal_actions())
    assert "place:E1" in st.legal_actions()


def test_pub_worker_coal_for_train_6_and_refill_of_a_short_train() -> None:
    """Train No. 6 pays 2 coal for the pub worker; coal paid into the bag first tops up trains short of coal."""
    st = new(2)
    st.players[0].update(train=6, coal=3)
    st.shed = [t for t in st.shed if t["number"] != 6]
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    settle(st, prefer=["bag:iron"])
    assert st.round == 2 and kind(st) == "pub" and to_move(st) == 0
    short = st.shed_train(1)
    assert short is not None
    short["coal"] = 0
    st.bag["coal"] = 0
    raw(st, "pub:hire")
    assert st.players[0]["coal"] == 1 and st.players[0]["pub"]
    assert st.shed_train(1) == {"number": 1, "coal": 1} and st.bag["coal"] == 1


# ----- the provisional values fit every known fact ----------------------------------------------------
def _data(name: str) -> Any:
    text = resources.files("ludothek.games.snowdonia").joinpath("data", name).read_text(encoding="utf-8")
    return json.loads(text)


def test_event_track_fits_the_known_facts() -> None:
    track = scenario().board.event_track
    assert [e.space for e in track] == list(range(1, 11))
    known = {1: "excavate", 2: "trains_available", 3: "lay_track", 4: "complete_station", 6: "maintenance"}
    assert {e.space: e.event for e in track if e.space in known} == known
    assert sum(e.event == "complete_station" for e in track) == 2  # exactly two "complete a station" spaces
    assert {e.space: e.return_spaces for e in track if e.return_spaces} == {4: (1, 2, 3), 7: (4, 5, 6), 10: (8, 9, 10)}
    assert {e.space for e in track if e.provisional} == {5, 7, 8, 9, 10}
    assert "PROVISIONAL" in _data("board.json")["event_track"]["_provisional"]


def test_event_cubes_loop_over_8_to_10() -> None:
    st = new(2, row=FOG_ROW)
    spaces = []
    for _ in range(9):
        spaces.append(st.place_event_cube())
        st.return_event_cubes(spaces[-1])
    assert spaces == [1, 2, 3, 4, 5, 6, 7, 8, 9] and st.events == [False] * 6 + [True, True, True, False]
    for _ in range(6):
        spaces.append(st.place_event_cube())
        st.return_event_cubes(spaces[-1])
    assert spaces[9:] == [10, 8, 9, 10, 8, 9]


def test_restock_work_rates_and_track_cards_fit_the_known_facts() -> None:
    board = scenario().board
    assert {board.restock[n] for n in range(1, 6)} <= {6, 9, 12}
    assert board.restock[1] <= board.restock[3] <= board.restock[5]
    assert set(scenario().track_numbers) == {2, 3, 4, 5} and len(scenario().track_numbers) == 14
    assert board.excavate_start == 1 and board.lay_start == 1  # each marker on the second space (seed)
    assert board.moves == {"sun": {"excavate": 2, "lay_track": 1}, "rain": {"excavate": -1, "lay_track": -1},
                           "fog": {"excavate": 0, "lay_track": 0}}
    raw_board = _data("board.json")
    assert "PROVISIONAL" in raw_board["restock"]["_provisional"]
    assert "PROVISIONAL" in raw_board["work_rates"]["_provisional"]
    assert all("PROVISIONAL" in v for v in _data("track_cards.json")["_provisional"].values())


def test_setup_numbers_from_the_seed() -> None:
    board = scenario().board
    assert board.stock_yard_start == {"iron": 7, "stone": 4, "coal": 1}
    assert board.bag["iron"] == {1: 16, 2: 20, 3: 20, 4: 27, 5: 33}
    assert board.bag["stone"] == {1: 10, 2: 11, 3: 11, 4: 16, 5: 20}
    assert board.bag["event"] == {1: 4, 2: 5, 3: 5, 4: 5, 5: 5}
    assert board.markers_per_player == 16 and board.workers_per_player == 2 and board.steel_supply == 18
    assert board.weather_discs == {"sun": 3, "rain": 3, "fog": 5}
    trains = scenario().trains
    assert {n: (t.cost_steel, t.coal, t.pub_coal) for n, t in trains.items()} == {
        1: (2, 1, 1), 2: (2, 0, 1), 3: (2, 1, 1), 4: (1, 1, 1), 5: (1, 2, 1), 6: (2, 1, 2), 7: (2, 1, 1)
    }
    for n in (2, 3, 4, 5):
        st = new(n, aside=5)
        # all 14 coal: 1 in the stock yard, the printed coal on the 6 displayed trains, the rest in the bag
        assert st.yard["coal"] + st.bag["coal"] + sum(t["coal"] for t in st.shed) == 14
        assert len(st.shed) == 6 and st.aside_train == 5


def test_contract_conditions_and_points_match_the_seed_appendix() -> None:
    """The Yucata appendix lists every contract's condition and points (in number order)."""
    seed = {  # number: (stations, track, rubble, surveyor, points)
        1: (5, 0, 0, 0, 15), 2: (4, 0, 0, 0, 10), 3: (3, 0, 0, 0, 6), 4: (2, 2, 0, 0, 17), 5: (2, 1, 4, 0, 14),
        6: (0, 1, 12, 0, 22), 7: (0, 0, 8, 0, 11), 8: (0, 0, 8, 0, 11), 9: (0, 1, 6, 0, 14), 10: (0, 0, 4, 0, 5),
        11: (0, 0, 4, 0, 5), 12: (0, 0, 12, 0, 16), 13: (0, 2, 4, 0, 18), 14: (0, 1, 4, 0, 11), 15: (0, 1, 8, 0, 17),
        16: (0, 2, 8, 0, 23), 17: (0, 0, 16, 0, 21), 18: (0, 0, 11, 0, 14), 19: (0, 0, 7, 0, 10), 20: (0, 5, 0, 0, 40),
        21: (0, 3, 0, 0, 24), 22: (0, 3, 0, 0, 24), 23: (0, 4, 0, 0, 31), 24: (0, 1, 0, 0, 4), 25: (0, 1, 0, 0, 7),
        26: (0, 2, 0, 0, 15), 27: (0, 0, 0, 0, 0), 28: (5, 0, 0, 6, 23), 29: (0, 0, 0, 0, 0), 30: (0, 2, 0, 0, 15),
    }
    contracts = scenario().contracts
    assert {n: (c.stations, c.track, c.rubble, c.surveyor, c.vp) for n, c in contracts.items()} == seed
    assert contracts[27].coal_vp == 2 and contracts[29].surveyor_tiers == ((5, 6), (6, 10), (7, 15))
    assert {n for n, c in contracts.items() if c.players > 2} == {28, 29}
    assert {n for n, c in contracts.items() if c.effect == "maintenance"} == {16, 21}
