"""The view shows what the Yucata table shows; the text rendering and the log read well."""

from __future__ import annotations

from ludothek.games.rolltheages.text import render

from .helpers import new_game, roll, shape


def test_view_has_every_part_of_the_yucata_table() -> None:
    s = new_game(2)
    shape(s, 0, goods=[3, 2, 0, 0, 1], food=1, cities=4)
    s.boards[0].monument_work["obelisk"] = 9
    s.boards[0].monument_points["obelisk"] = 6
    s.first["obelisk"] = 0
    roll(s, "S", "F", "X", "C")
    view = s.view(1)
    board = view["boards"][0]
    # goods rows with their values
    assert [(g["id"], g["count"], g["value"]) for g in board["goods"]] == [
        ("wood", 3, 6),
        ("stone", 2, 6),
        ("pottery", 0, 0),
        ("cloth", 0, 0),
        ("metal", 1, 5),
    ]
    assert board["goods_value"] == 17 and board["goods_limit"] == 6
    # food track and the cities fed by the food forecast (1 + 3 + 2 = 6 >= 4 cities)
    assert (board["food"], board["food_max"], board["cities_fed"], board["cities_unfed"]) == (1, 15, 4, 0)
    # monuments with the first completer
    obelisk = next(m for m in view["monuments"] if m["id"] == "obelisk")
    assert obelisk["first_completer"] == 0 and obelisk["first_points"] == 6 and obelisk["later_points"] == 3
    assert board["monuments"]["obelisk"] == {"marked": 9, "workers": 9, "points": 6}
    # developments, disaster points, dice with lock state
    assert board["developments"] == [] and board["disasters"] == 0
    assert view["turn"]["dice"] == [
        {"face": "F", "locked": False},
        {"face": "S", "locked": True},
        {"face": "X", "locked": False},
        {"face": "C", "locked": False},
    ]
    assert view["turn"]["rolls_left"] == 2
    assert len(view["developments"]) == 13


def test_unfed_cities_show_after_feeding() -> None:
    s = new_game(2)
    shape(s, 0, cities=5, food=2, goods=[0, 0, 0, 0, 0])
    roll(s, "W", "W", "W", "W", "W")
    s.apply_action("done")
    board = s.view(0)["boards"][0]
    assert (board["cities_fed"], board["cities_unfed"], board["disasters"]) == (2, 3, 3)


def test_text_render_in_both_languages() -> None:
    s = new_game(2)
    roll(s, "S", "F", "C")
    en = render(s, 0, "en")
    de = render(s, 0, "de")
    assert "Round 1" in en and "[S*]" in en and "Your move." in en
    assert "Runde 1" in de and "Holz" in de and "Du bist am Zug." in de
    assert "Your move" not in render(s, 1, "en")  # not player 2's turn
    spectator = render(s, None, "en")
    assert "Player 1 (S)" in spectator


def test_describe_tells_the_automatic_consequences() -> None:
    s = new_game(2)
    shape(s, 0, food=0)
    roll(s, "S", "S", "G")
    text = s.describe("done", "en")
    assert "collects 5 goods: 1 wood, 1 stone, 1 pottery, 1 cloth, 1 metal" in text
    assert "famine" in text and "drought" in text
    de = s.describe("done", "de")
    assert "Hungersnot" in de and "Dürre" in de


def test_illegal_actions_get_clear_reasons() -> None:
    import pytest

    from ludothek.engine import IllegalAction

    s = new_game(2)
    roll(s, "S", "F", "C")
    with pytest.raises(IllegalAction, match="skulls stay locked"):
        s.apply_action("roll:S")
    s.apply_action("done")
    with pytest.raises(IllegalAction, match="buy"):
        s.apply_action("buy:empire")


def test_text_render_tells_what_happened_this_turn() -> None:
    s = new_game(2)
    shape(s, 0, food=9)
    roll(s, "S", "S", "W")
    s.apply_action("done")
    assert "This turn: Player 1 collects 4 goods" in render(s, 0, "en")
    assert "Dürre" in render(s, 0, "de")
