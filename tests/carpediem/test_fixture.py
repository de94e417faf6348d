"""A recorded complete game (two greedy bots) replays to the same end, and its log reads in both languages."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ludothek.engine import log, replay

FIXTURE = Path(__file__).parent / "fixtures" / "greedy_2p.json"

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("LUDOTHEK_CARPEDIEM_DATA")), reason="the record was made with the shipped component set"
)


def test_recorded_game_replays_to_its_result() -> None:
    rec = json.loads(FIXTURE.read_text())
    state = replay(rec)
    assert state.is_terminal()
    assert state.result_json() == rec["result"]
    assert [r["score"] for r in rec["result"]] == [94, 81]


def test_log_of_the_recorded_game() -> None:
    rec = json.loads(FIXTURE.read_text())
    for lang in ("de", "en"):
        lines = log(rec, viewer=1, lang=lang)
        assert len(lines) == len(rec["actions"])
        assert all(line["text"].strip() for line in lines)
    secret = [line for line in log(rec, viewer=1) if line["action"] == "?"]
    own = [line for line in log(rec, viewer=0) if line["action"] == "?"]
    assert all("looks at a fountain card" in line["text"] for line in secret)
    assert len(secret) + len(own) == sum(1 for a in rec["actions"] if a["action"].startswith("fountain:"))
