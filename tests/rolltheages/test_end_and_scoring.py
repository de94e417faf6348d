"""Both end conditions (the round is played out), scoring and the goods-value tie-break."""

from __future__ import annotations

from ludothek.engine import TERMINAL

from .helpers import finish_turn, new_game, play_quiet_turn, roll, shape


def test_fifth_development_ends_the_game_after_the_round() -> None:
    s = new_game(3, start=2)  # seat 1 starts, seat 0 plays last in the round
    play_quiet_turn(s)  # seat 1
    play_quiet_turn(s)  # seat 2
    assert s.active == 0
    shape(s, 0, cities=3, food=9, developments=["irrigation", "caravans", "medicine", "quarrying"])
    roll(s, "C", "C", "C")
    s.apply_action("done")
    s.apply_action("buy:agriculture")
    assert s.end_reasons == ["developments"]
    assert s.current_player() == TERMINAL  # seat 0 was last in the round
    assert s.round == 1


def test_end_waits_for_the_rest_of_the_round() -> None:
    s = new_game(3, start=1)
    shape(s, 0, food=9, developments=["irrigation", "caravans", "medicine", "quarrying"])
    roll(s, "C", "C", "C")
    s.apply_action("done")
    s.apply_action("buy:agriculture")
    assert s.end_reasons == ["developments"] and s.active == 1 and s.current_player() != TERMINAL
    play_quiet_turn(s)
    assert s.active == 2
    play_quiet_turn(s)
    assert s.current_player() == TERMINAL
    rolls = [e for e in s.history() if e.action.startswith("dice:")]
    assert len(rolls) == 3  # one first roll each: everyone had the same number of turns


def test_all_monuments_completed_ends_the_game() -> None:
    s = new_game(2, start=1)
    # every monument but the Great Wall has been completed by somebody
    for m in ("step_pyramid", "stone_circle", "obelisk", "hanging_gardens"):
        s.first[m] = 1
        s.boards[1].monument_points[m] = 1
    shape(s, 0, food=9)
    s.boards[0].monument_work["great_wall"] = 10
    roll(s, "W", "F", "F")
    s.apply_action("done")
    s.apply_action("work:great_wall:3")
    assert s.end_reasons == ["monuments"]
    assert s.active == 1
    play_quiet_turn(s)
    assert s.current_player() == TERMINAL


def test_scoring_and_goods_tie_break() -> None:
    s = new_game(2, start=1)
    s.boards[0].developments = ["religion"]  # 6 points
    s.boards[1].developments = ["granaries"]  # 6 points
    s.boards[0].goods = [2, 0, 0, 0, 0]  # worth 3
    s.boards[1].goods = [0, 1, 0, 0, 0]  # worth 2
    res = s.result()
    assert [(r.seat, r.rank, r.score) for r in res] == [(0, 1, 6.0), (1, 2, 6.0)]
    s.boards[1].goods = [0, 0, 0, 0, 1]  # worth 5
    assert [r.rank for r in s.result()] == [2, 1]
    s.boards[1].goods = [3, 0, 0, 0, 0]
    s.boards[0].goods = [3, 0, 0, 0, 0]
    assert [r.rank for r in s.result()] == [1, 1]  # a full tie stays a tie


def test_finish_turn_helper_passes_the_turn() -> None:
    s = new_game(2)
    roll(s, "F", "F", "F")
    finish_turn(s)
    assert s.active == 1
