"""Stored tiles (issue 15, part 6): the take is public, the storage field shows others only the count.

The ruling is in ``docs/games/carpediem.md``: a tile is taken from the open
board in front of everyone and only then laid face down, so which tile it was
is public (log and record), as at the table; the view shows others how many.
"""

from __future__ import annotations

from ludothek import engine as eng
from ludothek.games.carpediem.rules import CarpeDiemState

from .helpers import new_game


def stored_one() -> tuple[CarpeDiemState, str]:
    state = new_game(2)
    state.apply_action(state.legal_actions()[0])  # move
    tile = state.legal_actions()[0].split(":")[1]
    state.apply_action(f"take:{tile}")
    state.apply_action("store")
    return state, tile


def test_the_take_is_public_and_the_stored_pile_shows_the_count() -> None:
    state, tile = stored_one()
    for viewer in (1, None):
        actions = [e.action for e in state.history(viewer)]
        assert f"take:{tile}" in actions and "store" in actions, viewer
        view = state.view(viewer)
        assert "stored" not in view["players"][0] and view["players"][0]["stored_count"] == 1
    assert state.view(0)["players"][0]["stored"] == [tile]
    lines = eng.log(state, 1)[-2:]  # as the other player reads it
    assert lines[0]["action"] == f"take:{tile}" and tile in lines[0]["text"]
    assert lines[1]["action"] == "store" and tile not in lines[1]["text"]


def test_the_doc_states_the_same_ruling() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / "carpediem.md").read_text(encoding="utf-8")
    row = next(line for line in doc.splitlines() if line.startswith("| Stored tiles"))
    assert "public" in row and "how many" in row, row
    assert "As required by the issue" not in row
