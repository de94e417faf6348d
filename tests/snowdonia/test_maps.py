"""The map option (``map``): Mount Snowdon unchanged, the Daffodil Line's data, Blaenau Ffestiniog for 1-4 players."""

from __future__ import annotations

import pytest

from ludothek.engine import InvalidOptions
from ludothek.games.snowdonia import GAME
from ludothek.games.snowdonia.components import MAPS, scenario


def test_the_lobby_offers_the_maps_with_german_and_english_labels() -> None:
    opt = GAME.option("map")
    assert opt.values == MAPS and opt.default == "mount_snowdon"
    assert opt.label == {"de": "Spielplan", "en": "Map"}
    for value in MAPS:
        assert set(opt.value_labels[value]) == {"de", "en"}
    assert GAME.describe_option("map", "daffodil_line", "de").startswith("Daffodil Line")
    assert "map" in [o["name"] for o in GAME.to_json()["options"]]


def test_mount_snowdon_is_the_default_and_unchanged() -> None:
    st = GAME.new_state(3)
    assert st.options["map"] == "mount_snowdon"
    assert [s.key for s in st.lay.stations][:2] == ["llanberis", "viaducts"]
    assert st.lay.num_slots == 13 and not any(st.lay.canal_slots)
    view = st.view(0)
    assert view["map"] == "mount_snowdon" and view["provisional"] is False


def test_blaenau_is_for_one_to_four_players() -> None:
    for n in (1, 2, 3, 4):
        GAME.new_state(n, {"map": "blaenau_ffestiniog"})
    with pytest.raises(InvalidOptions, match=r"blaenau_ffestiniog.*1 to 4 players"):
        GAME.new_state(5, {"map": "blaenau_ffestiniog"})


def test_an_unknown_map_is_refused() -> None:
    with pytest.raises(InvalidOptions):
        GAME.new_state(2, {"map": "jungfrau"})


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_the_daffodil_line_loads_its_own_stations_for_one_to_four(n: int) -> None:
    st = GAME.new_state(n, {"map": "daffodil_line"})
    keys = [s.key for s in st.lay.stations]
    assert keys == ["ledbury", "skew", "dymock", "four_oaks", "newent", "barbers", "over", "gloucester"]
    assert [s.number for s in st.lay.stations] == [1, 2, 3, 4, 5, 6, 7, 8]
    # Base cards before Skew Bridge, Dymock and Gloucester; the 7 canal cards between the others.
    assert sum(st.lay.canal_slots) == 7 == len(scenario("daffodil_line").daffodil.canal_cards)  # type: ignore[union-attr]
    assert st.lay.num_slots - sum(st.lay.canal_slots) == 7
    view = st.view(None)
    assert view["map"] == "daffodil_line" and view["provisional"] is True


def test_the_daffodil_line_is_for_at_most_four_players() -> None:
    with pytest.raises(InvalidOptions, match=r"1 to 4 players.*daffodils"):
        GAME.new_state(5, {"map": "daffodil_line"})


def test_the_map_data_files_say_what_is_provisional() -> None:
    assert scenario("mount_snowdon").provisional is False
    assert scenario("daffodil_line").provisional is True


def render_board(st: object, seat: int | None, lang: str) -> str:
    """The portal's Snowdonia board partial for ``st`` (as the game page renders it)."""
    from .test_board_partial import render

    return render(st, seat, lang)


def test_the_board_says_quietly_when_a_maps_data_are_provisional() -> None:
    daffodil = GAME.new_state(2, {"map": "daffodil_line"})
    for lang, words in (("de", "Vorläufige Daten"), ("en", "Provisional data")):
        html = render_board(daffodil, None, lang)
        assert 'id="sd-provisional"' in html and words in html
        assert "Daffodil Line" in html and "Ledbury" in html
    assert 'id="sd-provisional"' not in render_board(GAME.new_state(2), None, "en")
