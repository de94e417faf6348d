"""Refusals, log sentences, views and the terminal rendering."""

from __future__ import annotations

import json
import random

import pytest

from ludothek.engine import IllegalAction, load
from ludothek.engine.conformance import random_steps
from ludothek.games.machikoro.rules import MachiKoroState
from ludothek.games.machikoro.text import render

from .helpers import new, play


def _midgame(players: int = 3, seed: int = 5, steps: int = 150, **options: str) -> MachiKoroState:
    state = load("machikoro").new_state(players, options)
    assert isinstance(state, MachiKoroState)
    rng = random.Random(seed)
    random_steps(state, rng, steps)
    return state


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("build:cafe", "not a legal action"),
        ("dice:7", "not a legal action"),
        ("", "not a legal action"),
        (None, "must be a string"),
    ],
)
def test_refusals_are_clear_and_change_nothing(action: object, message: str) -> None:
    state = new(2)
    before = state.snapshot()
    with pytest.raises(IllegalAction, match=message):
        state.apply_action(action)  # type: ignore[arg-type]
    assert state.snapshot() == before and state.move_number() == 0


def test_out_of_turn() -> None:
    state = new(2, coins={0: 10})
    with pytest.raises(IllegalAction, match="random outcome"):
        state.apply_action("dice:3", seat=0)
    play(state, "dice:5")
    with pytest.raises(IllegalAction, match="not your turn"):
        state.apply_action("pass", seat=1)
    state.apply_action("pass", seat=0)
    assert state.turn == 1


def test_tv_target_refusal_names_the_choices() -> None:
    state = new(4, coins={0: 0, 1: 7, 2: 3, 3: 0}, cards={0: {"tv_station": 1}})
    play(state, "dice:6")
    with pytest.raises(IllegalAction, match="tv:2, tv:3"):
        state.apply_action("tv:4")


@pytest.mark.parametrize("lang", ["de", "en"])
def test_describe_every_kind_of_action(lang: str) -> None:
    state = new(
        3,
        coins={0: 10, 1: 9, 2: 4},
        cards={0: {"tv_station": 1, "business_center": 1, "bakery": 1}, 1: {"cafe": 1}},
        landmarks={0: ["train_station", "radio_tower"]},
    )
    texts = [state.describe(a, lang) for a in state.legal_actions()]
    play(state, "roll:2")
    texts += [state.describe("dice:3+3", lang), state.describe("dice:2+4", lang)]
    play(state, "dice:2+4")
    texts += [state.describe(a, lang) for a in state.legal_actions()]
    play(state, "keep")
    texts += [state.describe("tv:2", lang)]
    play(state, "tv:2")
    texts += [state.describe(a, lang) for a in state.legal_actions()]
    play(state, "notrade")
    texts += [state.describe(a, lang) for a in state.legal_actions()]
    assert all(t.strip() for t in texts)
    joined = " ".join(texts)
    if lang == "de":
        assert (
            "Fernsehsender" in joined and "Pasch" in joined and "tauscht" in joined and "Funkturm" in joined
        )
    else:
        assert (
            "TV Station" in joined and "doubles" in joined and "trades" in joined and "Radio Tower" in joined
        )


def test_describe_draw() -> None:
    state = load("machikoro").new_state(2, {"market": "komme_was_wolle"})
    assert state.describe("draw:cafe", "de") == "Aufgedeckt: Café"


@pytest.mark.parametrize("lang", ["de", "en"])
@pytest.mark.parametrize("market", ["all", "komme_was_wolle"])
def test_render(lang: str, market: str) -> None:
    state = _midgame(3, market=market)
    for seat in (0, 1, 2, None):
        text = render(state, seat, lang)
        assert ("Spieler 1" if lang == "de" else "Player 1") in text
        assert ("Auslage" if lang == "de" else "Market") in text
        assert ("Münzen" if lang == "de" else "coins") in text
    if market == "komme_was_wolle":
        assert ("Nachziehstapel" if lang == "de" else "Deck") in render(state, 0, lang)
    assert (" (du)" if lang == "de" else " (you)") in render(state, 1, lang)


def test_render_finished_game() -> None:
    state = _midgame(2, steps=100_000)
    assert state.is_terminal()
    assert "Game over: 1. Player" in render(state, None, "en")


def test_view_is_json_and_complete() -> None:
    state = _midgame(4, market="komme_was_wolle")
    view = state.view(None)
    json.dumps(view)
    assert {"cities", "market", "phase", "dice", "to_move", "turn", "options"} <= set(view)
    assert len(view["cities"]) == 4
    assert set(view["market"]) == {"piles", "deck", "deck_by_kind"}
    assert view["legal_actions"] == []
