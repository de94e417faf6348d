"""Undo in the engine: a seat takes back its own last actions until a chance outcome or another seat intervenes."""

from __future__ import annotations

import json
import random

import pytest

from ludothek import engine
from ludothek.engine import UNDO, IllegalAction, ReplayError, conformance

from ..rolltheages.helpers import new_game, roll


def _building_turn():  # type: ignore[no-untyped-def]
    """Roll Through the Ages, seat 0 with 9 workers in its build phase (three decisions already made)."""
    s = new_game(2, start=1)
    roll(s, "W", "W", "W")
    while s.phase != "build":
        s.apply_action("done" if "done" in s.legal_actions() else s.legal_actions()[0])
    return s


def test_undo_restores_each_earlier_position_and_is_kept_in_the_record() -> None:
    s = _building_turn()
    positions = [s.snapshot()]
    for _ in range(2):
        s.apply_action(next(a for a in s.legal_actions() if a.startswith("work:")))
        positions.append(s.snapshot())
    played = s.move_number()
    s.undo(0)
    assert s.snapshot() == positions[1]
    s.undo(0)
    assert s.snapshot() == positions[0]
    assert s.move_number() == played + 2  # nothing is forgotten: the undos are entries of their own
    assert [e.action for e in s.history()[-2:]] == [UNDO, UNDO]
    rec = json.loads(json.dumps(engine.record(s)))
    assert [a["action"] for a in rec["actions"][-2:]] == [UNDO, UNDO]
    assert engine.replay(rec).snapshot() == s.snapshot()
    # Playing on after the undo replays exactly too.
    s.apply_action("done")
    assert engine.replay(engine.record(s)).snapshot() == s.snapshot()


def test_undo_stops_at_a_chance_outcome_and_at_other_seats() -> None:
    s = _building_turn()
    while s.can_undo(0):
        s.undo(0)
    before = s.snapshot()
    reason = s.undo_refusal(0)
    assert reason is not None and "random outcome" in reason
    with pytest.raises(IllegalAction, match="random outcome"):
        s.undo(0)
    assert s.snapshot() == before
    s.apply_action("done" if "done" in s.legal_actions() else s.legal_actions()[0])
    with pytest.raises(IllegalAction, match="Player 1 has acted since"):
        s.undo(1)
    with pytest.raises(IllegalAction, match="anna has acted since"):
        s.undo(1, names=["anna", "bob"])
    with pytest.raises(IllegalAction, match="no seat"):
        s.undo(5)


def test_undo_is_refused_once_the_game_is_over() -> None:
    s = engine.load("machikoro").new_state(2)
    conformance.random_playout(s, random.Random(3))
    with pytest.raises(IllegalAction, match="game is over"):
        s.undo(s.history()[-1].seat if s.history()[-1].seat >= 0 else 0)


def test_log_strikes_the_undone_action_and_names_the_seats() -> None:
    s = _building_turn()
    s.apply_action(next(a for a in s.legal_actions() if a.startswith("work:")))
    s.undo(0)
    lines = engine.log(s, lang="en", names=["anna", "bob"])
    assert lines[-1] == {"n": len(lines), "seat": 0, "action": UNDO, "text": "anna takes back their last action.",
                         "undone": False}
    assert lines[-2]["undone"] is True and lines[-2]["text"].startswith("anna ")
    assert not any(line["undone"] for line in lines[:-2])
    de = engine.log(s, lang="de", names=["anna", "bob"])
    assert de[-1]["text"] == "anna nimmt die letzte Aktion zurück."
    assert all("Player" not in line["text"] and "Spieler 1" not in line["text"] for line in lines + de)


def test_a_record_with_a_disallowed_undo_does_not_replay() -> None:
    s = _building_turn()
    rec = engine.record(s)
    rec["actions"].insert(1, {"seat": 0, "action": UNDO})  # right after the start player was drawn
    with pytest.raises(ReplayError, match=r"action 2 \(undo by seat 0\) does not apply"):
        engine.replay(rec)


def test_describe_and_refusals_use_the_given_names() -> None:
    s = _building_turn()
    action = next(a for a in s.legal_actions() if a.startswith("work:"))
    assert s.describe(action, "en").startswith("Player 1 ")
    assert s.describe(action, "en", names=["anna", "bob"]).startswith("anna ")
    assert s.describe(action, "de", names=["anna", "bob"]).startswith("anna ")
    with pytest.raises(IllegalAction, match=r"\(anna is to move\)"):
        s.apply_action(action, seat=1, names=["anna", "bob"])


def test_a_seat_that_saw_another_seats_moves_cannot_undo_even_after_they_were_taken_back() -> None:
    s = new_game(2, start=1, trade="on")
    roll(s, "W", "W", "S")  # seat 0 has goods to offer
    while s.phase != "trade":
        s.apply_action("done" if "done" in s.legal_actions() else s.legal_actions()[0])
    s.apply_action("offer:2")
    s.apply_action(next(a for a in s.legal_actions() if a.startswith("give:")))
    s.apply_action(next(a for a in s.legal_actions() if a.startswith("ask:")))
    s.apply_action("propose")
    assert s.current_player() == 1 and s.can_undo(0)  # nobody has answered yet: the offer may still go back
    s.apply_action("decline")
    assert s.can_undo(1) and not s.can_undo(0)
    s.undo(1)  # seat 1 takes its answer back: the offer waits for an answer again
    assert s.current_player() == 1
    with pytest.raises(IllegalAction, match="Player 2 has acted since"):
        s.undo(0)


def test_undo_with_a_kept_position_skips_the_replay_and_checks_it() -> None:
    s = _building_turn()
    kept = s.clone()
    s.apply_action(next(a for a in s.legal_actions() if a.startswith("work:")))
    expected = s.clone()
    expected.undo(0)
    s.undo(0, before=kept)
    assert s.snapshot() == expected.snapshot() and s.history() == expected.history()
    wrong = _building_turn()
    wrong.apply_action(next(a for a in wrong.legal_actions() if a.startswith("work:")))
    wrong.apply_action(next(a for a in wrong.legal_actions() if a.startswith("work:")))
    with pytest.raises(ValueError, match="not the position before"):
        wrong.undo(0, before=kept)
