"""Views, log sentences and the terminal rendering: public points, private fountain cards and stored tiles."""

from __future__ import annotations

import json
import random

from ludothek.engine.conformance import random_action
from ludothek.games.carpediem.rules import CarpeDiemState
from ludothek.games.carpediem.text import render

from .helpers import new_game


def played(n: int = 3, actions: int = 250, seed: int = 4) -> CarpeDiemState:
    state = new_game(n)
    rng = random.Random(seed)
    for _ in range(actions):
        state.apply_action(random_action(state, rng))
    return state


def test_view_is_public_except_secrets() -> None:
    state = played()
    state.players[1].fountains = ["villa"]
    state.players[1].stored = ["L01"]
    v0, v1, spectator = state.view(0), state.view(1), state.view(None)
    json.dumps(v0)
    assert v0["provisional"] is True
    assert "fountains" not in v0["players"][1] and v1["players"][1]["fountains"] == ["villa"]
    assert "stored" not in v0["players"][1] and v1["players"][1]["stored"] == ["L01"]
    assert v0["players"][1]["stored_count"] == 1 and v0["players"][1]["fountain_count"] == 1
    assert "L01" in v1["tiles"]
    assert all("fountains" not in p and "stored" not in p for p in spectator["players"])
    for p in v0["players"]:  # points are public, with the running total
        assert p["total"] == p["vp"] + p["banner_vp"] + p["frame_vp"] + p["villa_vp"]


def test_view_describes_every_visible_tile_and_frame_goal() -> None:
    state = played()
    view = state.view(0)
    shown = {c["tile"] for p in view["players"] for c in p["district"]["cells"]}
    shown |= {t for space in view["rondel"] for t in space["tiles"]} | {t for t in view["seal"] if t}
    assert shown <= set(view["tiles"])
    goals = [g for part in view["players"][0]["district"]["frame"] for g in part["goals"]]
    assert len(goals) == 8 and all(g["line"][0] in ("row", "col") for g in goals)
    assert len(view["circles"]) == 17 and sum(c["usable"] for c in view["circles"]) == 13


def test_render_in_both_languages() -> None:
    state = played(2, 120)
    en, de = render(state, 0, "en"), render(state, 0, "de")
    assert "provisional component set" in en and "vorläufiger Materialsatz" in de
    assert "Player 1" in en and "Spieler 2" in de


def test_explanations_for_illegal_actions() -> None:
    state = new_game(2, places=(1, 2))
    assert "move:" in state.explain_illegal("move:5")
    state.apply_action("move:2")
    assert "take:" in state.explain_illegal("take:nothing")
