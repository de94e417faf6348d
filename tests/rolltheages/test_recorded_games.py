"""Recorded complete games (engine records in ``fixtures/``) replayed as regression tests.

A rules change that alters how any of these games plays out breaks the replay
or the stored result; such a change must bump ``rules_version``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ludothek.engine import log, replay

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_recorded_game_replays_to_its_result(path: Path) -> None:
    rec = json.loads(path.read_text("utf-8"))
    state = replay(rec)
    assert state.is_terminal()
    assert state.result_json() == rec["result"]
    assert state.round == rec["meta"]["rounds"]  # type: ignore[attr-defined]
    assert state.end_reasons == rec["meta"]["end_reasons"]  # type: ignore[attr-defined]
    for lang in ("de", "en"):
        lines = log(rec, "all", lang)
        assert len(lines) == len(rec["actions"])
        assert all(line["text"] for line in lines)


def test_there_are_fixtures_for_two_players_trade_and_solo() -> None:
    assert {p.stem for p in FIXTURES} >= {"game_2p", "game_3p_trade", "game_solo"}
