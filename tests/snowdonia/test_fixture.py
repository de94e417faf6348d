"""Recorded complete games replay to the same end (regression tests for rules version 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ludothek.engine import log, replay

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_recorded_game_replays_to_its_result(path: Path) -> None:
    rec = json.loads(path.read_text(encoding="utf-8"))
    st = replay(rec)
    assert st.is_terminal()
    assert st.result_json() == rec["result"]
    lines = log(rec, viewer=0, lang="de")
    assert len(lines) == len(rec["actions"]) and all(line["text"] for line in lines)


def test_there_are_fixtures() -> None:
    assert len(FIXTURES) >= 2
