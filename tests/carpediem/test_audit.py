"""Independent rules audit: the seed's appendix as data, and the discrepancies the audit found.

Each test names the rule it checks.  The card list below is transcribed from the appendix of the
Yucata rules page (seed ``002_b9aae02ddc425a96.txt``) independently of ``scoring_cards.json``.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ludothek.games.carpediem.components import (
    DataError,
    _boards,
    _cards,
    _check_setups,
    _parse,
    _rules,
    _tiles,
    load,
)

from .helpers import comp_with, enter_scoring, new_game, put, use_comp

G, H, C, F = "grapes", "herbs", "chicken", "fish"

#: (need, reward) per card, in the appendix's order; red cards need wares, green cards own things.
SEED_GREEN: list[tuple[dict[str, int], dict[str, int]]] = [
    ({"dwellings": 3}, {"steps": 1, "bread": 1}),
    ({"dwellings": 3}, {"coins": 1, "bread": 1}),
    ({"dwellings": 3}, {"coins": 1, "steps": 1}),
    ({"dwellings": 3}, {"vp": 5}),
    ({"administrator": 1}, {"vp": 3}),
    ({"craftsman": 1}, {"vp": 3}),
    ({"merchant": 1}, {"vp": 3}),
    ({"baker": 1}, {"vp": 3}),
    ({"merchant": 1, "baker": 1}, {"vp": 7}),
    ({"administrator": 1, "craftsman": 1}, {"vp": 7}),
    ({"vineyard": 1, "chicken_yard": 1}, {"vp": 7}),
    ({"garden": 1, "pond": 1}, {"vp": 7}),
    ({"landscapes": 3}, {"vp": 5}),
    ({"landscapes": 3}, {"steps": 1, "bread": 1}),
    ({"landscapes": 3}, {"coins": 1, "bread": 1}),
    ({"landscapes": 3}, {"coins": 1, "steps": 1}),
    ({"pond": 1}, {"vp": 3}),
    ({"chicken_yard": 1}, {"vp": 3}),
    ({"vineyard": 1}, {"vp": 3}),
    ({"garden": 1}, {"vp": 3}),
    ({"bakery": 1}, {"vp": 1}),
    ({"market": 1}, {"vp": 1}),
    ({"fountain": 1}, {"vp": 1}),
    ({"bakery": 1, "market": 1, "fountain": 1}, {"vp": 5}),
    ({"fountain": 2}, {"vp": 3}),
    ({"market": 2}, {"vp": 3}),
    ({"bakery": 2}, {"vp": 3}),
    ({"chimneys": 3}, {"steps": 1, "bread": 1}),
    ({"chimneys": 3}, {"coins": 1, "steps": 1}),
    ({"chimneys": 3}, {"coins": 1, "bread": 1}),
    ({"chimneys": 3}, {"vp": 4}),
    ({"chimneys": 2}, {"bread": 1}),
    ({"chimneys": 2}, {"vp": 2}),
    ({"chimneys": 2}, {"coins": 1}),
    ({"villa": 1}, {"vp": 3}),
    ({"villa": 2}, {"coins": 1, "steps": 1, "bread": 1}),
    ({"chimneys": 2}, {"steps": 1}),
]
SEED_RED: list[tuple[dict[str, int], dict[str, int]]] = [
    *[({a: 1, b: 1}, {"vp": 3}) for a, b in ((H, G), (H, F), (H, C), (G, F), (G, C), (F, C))],
    ({G: 1, H: 1, C: 1, F: 1}, {"vp": 8}),
    *[({a: 1, b: 1, c: 1}, {"vp": 5}) for a, b, c in ((G, H, F), (G, C, H), (G, C, F), (H, C, F))],
    *[({w: n}, {"vp": vp}) for n, vp in ((1, 1), (2, 4), (3, 7)) for w in (C, H, F, G)],
]
SEED_FOUNTAINS = {"administrator", "craftsman", "merchant", "baker", "garden", "vineyard", "chicken_yard", "pond",
                  "bakery", "market", "fountain", "villa"}


def _key(colour: str, need: dict[str, int], reward: dict[str, int]) -> tuple[Any, ...]:
    return colour, tuple(sorted(need.items())), tuple(sorted(reward.items()))


def test_all_60_scoring_cards_match_the_seed_appendix() -> None:
    comp = load()
    shipped = Counter(_key(c.colour, dict(c.need), dict(c.reward)) for c in comp.cards.values())
    seed = Counter([_key("green", n, r) for n, r in SEED_GREEN] + [_key("red", n, r) for n, r in SEED_RED])
    assert sum(seed.values()) == 60
    assert shipped == seed
    # letters by the rulebook's rule: A one ware, B mixed wares, C villas/chimneys, D other features
    for card in comp.cards.values():
        items = {k for k, _ in card.need}
        expected = ("A" if len(items) == 1 else "B") if card.colour == "red" else (
            "C" if items <= {"villa", "chimneys"} else "D")
        assert card.letter == expected, card.id


def test_all_12_fountain_kinds_match_the_seed_appendix() -> None:
    comp = load()
    assert {f.counts for f in comp.fountains.values()} == SEED_FOUNTAINS
    assert all(f.vp_each == 2 and f.copies == 2 for f in comp.fountains.values())


# ----- discrepancy 1: rotations of a tile with two villa parts of different chimneys --------------

TWO_VILLAS = {"id": "TVV", "parts": [{"kind": "villa", "at": ["N"], "chimneys": 1},
                                      {"kind": "villa", "at": ["S"], "chimneys": 3}]}


def test_two_villa_parts_with_different_chimneys_keep_every_rotation() -> None:
    """Turning the tile half way puts the 3-chimney villa on the other side: a different placement.
    The rotation dedup used to treat it as the same picture and dropped 180° and 270°."""
    tile = _tiles({"tiles": [{"back": "light", **TWO_VILLAS}]})["TVV"]
    assert [o.rotation for o in tile.orientations] == [0, 90, 180, 270]


def test_rotated_two_villa_tile_scores_the_right_villas() -> None:
    state = new_game(2)
    use_comp(state, comp_with([TWO_VILLAS, {"id": "TVS", "parts": [{"kind": "villa", "at": ["S"], "chimneys": 2}]},
                               {"id": "TVN", "parts": [{"kind": "villa", "at": ["N"], "chimneys": 1}]}]))
    put(state, 0, "TVS", "c3")  # a villa open to the south
    for tile, cell, rotation in (("TVV", "c4", 180), ("TVN", "c5", 0)):
        state.stage, state.actor, state.held = "build", 0, tile
        state.apply_action(f"build:{cell}:{rotation}", seat=0)
    d = state.players[0].district
    # turned 180°: c3 (2) + the 3-chimney half of c4 form one villa, the 1-chimney half + c5 (1) the other
    # (unturned it would be 2 + 1 and 3 + 1)
    assert sorted(f.chimneys for f in d.features if f.kind == "villa") == [2, 5]


# ----- discrepancy 2: component files that cannot be played are refused clearly ------------------

def _rules_raw() -> dict[str, Any]:
    text = resources.files("ludothek.games.carpediem").joinpath("data").joinpath("rules.json").read_text("utf-8")
    raw: dict[str, Any] = json.loads(text)
    return raw


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r["setups"]["2"]["cards_per_letter"].update(A=3), "deal 9 cards for 8 card spaces"),
        (lambda r: r["setups"].pop("3"), "no setup for 3 players"),
        (lambda r: r["setups"]["2"].update(empty_slots=[1, 4, 9, 13]), "distinct numbers 1..12"),
        (lambda r: r["setups"]["3"].update(taken_before_clear=2), "clear after 3 tiles"),
        (lambda r: r["setups"]["2"].update(empty_slots=[1, 2, 4, 7]), "usable circles"),
    ],
)
def test_unplayable_setups_are_refused(change: Any, message: str) -> None:
    """Before the audit these loaded and broke mid-game (an IndexError in the deal, a pass that never
    ends, no free circle in the 4th scoring)."""
    raw = _rules_raw()
    change(raw)
    with pytest.raises(DataError, match=message):
        _check_setups(_rules(raw), load().cards)


def test_missing_keys_are_data_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file missing a key used to raise a bare KeyError; now the error names the file."""
    data = resources.files("ludothek.games.carpediem").joinpath("data")
    for name in ("boards.json", "scoring_cards.json"):
        shutil.copy(str(data.joinpath(name)), tmp_path / name)
    boards = json.loads((tmp_path / "boards.json").read_text("utf-8"))
    del boards["boards"][0]["id"]
    (tmp_path / "boards.json").write_text(json.dumps(boards), "utf-8")
    cards = json.loads((tmp_path / "scoring_cards.json").read_text("utf-8"))
    del cards["cards"][0]["id"]
    (tmp_path / "scoring_cards.json").write_text(json.dumps(cards), "utf-8")
    monkeypatch.setenv("LUDOTHEK_CARPEDIEM_DATA", str(tmp_path))
    with pytest.raises(DataError, match=r"boards\.json"):
        _parse("boards.json", _boards)
    with pytest.raises(DataError, match=r"scoring_cards\.json"):
        _parse("scoring_cards.json", _cards)


