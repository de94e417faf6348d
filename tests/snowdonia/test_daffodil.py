"""Scenario tests for the Daffodil Line (map ``daffodil_line``): every rule of the seed's section.

Chance outcomes are chosen explicitly.  The route for 1-4 players (slot numbers):
base cards 0-1 before Skew Bridge, 2-3 before Dymock, canal cards 4-5 before
Four Oaks Halt, 6-7 before Newent, 8 before Barber's Bridge, 9-10 before Over
Junction, base cards 11-13 before Gloucester.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ludothek.engine import CHANCE, IllegalAction
from ludothek.games.snowdonia import GAME, SnowdoniaState
from ludothek.games.snowdonia.scoring import daffodil_points

from .helpers import kind, passes, place, play, settle

BASE = (2, 3, 4, 5, 2, 3, 4)
#: Canal cards in slot order 4..10: how much rubble fills each (every one gives a daffodil).
CANAL = ("4", "2", "3", "5", "3", "4", "5")
#: The same cards as records made before issue 29 name them: the first rule, where only the
#: three cards dealt with ``+daffodil`` gave one.
FIRST_RULE_CANAL = ("4", "2", "3+daffodil", "5", "3", "4+daffodil", "5+daffodil")
#: The middle card's back is fog, so round 1's end leaves the work rates alone.
ROW = (1, 7, 2)
OPTIONS = {"map": "daffodil_line"}


def new_daffodil(
    n: int = 2,
    base: Sequence[int] = BASE,
    canal: Sequence[str] = CANAL,
    aside: int = 7,
    row: Sequence[int] = ROW,
) -> SnowdoniaState:
    """A Daffodil Line game at the start of round 1 with the given cards."""
    st = GAME.new_state(n, OPTIONS)
    assert isinstance(st, SnowdoniaState)
    b, c = list(base), list(canal)
    while st.chance is not None and st.chance[0] in ("track", "canal"):
        st.apply_action(f"track:{b.pop(0)}" if st.chance[0] == "track" else f"canal:{c.pop(0)}")
    if n > 1:
        st.apply_action(f"aside:{aside}")
    for card in row:
        st.apply_action(f"draw:{card}")
    if n == 1:
        for _ in range(6):
            st.apply_action("bag:iron")
    return st


def ready_canal(st: SnowdoniaState) -> None:
    """Clear the base cards and shovel sites before the first canal card (slot 4)."""
    for i in range(4):
        st.tracks[i]["rubble"] = 0
    for si in (1, 2):
        for d in st.sites[si]["dig"]:
            d["rubble"] = 0


def all_to_g(st: SnowdoniaState) -> None:
    place(st, {s: ["G", "G"] for s in range(st.num_players)})


# ----- setup --------------------------------------------------------------------------------
def test_setup_ledbury_base_cards_with_rubble_and_empty_canal_cards() -> None:
    st = GAME.new_state(2, OPTIONS)
    assert isinstance(st, SnowdoniaState)
    for value in (2, 3, 4, 5):
        assert st.legal_actions() == ["track:2", "track:3", "track:4", "track:5"]
        st.apply_action(f"track:{value}")
    # Slot 4 lies before Four Oaks Halt: a canal card is dealt there.
    assert sorted(st.legal_actions()) == ["canal:2", "canal:3", "canal:4", "canal:5"]
    assert dict(st.chance_outcomes()) == {"canal:2": 1 / 7, "canal:3": 2 / 7, "canal:4": 2 / 7, "canal:5": 2 / 7}
    st = new_daffodil(2)
    assert st.lay.stations[0].key == "ledbury" and st.lay.stations[0].number == 1
    assert [t["rubble"] for t in st.tracks] == [2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 2, 3, 4]
    assert [bool(t.get("canal")) for t in st.tracks] == [False] * 4 + [True] * 7 + [False] * 3
    assert [t["number"] for t in st.tracks[4:11]] == [4, 2, 3, 5, 3, 4, 5]
    assert [bool(t.get("daffodil")) for t in st.tracks[4:11]] == [True] * 7
    assert st.canal_marked is False
    assert st.sites[1]["dig"][0]["rubble"] == 3  # shovel sites carry their rubble as usual
    assert all(p["daffodils"] == 0 for p in st.players)
    assert not st.canal_pool


def test_train_no_8_the_snowplow_is_not_in_the_game() -> None:
    st = GAME.new_state(4, OPTIONS)
    assert 8 not in st.scen.trains
    while st.chance is not None and st.chance[0] != "aside":
        st.apply_action(st.legal_actions()[0])
    assert st.legal_actions() == [f"aside:{i}" for i in range(1, 8)]


# ----- filling the canal -------------------------------------------------------------------
def test_excavating_a_canal_card_puts_rubble_from_the_own_supply_onto_it() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.players[0]["rubble"] = 5
    assert st.rate("excavate") == 2
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.tracks[4]["rubble"] == 2 and st.players[0]["rubble"] == 3


def test_the_action_ends_at_once_when_the_supply_runs_out() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.players[0]["rubble"] = 1
    st.players[1]["rubble"] = 0
    place(st, {0: ["B1", "G"], 1: ["B2", "G"]})
    # seat 0 fills its only cube and stops; seat 1 has nothing to fill with, so nothing happens
    assert st.tracks[4]["rubble"] == 1
    assert st.players[0]["rubble"] == 0 and st.players[1]["rubble"] == 0


def test_the_action_ends_when_the_supply_runs_out_even_before_a_base_card() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.tracks[4]["rubble"] = 3  # one cube short of full
    for i in (5, 6, 7, 8, 9, 10):
        st.tracks[i]["rubble"] = st.tracks[i]["number"]
    for si in (3, 4, 5):
        for d in st.sites[si]["dig"]:
            d["rubble"] = 0
    st.players[0]["rubble"] = 1
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.tracks[4]["rubble"] == 4  # full
    assert st.sites[6]["dig"][0]["rubble"] == 3  # Over Junction's site is next, but the action has ended


def test_a_canal_card_never_takes_more_than_its_number() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.tracks[4]["rubble"] = 3
    st.players[0]["rubble"] = 5
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.tracks[4]["rubble"] == 4  # full with one cube ...
    assert st.tracks[5]["rubble"] == 1  # ... the second cube of the work rate goes on uphill
    assert st.players[0]["rubble"] == 3


def test_clearing_and_filling_in_one_action_uses_the_rubble_just_taken() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.sites[2]["dig"][0]["rubble"] = 1  # Dymock's shovel site (it shows a daffodil)
    st.rates["excavate"] = 2  # work rate 3
    st.players[0]["rubble"] = 0
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.sites[2]["dig"][0] == {"rubble": 0, "owner": 0}
    assert st.tracks[4]["rubble"] == 1  # the cube just taken is filled in, then the supply is empty
    assert st.players[0]["rubble"] == 0
    assert st.players[0]["daffodils"] == 1  # for the last rubble of Dymock's daffodil site


def test_filling_the_last_cube_of_a_canal_card_gives_a_daffodil() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.tracks[4]["rubble"], st.tracks[5]["rubble"] = 4, 1
    st.sites[3]["dig"][0]["rubble"] = 0  # Four Oaks Halt's shovel site lies between slots 5 and 6
    st.players[0]["rubble"] = 9
    st.rates["excavate"] = 2  # work rate 3: 1 into slot 5 (now full: a daffodil), 2 into slot 6 (3)
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.tracks[5]["rubble"] == 2 and st.tracks[6]["rubble"] == 2
    assert st.players[0]["daffodils"] == 1  # slot 5 is full; slot 6 is not full yet
    st2 = new_daffodil(2)
    ready_canal(st2)
    st2.tracks[4]["rubble"], st2.tracks[5]["rubble"], st2.tracks[6]["rubble"] = 4, 2, 1
    st2.sites[3]["dig"][0]["rubble"] = 0
    st2.players[1]["rubble"] = 4
    place(st2, {0: ["G", "G"], 1: ["B1", "G"]})
    assert st2.tracks[6]["rubble"] == 3 and st2.players[1]["daffodils"] == 1
    assert st2.players[1]["rubble"] == 2


def test_seed_worked_example_the_last_cube_needed_wins_the_daffodil() -> None:
    """The seed: „Auf jeder Kanal-Gleiskarte gibt eine Zahl an, wie viel Geröll benötigt wird, um den
    stillgelegten Kanal vollständig aufzufüllen. Der Spieler, der das letzte dazu notwendige
    Geröll-Klötzchen auf die Karte legt, erhält einen Narzissen-Marker."

    Worked example: the first canal card (slot 4) says 4.  In round 1 the first player fills 2 of it
    (work rate 2) and gets nothing; the second player, on the next excavation space, fills the 2 still
    needed and gets the daffodil.  The card takes no more (the rest of the second player's work goes
    to the next card, a 2, which is not full yet)."""
    st = new_daffodil(2)
    ready_canal(st)
    assert st.tracks[4]["number"] == 4 and st.tracks[4]["rubble"] == 0
    st.players[0]["rubble"] = 2
    st.players[1]["rubble"] = 3
    st.rates["excavate"] = 2  # work rate 3
    place(st, {0: ["B1", "G"], 1: ["B2", "G"]})
    assert st.tracks[4]["rubble"] == 4  # full: 2 from the first player, the last 2 from the second
    assert st.tracks[5]["rubble"] == 1  # the second player's third cube goes uphill
    assert [p["daffodils"] for p in st.players] == [0, 1]
    assert [p["filled"] for p in st.players] == [2, 3]


def test_every_canal_card_gives_one_daffodil_to_whoever_fills_it() -> None:
    """All seven canal cards, whatever their number, give exactly one daffodil each: seat 0 fills
    each card but its last cube, seat 1 puts that last cube and gets all seven."""
    st = new_daffodil(2)
    ready_canal(st)
    for si in range(3, 7):
        for d in st.sites[si]["dig"]:
            d["rubble"] = 0
    for slot in range(4, 11):
        need = st.tracks[slot]["number"]
        st.players[0]["rubble"] = need - 1
        st.excavate(0, need - 1)
        assert st.tracks[slot]["rubble"] == need - 1
        st.players[1]["rubble"] = 1
        st.excavate(1, 1)
        assert st.tracks[slot]["rubble"] == need
    assert [p["daffodils"] for p in st.players] == [0, 7]


def test_an_event_filling_a_canal_card_gives_nobody_a_daffodil() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.event_excavate()
    assert st.tracks[4]["rubble"] == 4
    assert [p["daffodils"] for p in st.players] == [0, 0]


# ----- records begun under the first rule ----------------------------------------------------
def test_a_record_with_first_rule_card_names_keeps_the_first_rule() -> None:
    """Records made before issue 29 dealt ``canal:N+daffodil`` for three cards; they replay as they
    were played: only those three cards give a daffodil (ruling 44)."""
    st = new_daffodil(2, canal=FIRST_RULE_CANAL)
    assert st.canal_marked is True
    assert [bool(t.get("daffodil")) for t in st.tracks[4:11]] == [False, False, True, False, False, True, True]
    ready_canal(st)
    st.tracks[4]["rubble"], st.tracks[5]["rubble"] = 4, 1
    st.players[0]["rubble"] = 9
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.tracks[5]["rubble"] == 2  # full, but dealt as a plain card under the first rule
    assert st.players[0]["daffodils"] == 0


def test_first_rule_names_switch_the_cards_dealt_before_them_too() -> None:
    """The first rule is known only when the first ``+daffodil`` card comes: plain cards dealt
    before it are then switched off as well (nobody can fill a card during the setup)."""
    st = new_daffodil(2, canal=("4", "2", "3", "5", "3+daffodil", "4", "5"))
    assert [bool(t.get("daffodil")) for t in st.tracks[4:11]] == [False] * 4 + [True, False, False]


def test_first_rule_names_are_accepted_but_never_offered() -> None:
    st = GAME.new_state(2, OPTIONS)
    assert isinstance(st, SnowdoniaState)
    for value in (2, 3, 4, 5):
        st.apply_action(f"track:{value}")
    assert not any("+daffodil" in a for a in st.legal_actions())
    before = st.snapshot()
    for bad in ("canal:9+daffodil", "canal:3+tulip", "canal:3+", "canal:+daffodil"):
        with pytest.raises(IllegalAction):
            st.apply_action(bad)
        assert st.snapshot() == before
    st.apply_action("canal:2+daffodil")
    with pytest.raises(IllegalAction):
        st.apply_action("canal:2+daffodil")  # the only 2 is dealt
    assert st.canal_marked is True


def test_track_can_be_laid_on_a_canal_card_only_once_it_is_full() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    for i in range(4):
        st.tracks[i]["laid"] = True
    st.tracks[4]["rubble"] = 3
    st.players[0]["steel"] = 2
    place(st, {0: ["D1", "G"], 1: ["G", "G"]})
    assert not st.tracks[4]["laid"] and st.players[0]["steel"] == 2
    st = new_daffodil(2)
    ready_canal(st)
    for i in range(4):
        st.tracks[i]["laid"] = True
    st.tracks[4]["rubble"] = 4
    st.players[0]["steel"] = 2
    place(st, {0: ["D1", "G"], 1: ["G", "G"]})
    assert st.tracks[4]["laid"] and st.tracks[4]["owner"] == 0
    assert not st.tracks[5]["laid"]  # the next canal card is still empty
    assert st.markers_on_track(0) == [4]  # its number is its points


def test_building_needs_the_canal_cards_before_the_station_full() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.tracks[4]["rubble"] = 4
    st.tracks[5]["rubble"] = 1
    assert not st.route.station_open(3)  # Four Oaks Halt
    st.tracks[5]["rubble"] = 2
    assert st.route.station_open(3)


def test_area_b_turns_into_a_build_space_only_when_the_canal_is_full_too() -> None:
    st = new_daffodil(2)
    for t in st.tracks:
        t["rubble"] = t["number"] if t.get("canal") else 0
    for s in st.sites:
        for d in s["dig"]:
            d["rubble"] = 0
    st.tracks[10]["rubble"] = 4  # one short
    assert st.route.rubble_left() == 1
    all_to_g(st)
    assert st.round == 2 and not st.b_build
    st.tracks[10]["rubble"] = 5
    all_to_g(st)
    assert st.round == 3 and st.b_build


# ----- events -------------------------------------------------------------------------------
def end_round_with_events(st: SnowdoniaState, occupied: list[int], cubes: int = 1) -> None:
    st.events = [i + 1 in occupied for i in range(10)]
    st.bag = {"iron": 0, "stone": 0, "coal": 0, "event": cubes}
    all_to_g(st)
    settle(st)


def test_an_excavation_event_fills_canal_cards_from_the_general_supply() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.tracks[3]["rubble"] = 2
    end_round_with_events(st, [])
    assert st.event_log[-1][2] == "excavate"
    # excavation rate 2: two whole fields, one cleared (slot 3), one filled (slot 4)
    assert st.tracks[3]["rubble"] == 0 and st.tracks[4]["rubble"] == 4
    assert st.tracks[5]["rubble"] == 0
    assert all(p["rubble"] == 0 and p["daffodils"] == 0 for p in st.players)


def test_an_excavation_event_filling_a_daffodil_card_gives_nobody_a_daffodil() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.tracks[4]["rubble"], st.tracks[5]["rubble"] = 4, 2
    st.sites[3]["dig"][0]["rubble"] = 0
    end_round_with_events(st, [])
    assert st.tracks[6]["rubble"] == 3 and st.tracks[7]["rubble"] == 5
    assert all(p["daffodils"] == 0 for p in st.players)


def test_a_lay_track_event_returns_the_rubble_on_canal_cards_to_the_supply() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    for i in range(4):
        st.tracks[i]["laid"] = True
    st.tracks[4]["rubble"] = 3  # partly filled
    end_round_with_events(st, [1, 2])
    assert st.event_log[-1][2] == "lay_track"
    assert st.tracks[4] | {} == {**st.tracks[4], "laid": True, "rubble": 0, "owner": None}
    assert st.tracks[5]["laid"] and st.tracks[5]["rubble"] == 0  # an empty canal card is laid too
    assert not st.tracks[6]["laid"]  # lay rate 2


# ----- the workshop: smash stone --------------------------------------------------------------
def workshop(st: SnowdoniaState) -> None:
    place(st, {0: ["C1", "G"], 1: ["G", "G"]})


def test_smash_stone_gives_two_rubble_from_the_supply_for_a_stone_back_to_the_bag() -> None:
    st = new_daffodil(2)
    st.players[0]["stone"] = 1
    bag_stone = st.bag["stone"]
    workshop(st)
    assert kind(st) == "work"
    assert st.legal_actions() == ["work:smash", "work:smash+stone"]
    play(st, "work:smash")
    assert st.players[0]["stone"] == 0 and st.players[0]["rubble"] == 2
    assert st.bag["stone"] == bag_stone + 1


def test_smash_stone_combines_freely_with_the_other_conversions() -> None:
    st = new_daffodil(2)
    pl = st.players[0]
    pl["iron"], pl["stone"], pl["rubble"] = 3, 2, 2
    workshop(st)
    legal = set(st.legal_actions())
    assert {"work:steel+smash", "work:steel+smash+smash", "work:steel+stone", "work:smash+smash",
            "work:stone", "work:steel", "work:smash+stone"} <= legal
    assert "work:steel+steel" not in legal  # 3 iron make one steel
    assert "work:smash+smash+smash" not in legal  # only 2 stone to smash
    play(st, "work:steel+smash+smash")
    assert (pl["iron"], pl["steel"], pl["stone"], pl["rubble"]) == (0, 1, 0, 6)


def test_swapping_back_and_forth_lets_the_worker_change_nothing() -> None:
    st = new_daffodil(2)
    pl = st.players[0]
    pl["stone"], pl["rubble"] = 1, 2
    before = (pl["stone"], pl["rubble"], st.bag["stone"])
    workshop(st)
    assert "work:nothing" not in st.legal_actions()
    play(st, "work:smash+stone")
    assert (pl["stone"], pl["rubble"], st.bag["stone"]) == before


def test_the_round_trip_also_works_from_rubble_alone() -> None:
    st = new_daffodil(2)
    pl = st.players[0]
    pl["rubble"] = 2
    workshop(st)
    assert st.legal_actions() == ["work:stone", "work:smash+stone"]


def test_the_base_game_workshop_has_no_smash_stone() -> None:
    from .helpers import new

    st = new(2)
    st.players[0]["stone"] = 1
    place(st, {0: ["C1", "G"], 1: ["G", "G"]})
    assert st.round == 2  # nothing to convert: the worker is not asked


# ----- daffodils: sites and build spaces --------------------------------------------------------
def test_the_last_rubble_of_a_daffodil_shovel_site_gives_a_daffodil_even_without_markers() -> None:
    st = new_daffodil(2)
    st.tracks[0]["rubble"] = st.tracks[1]["rubble"] = 0
    st.sites[1]["dig"][0]["rubble"] = 0
    st.sites[1]["dig"][1]["rubble"] = 1  # Skew Bridge's second site shows a daffodil
    st.players[0]["markers"] = 0
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.sites[1]["dig"][1] == {"rubble": 0, "owner": None}
    assert st.players[0]["daffodils"] == 1


def test_building_on_a_daffodil_build_space_gives_a_daffodil() -> None:
    st = new_daffodil(2)
    st.tracks[0]["rubble"] = st.tracks[1]["rubble"] = 0
    st.players[0]["stone"] = 2
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    assert kind(st) == "build"
    assert "build:skew.2" in st.legal_actions()
    play(st, "build:skew.2")
    assert st.sites[1]["build"][1] == 0 and st.players[0]["daffodils"] == 1


def test_gloucesters_daffodil_spaces_are_paid_in_daffodils() -> None:
    st = new_daffodil(2)
    for i in (11, 12, 13):
        st.tracks[i]["rubble"] = 0
    st.players[0]["daffodils"] = 2
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    legal = st.legal_actions()
    assert "build:gloucester.3" in legal  # costs 2 daffodils
    assert "build:gloucester.4" not in legal  # costs 3
    assert "build:gloucester.3+rubble" not in legal and "build:gloucester.3+iron" not in legal
    play(st, "build:gloucester.3")
    assert st.players[0]["daffodils"] == 0 and st.sites[7]["build"][2] == 0
    assert st.players[0]["markers"] == 15 and 8 in st.markers_on_stations(0)


def test_the_daffodil_price_is_named_in_the_log() -> None:
    st = new_daffodil(2)
    for i in (11, 12, 13):
        st.tracks[i]["rubble"] = 0
    st.players[0]["daffodils"] = 3
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    assert "3 daffodils" in st.describe("build:gloucester.4", "en")
    assert "3 Narzissen" in st.describe("build:gloucester.4", "de")


# ----- contracts and train No.1 ---------------------------------------------------------------
def test_contract_3_fills_a_canal_card_completely() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.players[0]["unused"] = [3]
    st.players[0]["rubble"] = 10
    all_to_g(st)
    assert kind(st) == "window" and st.decision["area"] == "B"
    play(st, "play:3")
    passes(st)
    assert st.tracks[4]["rubble"] == 4 and st.players[0]["rubble"] == 6


def test_contract_3_fills_with_all_the_rubble_you_have_when_it_is_not_enough() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.players[0]["unused"] = [3]
    st.players[0]["rubble"] = 3
    all_to_g(st)
    play(st, "play:3")
    passes(st)
    assert st.tracks[4]["rubble"] == 3 and st.players[0]["rubble"] == 0


@pytest.mark.parametrize("card", [26, 30])
def test_contracts_26_and_30_fill_twice_as_much(card: int) -> None:
    st = new_daffodil(2, row=(1, 7, 2))
    ready_canal(st)
    st.players[0]["unused"] = [card]
    st.players[0]["rubble"] = 6
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    play(st, f"play:{card}")
    passes(st)
    assert st.tracks[4]["rubble"] == 4 and st.players[0]["rubble"] == 2  # 2 x rate 2


def test_train_no_1_fills_two_more() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.players[0]["train"] = 1
    st.shed = [t for t in st.shed if t["number"] != 1]
    st.players[0]["rubble"] = 6
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    assert st.tracks[4]["rubble"] == 4 and st.players[0]["rubble"] == 2  # rate 2 + 2


# ----- scoring -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("count", "points"),
    [(0, 0), (1, 3), (2, 9), (3, 19), (4, 34), (5, 37), (6, 43), (7, 53), (8, 68), (9, 71)],
)
def test_daffodil_sets_score_3_9_19_34_and_count_again_past_four(count: int, points: int) -> None:
    assert daffodil_points(count, (3, 9, 19, 34)) == points


def test_worked_example_six_daffodils_score_43() -> None:
    st = new_daffodil(2)
    st.players[0]["daffodils"] = 6
    parts = st.score_parts(0)
    assert parts["daffodils"] == 43
    assert parts["total"] == 43  # nothing else yet: surveyor in Ledbury, no markers placed


@pytest.mark.parametrize(("station", "bonus"), [(0, 0), (1, 0), (2, 1), (5, 0), (6, 1), (7, 0)])
def test_a_surveyor_ending_on_dymock_or_over_junction_gets_a_daffodil(station: int, bonus: int) -> None:
    st = new_daffodil(2)
    st.players[0]["surveyor"] = station
    st.players[0]["daffodils"] = 1
    assert st.daffodils_at_end(0) == 1 + bonus
    assert st.score_parts(0)["daffodils"] == (9 if bonus else 3)


def test_over_junction_steel_markers_count_for_track_contracts_only() -> None:
    st = new_daffodil(2)
    st.sites[6]["build"] = [0, 0, None]  # both steel spaces of Over Junction
    h = st.holdings(0)
    assert h.stations == 0 and h.track == 2
    st.players[0]["unused"] = [26, 2]  # 26: 2 markers on track -> 15; 2: 4 markers on stations -> 10
    parts = st.score_parts(0)
    assert parts["stations"] == 7 + 12  # the spaces still score their own points
    assert parts["contract_values"] == {"2": 0, "26": 15}
    st.sites[6]["build"] = [None, None, 0]  # the stone space counts as a station marker
    assert st.holdings(0).stations == 1 and st.holdings(0).track == 0


def test_the_end_of_game_breakdown_has_a_daffodil_line() -> None:
    st = new_daffodil(1)
    st.players[0]["daffodils"] = 6
    st.over = True
    st.decision = None
    v = st.view(0)
    lines = {p["part"]: p for p in v["breakdown"][0]["parts"]}
    assert lines["daffodils"]["points"] == 43
    assert lines["daffodils"]["detail"] == {"de": "6 Narzissen", "en": "6 daffodils"}
    assert sum(p["points"] or 0 for p in v["breakdown"][0]["parts"]) == v["breakdown"][0]["total"]
    st.players[0]["daffodils"] = 1
    one = {p["part"]: p for p in st.view(0)["breakdown"][0]["parts"]}["daffodils"]
    assert one["detail"] == {"de": "1 Narzisse", "en": "1 daffodil"} and one["points"] == 3


def test_the_view_and_board_show_canal_cards_and_daffodils() -> None:
    from .test_maps import render_board

    st = new_daffodil(2)
    st.players[1]["daffodils"] = 2
    v = st.view(0)
    four_oaks = v["route"][3]
    assert four_oaks["tracks"][0] | {"canal": True} == four_oaks["tracks"][0]
    assert v["route"][2]["surveyor_daffodil"] is True
    assert v["route"][7]["build"][2]["daffodils"] == 2
    assert v["route"][6]["build"][0]["track_only"] is True
    assert v["panels"][1]["daffodils"] == 2
    html = render_board(st, 0, "en")
    assert html.count('class="sd-tcard sd-canal"') == 3 * 7  # wide, middle and narrow drawing
    # every canal card shows the daffodil it gives, in each drawing
    assert html.count('<text class="sd-flower"') >= 3 * 7
    assert "✿" in html and 'data-daffodils="2"' in html and "sd-daffodil" in html
    assert "canal track card" in html


def test_five_players_are_refused_for_the_yellow_daffodils() -> None:
    from ludothek.engine import InvalidOptions

    with pytest.raises(InvalidOptions):
        GAME.new_state(5, OPTIONS)
    assert GAME.new_state(4, OPTIONS).current_player() == CHANCE


def test_the_recorded_daffodil_game_uses_the_scenarios_rules() -> None:
    import json
    from pathlib import Path

    from ludothek.engine import replay

    path = Path(__file__).parent / "fixtures" / "game_daffodil_3p_greedy_seed1.json"
    rec = json.loads(path.read_text(encoding="utf-8"))
    st = replay(rec)
    assert isinstance(st, SnowdoniaState) and st.map == "daffodil_line" and st.is_terminal()
    actions = [a["action"] for a in rec["actions"]]
    assert sum(a.startswith("canal:") for a in actions) == 7
    assert any("smash" in a for a in actions)
    assert any(a.startswith("build:gloucester.") for a in actions)
    assert sum(p["filled"] for p in st.players) > 0
    assert any(t["owner"] is not None for t in st.tracks if t.get("canal"))


def test_the_scenario_extends_the_texts_of_contracts_3_26_and_30() -> None:
    st = new_daffodil(2)
    assert "canal card is filled completely" in st.scen.contracts[3].text["en"]
    assert "doppelt so viel auffüllen" in st.scen.contracts[26].text["de"]
    assert "auffüllen" in st.scen.contracts[30].text["de"]
    from .helpers import new

    assert "Daffodil" not in new(2).scen.contracts[3].text["en"]


def test_the_workshop_card_per_player_count_comes_from_the_scenario_data() -> None:
    assert [new_daffodil(n).area_spaces("C") for n in (1, 2, 3, 4)] == [["C1"], ["C1"], ["C1"], ["C1", "C2"]]


def test_a_daffodil_space_without_enough_daffodils_is_refused_with_the_reason() -> None:
    from ludothek.engine import IllegalAction

    st = new_daffodil(2)
    for i in (11, 12, 13):
        st.tracks[i]["rubble"] = 0
    st.players[0]["daffodils"] = 2
    place(st, {0: ["E1", "G"], 1: ["G", "G"]})
    assert kind(st) == "build"
    before = st.snapshot()
    with pytest.raises(IllegalAction, match="Gloucester site 4 costs 3 daffodils and you have 2"):
        st.apply_action("build:gloucester.4")
    assert st.snapshot() == before


def test_the_log_says_who_fills_the_canal_and_gets_a_daffodil() -> None:
    st = new_daffodil(2)
    ready_canal(st)
    st.tracks[4]["rubble"], st.tracks[5]["rubble"], st.tracks[6]["rubble"] = 4, 2, 1
    st.sites[3]["dig"][0]["rubble"] = 0
    st.players[0]["rubble"] = 4
    place(st, {0: ["B1", "G"], 1: ["G", "G"]})
    st2 = new_daffodil(2)
    ready_canal(st2)
    st2.tracks[4]["rubble"], st2.tracks[5]["rubble"], st2.tracks[6]["rubble"] = 4, 2, 1
    st2.sites[3]["dig"][0]["rubble"] = 0
    st2.players[0]["rubble"] = 4
    place(st2, {0: ["B1", "G"], 1: ["G"]})
    last = "place:G"
    assert st2.legal_actions() and last in st2.legal_actions()
    en = st2.describe(last, "en")
    de = st2.describe(last, "de")
    assert "Player 1 fills 2 rubble into the canal." in en and "Player 1 gets 1 daffodil." in en
    assert "füllt 2 Geröll in den Kanal" in de and "erhält 1 Narzisse" in de
    assert "excavates" not in en
    assert st.players[0]["daffodils"] == 1
