"""Scenario tests for every contract effect and its timing."""

from __future__ import annotations

import pytest

from ludothek.games.snowdonia.components import scenario

from .helpers import kind, new, passes, place, play, raw, settle
from .test_actions import clear_route_until


def give(st, seat: int, *numbers: int) -> None:  # type: ignore[no-untyped-def]
    for n in numbers:
        if n in st.deck:
            st.deck.remove(n)
        st.players[seat]["unused"].append(n)


def test_window_lists_only_cards_of_the_area_and_then_they_are_used() -> None:
    st = new(2)
    give(st, 0, 20, 1, 11)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    assert kind(st) == "window" and st.decision["area"] == "A"
    assert st.legal_actions() == ["play:20", "pass"]
    play(st, "pass")
    assert kind(st) == "window" and st.decision["area"] == "C"
    play(st, "play:11")  # no rubble: nothing to convert, window continues
    assert kind(st) == "window" and st.decision["area"] == "D"
    play(st, "pass")
    assert st.round == 2 and st.players[0]["used"] == [11] and sorted(st.players[0]["unused"]) == [1, 20]


def test_lay_track_plus_one_contracts_stack() -> None:
    st = new(2)
    clear_route_until(st, 6)
    st.players[0]["steel"] = 9
    give(st, 0, 1, 2)
    place(st, {0: ["D1", "G"], 1: ["G", "G"]})
    play(st, "play:1", "play:2")  # nothing left to play: the window closes
    assert sum(t["owner"] == 0 for t in st.tracks) == 4  # rate 2 + 1 + 1


def test_contract_3_clears_the_next_field_after_excavation() -> None:
    st = new(2)
    give(st, 0, 3)
    place(st, {0: ["B1", "G"], 1: ["B2", "G"]})
    play(st, "play:3")
    # B1 takes slot 0 (2), B2 takes slot 1 (2), then #3 clears Two Viaducts' first site (4) completely
    assert st.players[0]["rubble"] == 2 + 4 and st.sites[1]["dig"][0]["owner"] == 0


def test_contract_4_swaps_the_middle_weather_disc() -> None:
    st = new(2, row=(1, 4, 7))  # forecast: -, sun, fog
    give(st, 0, 4)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    play(st, "play:4")
    assert st.legal_actions() == ["swap:rain", "swap:fog"]
    play(st, "swap:fog")
    settle(st)
    assert st.round == 2 and st.weather() == "fog"


def test_contract_5_keeps_one_of_three() -> None:
    st = new(2, row=(10, 11, 12))
    give(st, 0, 5)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    passes_until = ["pass"] * 0
    assert kind(st) == "window" and st.decision["area"] == "F"
    raw(st, "play:5", "draw:20", "draw:8")
    assert st.legal_actions() == ["keep:5", "keep:8", "keep:20"]
    play(st, "keep:20")
    assert st.players[0]["unused"] == [20] and st.players[0]["active"] == []
    assert st.discard[:2] == [5, 8]
    del passes_until


def test_contract_5_respects_the_revealed_back_of_the_top_card() -> None:
    st = new(2, row=(10, 11, 12))
    give(st, 0, 5)
    st.top_back = "fog"
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    raw(st, "play:5")
    assert all(st.scen.contracts[int(a[5:])].back == "fog" for a in st.legal_actions())


def test_contracts_6_and_25_let_iron_replace_steel() -> None:
    st = new(2)
    clear_route_until(st, 3)
    st.players[0].update(iron=6)
    give(st, 0, 6, 25)
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    play(st, "play:6", "pass")
    legal = st.legal_actions()
    assert "build:hebron.3+iron" in legal and "build:hebron.3" not in legal
    play(st, "build:hebron.3+iron")
    assert st.players[0]["iron"] == 3 and st.sites[st.lay.station_index("hebron")]["build"][2] == 0


def test_contract_7_two_more_cubes_and_29_lifts_the_coal_limit() -> None:
    st = new(3)
    st.yard["coal"] = 4
    give(st, 0, 7, 29)
    place(st, {0: ["A1", "G"], 1: ["G", "G"], 2: ["G", "G"]})
    play(st, "play:7", "pass")
    assert "take:iron+iron+iron+stone+coal" in st.legal_actions()
    assert "take:iron+coal+coal" not in st.legal_actions()
    st = new(3)
    st.yard["coal"] = 4
    give(st, 0, 7, 29)
    place(st, {0: ["A1", "G"], 1: ["G", "G"], 2: ["G", "G"]})
    play(st, "play:7", "play:29")
    assert "take:iron+iron+coal+coal+coal" in st.legal_actions()


