"""Setup per player count, the patrician's movement, bread, taking tiles, passes and the start player."""

from __future__ import annotations

from collections import Counter

import pytest

from ludothek.games.carpediem import GAME
from ludothek.games.carpediem.rules import CarpeDiemState

from .helpers import enter_scoring, new_game


@pytest.mark.parametrize(
    ("n", "letters", "empty", "circles", "vp"),
    [
        (2, {"A": 2, "B": 2, "C": 2, "D": 2}, [1, 4, 9, 12], 9, [8, 9]),
        (3, {"A": 2, "B": 3, "C": 2, "D": 3}, [1, 12], 13, [8, 9, 13]),
        (4, {"A": 3, "B": 3, "C": 2, "D": 4}, [], 17, [8, 9, 10, 11]),
    ],
)
def test_setup_per_player_count(n: int, letters: dict[str, int], empty: list[int], circles: int, vp: list[int]) -> None:
    state = new_game(n, start=1)
    dealt = [state.comp.cards[c] for c in state.slots[1:] if c]
    assert Counter(c.letter for c in dealt) == letters
    assert [k for k in range(1, 13) if state.slots[k] is None] == empty
    assert len(state.free_circles()) == circles == 4 * n + 1
    # starting points in turn order from the start player (seat 1)
    assert [state.players[(1 + i) % n].vp for i in range(n)] == vp
    # banner discs: the start player at the bottom, the others on top in turn order
    assert state.banner_order() == [(1 + i) % n for i in reversed(range(n))]
    assert len(state.seal) == 11 and all(len(space) == 4 for space in state.rondel)
    assert len({p.district.board for p in state.players}) == n
    assert all(len(p.district.frame) == 4 for p in state.players)


def test_card_deal_probabilities_follow_the_letter_quotas() -> None:
    state = GAME.new_state(2)
    assert isinstance(state, CarpeDiemState)
    state.apply_action("start:0")
    for a in ("board:I", "board:II", *[f"frame:F{i:02d}" for i in range(1, 9)]):
        state.apply_action(a)
    outcomes = dict(state.chance_outcomes())
    assert abs(sum(outcomes.values()) - 1) < 1e-9
    assert abs(outcomes["card:A01"] - 2 / 8 / 12) < 1e-12


def test_patricians_are_placed_before_tiles_are_revealed() -> None:
    state = GAME.new_state(3)
    assert isinstance(state, CarpeDiemState)
    while state.stage != "place":
        state.apply_action(state.legal_actions()[0])
    assert state.start == 0 and state.actor == 0
    assert all(not space for space in state.rondel) and not state.seal
    state.apply_action("place:4")
    assert "place:4" not in state.legal_actions() and state.actor == 1
    state.apply_action("place:5")
    state.apply_action("place:1")
    assert state.stage == "reveal"


def test_movement_along_the_circle_skips_empty_spaces() -> None:
    state = new_game(2, places=(1, 2))
    assert state.actor == 0 and state.stage == "move"
    assert state.legal_actions() == ["move:2", "move:7"]
    state.rondel[1] = []
    state.rondel[6] = []
    state.rondel[5] = []
    assert state.legal_actions() == ["move:3", "move:5"]


def test_bread_moves_anywhere_or_stays() -> None:
    state = new_game(2, places=(1, 2))
    state.players[0].bread = 1
    acts = state.legal_actions()
    assert "move:1:bread" in acts and "move:4:bread" in acts and "move:2:bread" not in acts
    state.apply_action("move:1:bread")
    assert state.players[0].bread == 0 and state.players[0].pos == 0 and state.stage == "take"


@pytest.mark.parametrize(("n", "limit"), [(2, 2), (3, 3), (4, 4)])
def test_tiles_leave_a_space_after_enough_were_taken(n: int, limit: int) -> None:
    state = new_game(n, places=tuple(range(1, n + 1)))
    taken = 0
    while taken < limit:
        seat = state.actor
        state.players[seat].bread = 1
        state.apply_action("move:3" if "move:3" in state.legal_actions() else "move:3:bread")
        state.apply_action(state.legal_actions()[0])
        state.apply_action("store")
        taken += 1
        if taken < limit:
            assert len(state.rondel[2]) == 4 - taken
    assert state.rondel[2] == []


def test_start_player_passes_on_and_fourth_pass_uses_dark_tiles() -> None:
    state = new_game(2, start=1)
    for expected_start in (0, 1, 0):
        enter_scoring(state)
        while state.stage in ("disc", "card"):
            state.apply_action(state.legal_actions()[0])
        assert state.stage == "reveal"
        dark_before = len(state.dark_left)
        while state.stage == "reveal":
            state.apply_action(state.legal_actions()[0])
        assert state.actor == expected_start
        if state.pass_no == 3:
            assert len(state.dark_left) == dark_before - 28 == 0
            assert all(state.comp.tiles[t].back == "dark" for space in state.rondel for t in space)
        else:
            assert all(state.comp.tiles[t].back == "light" for space in state.rondel for t in space)
    enter_scoring(state)
    while state.stage in ("disc", "card"):
        state.apply_action(state.legal_actions()[0])
    assert state.is_terminal()


def test_a_pass_is_seven_rounds() -> None:
    state = new_game(3)
    turns = 0
    while state.pass_no == 0 and state.stage != "disc":
        if state.stage == "move":
            turns += 1
        if state.stage == "build":
            state.apply_action("store")
        else:
            state.apply_action(state.legal_actions()[0])
    assert turns == 21 and all(not space for space in state.rondel)
