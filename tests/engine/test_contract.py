"""The engine contract, checked on a tiny toy game with a secret chance outcome."""

from __future__ import annotations

import json
import random

import pytest

from ludothek import engine
from ludothek.bots import RandomBot, play_to_end
from ludothek.engine import conformance
from tests.engine.toygame import GAME

engine.register(GAME)


def test_registry_lists_and_loads() -> None:
    assert "toypig" in engine.games()
    assert engine.load("toypig") is GAME
    with pytest.raises(KeyError, match="unknown game"):
        engine.load("chess")


def test_options_validated() -> None:
    assert GAME.new_state(2).options == {"length": "short"}
    with pytest.raises(engine.InvalidOptions, match="2 to 3 players"):
        GAME.new_state(5)
    with pytest.raises(engine.InvalidOptions, match="must be one of"):
        GAME.new_state(2, {"length": "endless"})
    with pytest.raises(engine.InvalidOptions, match="unknown option"):
        GAME.new_state(2, {"speed": "fast"})
    with pytest.raises(engine.InvalidOptions, match="whole number"):
        GAME.new_state("2")  # type: ignore[arg-type]


def test_conformance_suite_passes_on_toy_game() -> None:
    for length in ("short", "long"):
        conformance.run_suite(GAME, 3, {"length": length}, seeds=range(4), deep_every=3)


def test_out_of_turn_and_terminal_are_refused() -> None:
    state = GAME.new_state(2)
    with pytest.raises(engine.IllegalAction, match="nobody's turn"):
        state.apply_action("bonus:1", seat=0)
    for a in ("bonus:1", "bonus:2", "die:4"):
        state.apply_action(a)
    with pytest.raises(engine.IllegalAction, match="not your turn"):
        state.apply_action("roll", seat=1)
    state.apply_action("roll", seat=0)
    play_to_end(state, [RandomBot(), RandomBot()], random.Random(1))
    with pytest.raises(engine.IllegalAction, match="over"):
        state.apply_action("roll")


def test_secret_outcomes_hidden_in_history_and_log() -> None:
    state = GAME.new_state(2)
    state.apply_action("bonus:3")
    state.apply_action("bonus:2")
    assert [e.action for e in state.history(0)] == ["bonus:3", "?"]
    assert [e.action for e in state.history(1)] == ["?", "bonus:2"]
    assert [e.action for e in state.history(None)] == ["?", "?"]
    lines = engine.log(state, viewer=1, lang="de")
    assert lines[0]["action"] == "?" and "verdeckt" in lines[0]["text"]
    assert lines[1]["text"] == "Aktion bonus:2"


def test_replay_names_first_bad_action() -> None:
    state = GAME.new_state(2)
    play_to_end(state, [RandomBot(), RandomBot()], random.Random(7))
    rec = json.loads(json.dumps(engine.record(state)))
    assert engine.replay(rec).snapshot() == state.snapshot()
    rec["actions"][4]["action"] = "die:9"
    with pytest.raises(engine.ReplayError, match=r"action 5 .'die:9'. does not apply"):
        engine.replay(rec)
    with pytest.raises(engine.ReplayError, match="not valid JSON"):
        engine.replay("{oops")
    with pytest.raises(engine.ReplayError, match="no 'actions'"):
        engine.replay({"game": "toypig", "players": 2})
    with pytest.raises(engine.ReplayError, match="setup is invalid"):
        engine.replay({"game": "toypig", "players": 9, "actions": []})


def test_ranks_from_keys_ties() -> None:
    assert engine.ranks_from_keys([5, 9, 5, 1]) == [2, 1, 2, 4]