def test_contract_8_extra_lay_track_after_area_d() -> None:
    st = new(2)
    clear_route_until(st, 6)
    st.players[0]["steel"] = 9
    give(st, 0, 8)
    place(st, {0: ["G", "G"], 1: ["D1", "G"]})
    st.players[1]["steel"] = 1
    play(st, "play:8")
    assert [t["owner"] for t in st.tracks[:4]] == [1, 0, 0, None]


def test_stone_discounts_stack_and_17_pays_with_rubble() -> None:
    st = new(2)
    clear_route_until(st, 1)
    st.players[0].update(stone=1, rubble=4)
    give(st, 0, 9, 14, 17)
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    play(st, "play:9", "play:14", "play:17")
    legal = st.legal_actions()
    # site 1 costs 4 stone - 2 = 2: 2 stone, or 1 stone + 2 rubble, or 4 rubble
    assert "build:viaducts.1+rubble" in legal and "build:viaducts.1+rubble+rubble" in legal
    assert "build:viaducts.1" not in legal
    assert "build:viaducts.4" in legal  # 1 stone - 2 = free
    play(st, "build:viaducts.1+rubble+rubble")
    assert st.players[0]["rubble"] == 0 and st.players[0]["stone"] == 1


def test_contract_10_and_padarn_build_after_area_e() -> None:
    st = new(2)
    clear_route_until(st, 1)
    st.players[0].update(stone=6, train=6)
    st.shed = [t for t in st.shed if t["number"] != 6]
    give(st, 0, 10)
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    play(st, "play:10")
    play(st, "build:viaducts.4")
    assert kind(st) == "build" and st.decision.get("source") == "contract" and "pass" in st.legal_actions()
    play(st, "build:viaducts.3")
    assert kind(st) == "build" and st.decision.get("source") == "train"
    play(st, "build:viaducts.3" if "build:viaducts.3" in st.legal_actions() else "build:viaducts.2")
    assert st.players[0]["stone"] == 0


def test_padarn_needs_a_worker_build_this_round() -> None:
    st = new(2)
    clear_route_until(st, 1)
    st.players[0].update(stone=6, train=6)
    st.shed = [t for t in st.shed if t["number"] != 6]
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    settle(st)
    assert st.round == 2


def test_contract_11_and_12_convert_at_once() -> None:
    st = new(2)
    st.players[0].update(rubble=7, iron=5)
    give(st, 0, 11, 12)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    play(st, "play:11")
    assert st.legal_actions() == ["convert:0", "convert:1", "convert:2", "convert:3"]
    # The log says what happens in words, also when nothing is converted (not "0 times").
    assert "converts no rubble to stone" in st.describe("convert:0", "en")
    assert "kein Geröll gegen Stein" in st.describe("convert:0", "de")
    assert "converts 2 rubble to stone 3 times" in st.describe("convert:3", "en")
    play(st, "convert:3", "play:12")
    assert "converts no iron to steel" in st.describe("convert:0", "en")
    assert "kein Erz gegen Stahl" in st.describe("convert:0", "de")
    assert st.legal_actions() == ["convert:0", "convert:1", "convert:2"]
    play(st, "convert:2")
    pl = st.players[0]
    assert (pl["rubble"], pl["stone"], pl["iron"], pl["steel"]) == (1, 3, 1, 2)


def test_contract_13_blocks_all_further_contracts() -> None:
    st = new(2)
    give(st, 0, 13, 11)
    give(st, 1, 20)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    play(st, "play:13")
    settle(st)
    assert st.round == 2 and st.players[1]["unused"] == [20] and st.players[0]["unused"] == [11]


def test_contracts_18_19_draw_three_cubes_and_return_events() -> None:
    st = new(2)
    give(st, 0, 18)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    events = st.bag["event"]
    raw(st, "play:18", "bag:event", "bag:coal", "bag:stone")
    assert st.players[0]["coal"] == 1 and st.players[0]["stone"] == 1
    assert st.bag["event"] == events and st.held_events == 0


def test_contracts_20_23_take_two_from_the_yard() -> None:
    st = new(2)
    give(st, 0, 23)
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    play(st, "play:23")
    assert "take:iron+coal" in st.legal_actions() and "take:iron+iron+iron" not in st.legal_actions()
    play(st, "take:stone+coal")
    assert st.players[0]["stone"] == 1 and st.players[0]["coal"] == 1 and st.yard["coal"] == 0