# ----- rules checked by the audit that had no scenario test yet ----------------------------------

def test_banner_track_end_disc_stays_on_top_and_every_step_scores() -> None:
    """Rules page: at the end of the track the disc goes on top again and each extra step is 1 point."""
    state = new_game(3)
    end = state.comp.rules.banner_track_length
    state._advance(0, end)
    state._advance(1, end)  # seat 1 arrives later: on top
    total = state.running_total(0)
    state._advance(0, 2)  # beyond the end: the disc stays on the last space, on top, and scores
    assert state.running_total(0) == total + 2
    assert state.banner_order()[:2] == [0, 1]
    assert state.view(None)["players"][0]["banner"]["space"] == end


def test_bread_cannot_move_to_a_space_without_tiles_and_staying_needs_bread() -> None:
    state = new_game(2, places=(1, 4))
    state.rondel[5] = []
    p = state.players[0]
    assert "move:1" not in state.legal_actions()  # no standing still without bread
    p.bread = 1
    acts = state.legal_actions()
    assert "move:1:bread" in acts and "move:6:bread" not in acts


def test_scoring_order_is_fixed_when_the_scoring_starts() -> None:
    """Banner steps won from a card do not change who places the next disc (documented ruling)."""
    state = new_game(2)
    state.players[0].steps = 1
    enter_scoring(state)
    assert state.order == [0, 1]
    state.slots[2], state.slots[3] = "C02", "C01"  # 3 chimneys → coin + step; 3 chimneys → step + bread
    state.apply_action("disc:2-3")
    state.apply_action("card:2:fail")
    state.apply_action("card:3:fail")
    assert state.actor == 1 and state.stage == "disc"


# ----- discrepancy 3: a guess in any file marks the set provisional ------------------------------

def test_a_guess_in_any_file_marks_the_set_provisional(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only tiles.json used to decide: an operator who replaced the tiles but kept the guessed
    boards would have lost the page's provisional line ("never hide a guess")."""
    data = resources.files("ludothek.games.carpediem").joinpath("data")
    for name in ("tiles.json", "boards.json", "frames.json", "villa_table.json", "scoring_cards.json",
                 "fountain_cards.json", "rules.json"):
        raw = json.loads(data.joinpath(name).read_text("utf-8"))
        if name != "boards.json":
            raw.pop("provisional", None)
        (tmp_path / name).write_text(json.dumps(raw), "utf-8")
    monkeypatch.setenv("LUDOTHEK_CARPEDIEM_DATA", str(tmp_path))
    assert load.__wrapped__().provisional
    boards = json.loads((tmp_path / "boards.json").read_text("utf-8"))
    del boards["provisional"]
    (tmp_path / "boards.json").write_text(json.dumps(boards), "utf-8")
    assert not load.__wrapped__().provisional
