"""The view carries what Yucata's board and player panel show; the text rendering works."""

from __future__ import annotations

import json

from ludothek.games.snowdonia.text import render

from .helpers import new, place, settle


def test_view_has_the_board_and_the_stacks() -> None:
    st = new(3, row=(10, 11, 12))
    v = st.view(1)
    json.dumps(v)
    assert v["me"] == 1 and v["panel_order"] == [1, 2, 0]
    assert [s["key"] for s in v["route"]][:3] == ["llanberis", "viaducts", "waterfall"]
    assert v["route"][1]["tracks"][0] == {"number": 2, "rubble": 2, "laid": False, "owner": None, "slot": 0,
                                          "canal": False, "daffodil": False}
    assert [a["area"] for a in v["areas"]] == list("ABCDEFG")
    assert v["areas"][0]["spaces"][2] == {"id": "A3", "worker": None, "action": "stock_yard"}
    assert v["draw_pile"]["count"] == 27 and v["draw_pile"]["cards"] == sorted(v["draw_pile"]["cards"])
    assert v["discard_pile"] == {"count": 0, "cards": []}
    assert [c["number"] for c in v["contract_row"]] == [10, 11, 12]
    assert v["bag"] == {"iron": 20, "stone": 11, "coal": 14 - 1 - 6, "event": 5}
    assert v["steel_supply"] == 18 and v["stock_yard"] == {"iron": 7, "stone": 4, "coal": 1}
    assert v["work_rates"]["excavate"]["value"] == 2 and v["weather"]["forecast"][0] is None
    assert len(v["event_track"]) == 10 and not any(e["cube"] for e in v["event_track"])


def test_unusable_actions_are_listed_with_reasons() -> None:
    st = new(2)
    reasons = {u["reason"] for u in st.view(0)["unusable"]}
    assert reasons == {"no_trains_yet"}
    st.bag["stone"] = 0
    st.steel = 0
    st.trains_available = True
    reasons = {u["reason"] for u in st.view(0)["unusable"]}
    assert reasons == {"no_stone_in_bag", "no_steel_in_supply"}


def test_player_panel_lines() -> None:
    st = new(2)
    st.players[0].update(iron=2, stone=1, coal=3, rubble=5, steel=1, train=4, unused=[11], used=[24])
    st.tracks[0].update(laid=True, owner=0)
    p = st.view(0)["panels"][0]
    assert p["points_now"] == 2
    # 2 track + 9 train + #24 (1 track) 4 + #11 (4 rubble) 5
    assert p["points_final"] == 2 + 9 + 4 + 5
    assert (p["workers"], p["markers"], p["iron"], p["stone"], p["coal"], p["rubble"], p["steel"]) == (2, 16, 2, 1, 3, 5, 1)
    assert p["start_player"] and p["train"] == {"number": 4, "name": "Snowdon"} and p["contract_count"] == 2
    assert [c["number"] for c in p["contracts"]["unused"]] == [11] and p["contracts"]["unused"][0]["value"] == 5
    assert p["contracts"]["used"][0]["value"] == 4 and p["contracts"]["active"] == []


def test_discard_pile_in_order_and_event_log() -> None:
    st = new(2, row=(10, 11, 12))
    st.bag = {"iron": 0, "stone": 0, "coal": 0, "event": 1}
    place(st, {0: ["F1", "G"], 1: ["G", "G"]})
    st.apply_action("contract:11")
    settle(st)
    v = st.view(None)
    assert v["discard_pile"]["cards"] == [10]
    assert v["event_log"] == [{"round": 1, "space": 1, "event": "excavate"}]
    assert v["panels"][0]["contracts"]["unused"][0]["number"] == 11


def test_text_rendering_in_both_languages() -> None:
    st = new(3)
    assert "Two Viaducts" in render(st, 0, "en") and "Runde 1" in render(st, None, "de")
