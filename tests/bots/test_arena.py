"""The arena: rotation of seats, split wins on ties, Wilson intervals, and the command line."""

from __future__ import annotations

import json

import pytest

from ludothek import cli, engine
from ludothek.bots.arena import format_table, run_arena, wilson
from tests.engine.toygame import GAME as TOY

engine.register(TOY)


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(10, 10)[1] == 1.0 and wilson(10, 10)[0] > 0.69


def test_seats_rotate_and_wins_add_up() -> None:
    report = run_arena("machikoro", ["medium", "random"], players=2, games=6, seed=3)
    by = {b["bot"]: b for b in report["bots"]}
    assert by["medium"]["seats"] == by["random"]["seats"] == 6
    assert by["medium"]["wins"] + by["random"]["wins"] == pytest.approx(6)
    assert by["medium"]["win_rate"] > by["random"]["win_rate"]
    assert by["medium"]["decisions"] > 0 and by["medium"]["decision_ms"]["max"] >= by["medium"]["decision_ms"]["p95"]
    cpu = by["medium"]["decision_cpu_ms"]  # CPU time of the deciding thread, next to the wall-clock time
    assert 0 < cpu["mean"] <= cpu["max"] and cpu["p95"] <= cpu["max"]
    assert "cpu p95" in format_table(report)
    assert report["mean_turns"] > 0
    assert "medium" in format_table(report)


def test_same_seed_same_figures() -> None:
    a = run_arena("toypig", ["easy", "random"], players=3, games=4, seed=9)
    b = run_arena("toypig", ["easy", "random"], players=3, games=4, seed=9)
    assert [x["wins"] for x in a["bots"]] == [x["wins"] for x in b["bots"]]
    # three seats, two names: the list repeats, so each game counts all three seats
    assert sum(x["seats"] for x in a["bots"]) == 12


def test_arena_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["arena", "toypig", "--bots", "medium,random", "--games", "4", "--seed", "1",
                     "--json", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [b["bot"] for b in report["bots"]] == ["medium", "random"]


def test_arena_command_refuses_unknown_bots() -> None:
    with pytest.raises(SystemExit, match="--bots"):
        cli.main(["arena", "toypig", "--bots", "medium,wizard", "--games", "2"])


def test_play_and_simulate_accept_the_new_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "toypig", "--bot", "medium", "--games", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["games"] == 3
    parser = cli.build_parser()
    assert parser.parse_args(["play", "toypig", "--bot", "hard"]).bot == "hard"


def test_scripted_opponents_come_from_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    """Machi Koro's Cheese Factory / Ranch expert plays in the arena, but is no lobby bot."""
    from ludothek.bots import BOTS
    from ludothek.bots.arena import known_bots

    assert "expert" in known_bots("machikoro") and "expert" not in BOTS
    assert "expert" not in known_bots("toypig")
    assert cli.main(["arena", "machikoro", "--bots", "expert,random", "--games", "4", "--json", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["bots"][0]["win_rate"] >= 0.5
