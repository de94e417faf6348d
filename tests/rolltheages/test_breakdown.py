"""The final score in its parts: monuments, developments, Architecture and Empire bonuses, disasters."""

from __future__ import annotations

from ludothek.engine import conformance
from ludothek.games.rolltheages.board import Board


def test_score_parts_add_up_with_both_bonuses() -> None:
    board = Board(("step_pyramid", "great_wall"))
    board.developments = ["architecture", "empire", "leadership"]
    board.monument_points = {"step_pyramid": 1, "great_wall": 13}
    board.cities = 5
    board.disasters = 4
    parts = board.score_parts()
    assert parts == {"monuments": 14, "developments": 8 + 8 + 2, "architecture": 2, "empire": 5, "disasters": -4}
    assert sum(parts.values()) == board.score() == 35


def test_the_end_view_has_the_breakdown_of_every_seat() -> None:
    import random

    from ludothek import engine

    state = engine.load("rolltheages").new_state(3)
    conformance.random_playout(state, random.Random(8))
    conformance.check_breakdown(state)
    view = state.view(1)
    labels = {p["part"]: p["label"] for p in view["breakdown"][0]["parts"]}
    assert labels["architecture"] == {"de": "Bonus Architektur", "en": "Architecture bonus"}
    assert [p["part"] for p in view["breakdown"][0]["parts"]] == [
        "monuments", "developments", "architecture", "empire", "disasters"]
