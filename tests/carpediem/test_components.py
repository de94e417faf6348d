"""The provisional component set keeps every known fact, and broken data is refused clearly."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from ludothek.games.carpediem.components import (
    DWELLINGS,
    LANDSCAPES,
    SINGLES,
    DataError,
    _boards,
    _cards,
    _tiles,
    load,
)
from ludothek.games.carpediem.geometry import frame_line, parse_cell
from ludothek.games.carpediem.greedy import simulate

CORNERS = ({1, 2}, {3, 4}, {5, 6}, {7, 0})


def test_tile_counts_and_backs() -> None:
    comp = load()
    assert comp.provisional
    assert len(comp.tiles_with_back("light")) == 84 == 3 * 28
    assert len(comp.tiles_with_back("dark")) == 39 == 11 + 28


def test_tile_parts_follow_the_known_facts() -> None:
    kinds: Counter[str] = Counter()
    for tile in load().tiles.values():
        assert len(tile.parts) == 1 if tile.back == "dark" else 1 <= len(tile.parts) <= 2
        for part in tile.parts:
            kinds[part.family] += 1
            if part.kind in LANDSCAPES:
                # anchored in one corner: every landscape lies around one grid point (2 to 4 tiles)
                assert any(set(part.halves) <= corner for corner in CORNERS)
            elif part.kind in DWELLINGS:
                assert len(part.halves) == 2 and part.halves[0] // 2 == part.halves[1] // 2
            elif part.kind == "villa":
                assert part.halves and part.chimneys >= 1
            else:
                assert part.kind in SINGLES and not part.halves and len(tile.parts) == 1
    assert set(kinds) == {"landscape", "dwelling", "villa", "single"}
    by_kind = Counter(p.kind for t in load().tiles.values() for p in t.parts)
    assert all(by_kind[k] >= 10 for k in (*LANDSCAPES, *DWELLINGS))
    assert all(by_kind[k] >= 4 for k in SINGLES)


def test_landscape_ends_are_balanced_per_kind() -> None:
    """An end on an odd half always meets an end on an even half, so both kinds must exist."""
    ends: Counter[tuple[str, int]] = Counter()
    for tile in load().tiles.values():
        for part in tile.parts:
            if part.kind in LANDSCAPES and len(part.halves) == 1:
                ends[(part.kind, part.halves[0] % 2)] += 1
    for kind in LANDSCAPES:
        assert abs(ends[(kind, 0)] - ends[(kind, 1)]) <= 1


def test_boards() -> None:
    boards = load().boards
    assert len(boards) == 4
    assert all(b.shovel in {parse_cell(c) for c in ("c3", "d3", "c4", "d4")} for b in boards.values())
    assert all(len(b.banners) == 9 for b in boards.values())
    assert len({b.banners for b in boards.values()}) == 4


def test_frames() -> None:
    frames = load().frames
    assert len(frames) == 16
    goals = [g for f in frames.values() for g in f.goals]
    assert all(len(f.goals) == 2 for f in frames.values())
    assert {g.vp for g in goals} == {3, 4, 5}
    assert {g.kind for g in goals} == {*LANDSCAPES, *DWELLINGS, "villa"}
    # whatever the assembly, no two goals share a line (the 2nd edition's fix)
    for side_a in range(4):
        for side_b in range(4):
            if side_a != side_b:
                lines_a = {frame_line(side_a, g.position) for g in goals}
                lines_b = {frame_line(side_b, g.position) for g in goals}
                assert not lines_a & lines_b


def test_villa_table_known_points() -> None:
    comp = load()
    assert (comp.villa_vp(3), comp.villa_vp(5), comp.villa_vp(14)) == (3, 7, 26)
    values = [comp.villa_vp(c) for c in range(0, 20)]
    assert values == sorted(values)


def test_cards_and_fountains() -> None:
    comp = load()
    assert Counter(c.letter for c in comp.cards.values()) == {"A": 12, "B": 11, "C": 10, "D": 27}
    assert all((c.colour == "red") == (c.letter in "AB") for c in comp.cards.values())
    assert len(comp.fountains) == 12 and sum(f.copies for f in comp.fountains.values()) == 24


@pytest.mark.parametrize(
    ("tiles", "message"),
    [
        ([{"id": "X", "back": "dark", "parts": [{"kind": "pond", "at": ["Ne"]}, {"kind": "pond", "at": ["Sw"]}]}],
         "exactly one thing"),
        ([{"id": "X", "back": "light", "parts": [{"kind": "lake", "at": ["N"]}]}], "unknown part kind"),
        ([{"id": "X", "back": "light", "parts": [{"kind": "market", "at": ["N"]}]}], "meadow all round"),
        ([{"id": "X", "back": "light", "parts": [{"kind": "merchant", "at": ["N", "E"]}]}], "exactly one side"),
        ([{"id": "X", "back": "light", "parts": [{"kind": "villa", "at": ["Ne"]}]}], "whole sides"),
        ([{"id": "X", "back": "light", "parts": [{"kind": "pond", "at": ["Q"]}]}], "unknown side"),
        ([{"id": "X", "back": "light", "parts": [{"kind": "pond", "at": ["N"]}, {"kind": "villa", "at": ["N"]}]}],
         "same half-side"),
    ],
)
def test_bad_tiles_refused(tiles: list[dict[str, object]], message: str) -> None:
    with pytest.raises(DataError, match=message):
        _tiles({"tiles": tiles})


def test_bad_boards_and_cards_refused() -> None:
    with pytest.raises(DataError, match="shovel"):
        _boards({"boards": [{"id": "X", "shovel": "c3", "banners": ["c3"]}]})
    with pytest.raises(DataError, match="unknown need"):
        _cards({"cards": [{"id": "A1", "letter": "A", "colour": "red", "need": {"chimneys": 2}, "reward": {"vp": 1}}]})


@pytest.mark.skipif(bool(os.environ.get("LUDOTHEK_CARPEDIEM_DATA")), reason="figures of the shipped set")
def test_greedy_players_complete_several_features_with_the_shipped_set() -> None:
    """The doc's simulation in small: several landscapes, dwellings and villas; most tiles placeable."""
    figures = simulate(2, 4, seed=3)
    assert figures["landscapes"]["mean"] >= 2.5
    assert figures["dwellings"]["mean"] >= 2
    assert figures["villas"]["mean"] >= 1.5
    assert figures["placeable_share"] >= 0.7
    assert set(figures["landscape_sizes"]) <= {2, 3, 4}
