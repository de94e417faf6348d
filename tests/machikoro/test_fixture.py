"""A recorded complete 4-player game, replayed as a regression test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ludothek.engine import ReplayError, log, replay

FIXTURE = Path(__file__).parent / "fixtures" / "game_4p_yucata.json"


def _record() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_recorded_game_replays_to_the_same_result() -> None:
    rec = _record()
    state = replay(rec)
    assert state.is_terminal()
    assert state.result_json() == rec["result"]
    snap = state.snapshot()
    assert snap["placing"] == [2, 0, 1, 3]
    assert snap["coins"] == [9, 17, 7, 6]
    assert snap["built"] == [15, 15, 15, 1]
    assert len(rec["actions"]) == 335


def test_recorded_game_uses_every_kind_of_decision() -> None:
    actions = {a["action"].split(":")[0] for a in _record()["actions"]}
    assert {"dice", "roll", "build", "pass", "tv", "trade", "notrade", "keep", "reroll"} <= actions


@pytest.mark.parametrize("lang", ["de", "en"])
def test_recorded_game_log(lang: str) -> None:
    lines = log(_record(), viewer=0, lang=lang)
    assert len(lines) == 335
    assert all(line["text"] for line in lines)


def test_a_broken_record_names_the_first_bad_action() -> None:
    rec = _record()
    index = next(i for i, a in enumerate(rec["actions"]) if a["action"].startswith("build:"))
    rec["actions"][index]["action"] = "build:radio_tower"
    with pytest.raises(ReplayError, match=f"action {index + 1}"):
        replay(rec)
