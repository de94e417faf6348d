"""Setup by player count."""

from __future__ import annotations

import pytest

from ludothek.engine import CHANCE, InvalidOptions
from ludothek.games.snowdonia import GAME

from .helpers import new


@pytest.mark.parametrize(
    ("n", "slots", "has_waterfall", "has_loop"),
    [(1, 12, False, False), (2, 12, False, False), (3, 13, True, False), (4, 13, True, False), (5, 14, True, True)],
)
def test_stations_and_track_cards_by_player_count(n: int, slots: int, has_waterfall: bool, has_loop: bool) -> None:
    st = new(n)
    keys = [s.key for s in st.lay.stations]
    assert ("waterfall" in keys) == has_waterfall
    assert ("loop" in keys) == has_loop
    assert keys[0] == "llanberis" and keys[-1] == "summit"
    assert len(st.tracks) == slots
    # every track card carries its number in rubble; every shovel site its printed rubble
    assert all(t["rubble"] == t["number"] for t in st.tracks)
    for si, station in enumerate(st.lay.stations):
        assert [d["rubble"] for d in st.sites[si]["dig"]] == [e.rubble for e in station.excavation_sites]


def test_track_cards_are_chance_draws_weighted_by_copies() -> None:
    st = GAME.new_state(3)
    assert st.current_player() == CHANCE
    probs = dict(st.chance_outcomes())
    assert probs == pytest.approx({"track:2": 3 / 14, "track:3": 5 / 14, "track:4": 4 / 14, "track:5": 2 / 14})
    for _ in range(2):
        st.apply_action("track:5")
    assert "track:5" not in st.legal_actions()


@pytest.mark.parametrize(
    ("n", "spaces"),
    [
        (1, {"A": 2, "B": 2, "C": 1, "D": 1, "E": 2, "F": 1}),
        (2, {"A": 2, "B": 2, "C": 1, "D": 1, "E": 2, "F": 1}),
        (3, {"A": 3, "B": 2, "C": 1, "D": 2, "E": 2, "F": 2}),
        (4, {"A": 4, "B": 3, "C": 2, "D": 3, "E": 2, "F": 2}),
        (5, {"A": 4, "B": 3, "C": 3, "D": 3, "E": 3, "F": 2}),
    ],
)
def test_action_spaces_by_player_count(n: int, spaces: dict[str, int]) -> None:
    st = new(n)
    for area, count in spaces.items():
        assert len(st.area_spaces(area)) == count
    assert st.area_spaces("G") == []  # unlimited


def test_contract_deck_and_first_forecast() -> None:
    st = new(2, row=(4, 1, 7))  # backs: sun, rain, fog
    assert 28 not in st.deck and 29 not in st.deck and len(st.deck) == 28 - 3
    assert st.row == [4, 1, 7]
    assert st.forecast == [None, "rain", "fog"]
    st3 = new(3)
    assert 28 in st3.deck and 29 in st3.deck and len(st3.deck) == 30 - 3


def test_trains_stock_yard_and_bag_multiplayer() -> None:
    st = new(4, aside=5)
    assert [t["number"] for t in st.shed] == [1, 2, 3, 4, 6, 7]
    assert [t["coal"] for t in st.shed] == [1, 0, 1, 1, 1, 1]
    assert st.aside_train == 5
    assert st.yard == {"iron": 7, "stone": 4, "coal": 1}
    assert st.bag == {"iron": 27, "stone": 16, "coal": 14 - 1 - 5, "event": 5}
    assert st.steel == 18
    assert not st.trains_available
    for pl in st.players:
        assert pl["markers"] == 16 and pl["surveyor"] == 0 and pl["train"] is None
        assert st.workers_total(0) == 2


def test_every_aside_train_is_equally_likely() -> None:
    st = GAME.new_state(2)
    for _ in range(12):
        st.apply_action("track:3" if "track:3" in st.legal_actions() else st.legal_actions()[0])
    assert dict(st.chance_outcomes()) == pytest.approx({f"aside:{i}": 1 / 7 for i in range(1, 8)})


def test_solo_setup() -> None:
    st = new(1, options={"solo_train": "5"}, solo_yard=("iron", "iron", "stone", "coal", "iron", "stone"))
    assert [t["number"] for t in st.shed] == [5] and st.shed[0]["coal"] == 2
    assert st.yard == {"iron": 3, "stone": 2, "coal": 1}
    # 6 coal minus the 2 on train 5, minus the 1 drawn into the yard; events go in after the draw
    assert st.bag == {"iron": 16 - 3, "stone": 10 - 2, "coal": 6 - 2 - 1, "event": 4}


def test_solo_yard_draw_has_no_event_cubes() -> None:
    st = GAME.new_state(1)
    while st.chance is not None and st.chance[0] != "bag":
        st.apply_action(st.legal_actions()[0])
    assert "bag:event" not in st.legal_actions()


def test_solo_option_only_for_one_player() -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_state(2, {"solo_train": "3"})
    with pytest.raises(InvalidOptions):
        GAME.new_state(1, {"solo_train": "8"})
    with pytest.raises(InvalidOptions):
        GAME.new_state(6)


def test_first_decision_is_start_player_placing() -> None:
    st = new(3)
    assert st.round == 1 and st.decision == {"kind": "place", "seat": 0}
    assert "place:B1" in st.legal_actions() and "place:G" in st.legal_actions()
