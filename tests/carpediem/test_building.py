"""Every building rule: shovel first, touching along a full side, matching, frame as meadow,
rotation, banner cells, and clean refusal of illegal builds."""

from __future__ import annotations

import pytest

from ludothek.engine import IllegalAction
from ludothek.games.carpediem.geometry import parse_cell
from ludothek.games.carpediem.rules import CarpeDiemState

from .helpers import build, comp_with, new_game, put, use_comp

TILES = [
    {"id": "TMK", "parts": [{"kind": "market"}]},
    {"id": "TPS", "parts": [{"kind": "pond", "at": ["Se"]}]},
    {"id": "TPN", "parts": [{"kind": "pond", "at": ["Ne"]}]},
]


def game() -> CarpeDiemState:
    state = new_game(2)  # seat 0 has board I: shovel c3, banners a1 f1 b2 e2 d4 b5 e5 a6 f6
    use_comp(state, comp_with(TILES))
    return state


def builds(state: CarpeDiemState, tile: str) -> list[str]:
    state.stage, state.actor, state.held = "build", 0, tile
    return [a for a in state.legal_actions() if a.startswith("build:")]


def test_first_tile_goes_on_the_shovel() -> None:
    state = game()
    assert builds(state, "TMK") == ["build:c3:0"]
    assert builds(state, "TPS") == ["build:c3:0", "build:c3:90", "build:c3:180", "build:c3:270"]


def test_later_tiles_touch_along_a_full_side() -> None:
    state = game()
    put(state, 0, "TMK", "c3")
    assert sorted(builds(state, "TMK")) == ["build:b3:0", "build:c2:0", "build:c4:0", "build:d3:0"]


def test_everything_touching_must_match() -> None:
    state = game()
    put(state, 0, "TPS", "c3")  # pond on the east half of the south side
    d = state.players[0].district
    market = state.comp.tiles["TMK"].orientations[0]
    assert not d.fits(market, parse_cell("c4"))  # meadow against pond
    pond_north = state.comp.tiles["TPN"]
    assert d.fits(pond_north.orientations[0], parse_cell("c4"))  # pond meets pond, meadow meets meadow
    assert not d.fits(pond_north.orientations[1], parse_cell("c4"))
    assert "build:c4:0" in builds(state, "TPN")
    assert "build:c4:90" not in builds(state, "TPN")


def test_frame_counts_as_meadow_and_rotation_helps() -> None:
    state = game()
    put(state, 0, "TMK", "c3")
    put(state, 0, "TMK", "c2")
    d = state.players[0].district
    tile = state.comp.tiles["TPN"]
    assert not d.fits(tile.orientations[0], parse_cell("c1"))  # pond against the frame
    assert not d.fits(tile.orientations[2], parse_cell("c1"))  # pond against the market below
    assert d.fits(tile.orientations[1], parse_cell("c1"))  # turned: the pond faces the empty d1
    assert "build:c1:90" in builds(state, "TPN")


def test_symmetric_tiles_list_one_rotation() -> None:
    state = game()
    assert len(state.comp.tiles["TMK"].orientations) == 1
    assert len(state.comp.tiles["TPS"].orientations) == 4


def test_banner_cell_moves_the_disc_one_step() -> None:
    state = game()
    put(state, 0, "TMK", "c3")
    put(state, 0, "TMK", "c4")
    before = state.running_total(0)
    build(state, 0, "TMK", "d4")  # d4 carries a banner on board I
    assert state.players[0].steps == 1
    assert state.running_total(0) == before + 1  # the banner point (the market gives a coin, not a point)
    build(state, 0, "TMK", "b4")  # no banner on b4
    assert state.players[0].steps == 1


def test_illegal_build_is_refused_without_change() -> None:
    state = game()
    put(state, 0, "TPS", "c3")
    state.stage, state.actor, state.held = "build", 0, "TMK"
    before = state.snapshot()
    for bad in ("build:c4:0", "build:e6:0", "build:c3:0", "build:z9:0", "build:d3:45", "build:d3"):
        with pytest.raises(IllegalAction):
            state.apply_action(bad)
    assert state.snapshot() == before
    with pytest.raises(IllegalAction, match="does not fit"):
        state.apply_action("build:c4:0")


def test_store_keeps_the_tile_face_down() -> None:
    state = new_game(2)
    state.apply_action(state.legal_actions()[0])  # move
    tile = state.legal_actions()[0].split(":")[1]
    state.apply_action(f"take:{tile}")
    assert "store" in state.legal_actions()
    state.apply_action("store")
    assert state.players[0].stored == [tile]
    assert "stored" in state.view(0)["players"][0] and "stored" not in state.view(1)["players"][0]
    assert state.view(1)["players"][0]["stored_count"] == 1
