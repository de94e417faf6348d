"""The game answers encoded by orjson are byte for byte what Starlette's `JSONResponse` writes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from starlette.responses import JSONResponse

from ludothek import engine as eng
from ludothek.engine import jsonread
from ludothek.engine.conformance import random_action
from ludothek.engine.registry import GAME_MODULES
from ludothek.portal import jsonbody

NAMES = ["anna", "Bruno", "Çelik", "Zoë"]


def _standard(content: Any) -> bytes:
    return JSONResponse(content).body


def _answers(game_id: str, seed: int) -> list[Any]:
    """What the API sends of one random game: each seat's view and described legal actions, and the
    record, in both languages, every few actions."""
    game = eng.load(game_id)
    rng = random.Random(seed)
    state = game.new_state(max(2, game.min_players))
    out: list[Any] = []
    for step in range(10_000):
        if state.is_terminal():
            break
        if step % 7 == 0:
            for seat in range(state.num_players):
                legal = state.legal_actions() if state.current_player() == seat else []
                for lang in ("de", "en"):
                    texts = state.describe_all(legal, lang, NAMES[: state.num_players]) if legal else []
                    out.append({"seat": seat, "view": state.view(seat), "legal": [
                        {"action": a, "text": t} for a, t in zip(legal, texts, strict=True)]})
        state.apply_action(random_action(state, rng))
    out.append({"view": state.view(None), "result": state.result_json() if state.is_terminal() else None})
    out.append(eng.record(state))
    return out


@pytest.mark.parametrize("game_id", list(GAME_MODULES))
def test_every_games_answers_encode_to_the_same_bytes(game_id: str) -> None:
    answers = _answers(game_id, seed=11)
    assert len(answers) > 3
    for content in answers:
        assert jsonbody.dumps(content) == _standard(content)
        assert jsonbody.JSONBody(content).body == _standard(content)
        # What the site writes (views: up to 10 levels; records, read back on import: 4) nests far
        # less than what it accepts from clients.
        assert not jsonread.too_deep(content, jsonread.MAX_DEPTH // 2), content


@pytest.mark.parametrize("content", [
    {0: "seat keys", 1: [True, None, 1.5, -3]},
    {"name": "Zoë ☃ \u2028 \"quoted\" \\ /", "tab": "a\tb\n"},
    [[], {}, "", 0, 2**63 - 1, -(2**63)],
    {"big": 2**70},  # beyond orjson: the standard library writes it
])
def test_odd_values_encode_to_the_same_bytes(content: Any) -> None:
    assert jsonbody.dumps(content) == _standard(content)


def test_what_neither_can_write_still_fails() -> None:
    with pytest.raises((TypeError, ValueError)):
        _standard({"x": "a\ud800"})
    with pytest.raises((TypeError, ValueError)):
        jsonbody.dumps({"x": "a\ud800"})


def test_reading_takes_what_the_standard_library_takes() -> None:
    assert jsonbody.loads(b'{"game": 3, "seq": 7}') == {"game": 3, "seq": 7}
    assert jsonbody.loads('{"text": "a\\ud800b"}') == {"text": "a\ud800b"}  # a lone surrogate, escaped
    with pytest.raises(ValueError):
        jsonbody.loads(b"{not json")
