"""Recorded complete games replay to the same end (regression tests for rules version 1), also games
recorded under an earlier rule (``fixtures/first_rule/``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ludothek.engine import log, replay

HERE = Path(__file__).parent / "fixtures"
#: ``first_rule/``: records made before issue 29 (canal cards dealt as ``canal:N+daffodil``), kept as
#: they are and never regenerated: they must replay under the rule they were played with (ruling 44).
FIXTURES = sorted(HERE.glob("*.json")) + sorted((HERE / "first_rule").glob("*.json"))


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


def test_the_first_rule_record_keeps_its_rule_and_a_new_record_has_the_seeds() -> None:
    old = replay(json.loads((HERE / "first_rule" / "game_daffodil_3p_greedy_seed1.json").read_text(encoding="utf-8")))
    new = replay(json.loads((HERE / "game_daffodil_3p_greedy_seed1.json").read_text(encoding="utf-8")))
    canals = [[bool(t["daffodil"]) for t in st.snapshot()["tracks"] if t.get("canal")] for st in (old, new)]
    assert sorted(canals[0]) == [False] * 4 + [True] * 3
    assert canals[1] == [True] * 7