def test_contract_22_start_player_cannot_be_taken() -> None:
    st = new(2)
    give(st, 0, 22)
    place(st, {0: ["G", "G"], 1: ["A2", "G"]})
    play(st, "play:22", "take:iron")
    settle(st)
    assert st.round == 2 and st.start_player == 0


def test_double_excavation_contracts() -> None:
    st = new(2)
    give(st, 0, 26)
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    play(st, "play:26")
    assert st.players[0]["rubble"] == 4


def test_contract_27_moves_the_surveyor() -> None:
    st = new(2)
    give(st, 0, 27)
    place(st, {0: ["F1", "A1"], 1: ["G", "G"]})
    passes(st)
    play(st, "take:iron")
    play(st, "contract:1")
    play(st, "play:27")
    assert st.players[0]["surveyor"] == 1


def test_contract_28_moves_a_worker() -> None:
    st = new(3)
    give(st, 0, 28)
    st.players[0]["stone"] = 0
    place(st, {0: ["B1", "G"], 1: ["G", "G"], 2: ["G", "G"]})
    play(st, "play:28")
    assert "move:B1>A3" in st.legal_actions() and "move:G>A1" in st.legal_actions()
    play(st, "move:B1>A3")
    assert st.spaces["B1"] is None
    assert kind(st) == "take" and st.decision["space"] == "A3" and st.decision["seat"] == 0
    play(st, "take:iron")
    settle(st)
    assert st.start_player == 0 and st.players[0]["rubble"] == 0


def test_contract_28_cannot_move_into_fog() -> None:
    st = new(3, row=(1, 26, 3))
    place(st, {0: ["G", "G"], 1: ["G", "G"], 2: ["G", "G"]})
    settle(st)
    assert st.fog()
    give(st, 0, 28)
    place(st, {0: ["A1", "G"], 1: ["G", "G"], 2: ["G", "G"]})
    play(st, "play:28")
    targets = {a.split(">")[1] for a in st.legal_actions()}
    assert not any(t.startswith(("B", "D")) for t in targets) and "E1" in targets


def test_weather_supply_for_contract_4() -> None:
    st = new(2)
    st.forecast = ["fog", "sun", "fog"]  # fog: 2 on the forecast + 2 on areas B and D -> 1 left
    assert st.swap_options() == ["swap:rain", "swap:fog"]
    st.forecast = ["sun", "fog", "fog"]  # sun round: no fog markers; 2 sun discs are left
    assert st.swap_options() == ["swap:sun", "swap:rain"]
    st.forecast = ["fog", "fog", "fog"]
    assert st.swap_options() == ["swap:sun", "swap:rain"]


def test_maintenance_card_16_from_the_unused_contracts() -> None:
    st = new(2)
    st.players[0].update(train=4, unused=[16])
    st.deck.remove(16)
    st.shed = [t for t in st.shed if t["number"] != 4]
    st.events = [True] * 5 + [False] * 5
    st.bag = {"iron": 0, "stone": 0, "coal": 0, "event": 1}
    place(st, {0: ["G", "G"], 1: ["G", "G"]})
    assert st.legal_actions() == ["maint:16", "maint:lose"]
    play(st, "maint:16")
    assert st.players[0]["train"] == 4 and st.players[0]["unused"] == [] and st.discard[-1] == 16


@pytest.mark.parametrize(
    ("a", "b"), [(1, 2), (6, 25), (9, 14), (9, 15), (12, 24), (18, 19), (20, 23), (16, 21), (26, 30)]
)
def test_cards_with_the_same_text_share_one_effect(a: int, b: int) -> None:
    cards = scenario().contracts
    assert cards[a].effect == cards[b].effect and cards[a].area == cards[b].area


def test_both_double_excavation_cards_stack() -> None:
    st = new(2)
    give(st, 0, 26, 30)
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    play(st, "play:26", "play:30")
    assert st.players[0]["rubble"] == 8


def test_train_5_costs_one_steel_and_brings_two_coal() -> None:
    st = new(2, aside=7)
    st.trains_available = True
    st.players[0]["steel"] = 1
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    assert set(st.legal_actions()) == {"train:4", "train:5"}
    play(st, "train:5")
    assert st.players[0]["coal"] == 2 and st.players[0]["steel"] == 0
