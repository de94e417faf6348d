"""The documented action notation is what the engine produces and accepts."""

from __future__ import annotations

import random
import re

import pytest

from ludothek.engine import IllegalAction, load
from ludothek.engine.conformance import random_action
from ludothek.games.machikoro import notation as N
from ludothek.games.machikoro.cards import ESTABLISHMENTS, LANDMARKS

from .helpers import new, play

IDS = "|".join(e.id for e in ESTABLISHMENTS)
LM = "|".join(m.id for m in LANDMARKS)
GRAMMAR = re.compile(
    rf"roll:[12]|dice:[1-6]|dice:([1-6])\+([1-6])|keep|reroll|tv:[1-4]|trade:({IDS}):[1-4]:({IDS})"
    rf"|notrade|build:({IDS}|{LM})|pass|draw:({IDS})"
)


@pytest.mark.parametrize("seed", range(6))
def test_every_action_follows_the_documented_grammar(seed: int) -> None:
    rng = random.Random(seed)
    options = {"market": "komme_was_wolle"} if seed % 2 else {}
    state = load("machikoro").new_state(2 + seed % 3, options)
    while not state.is_terminal():
        legal = state.legal_actions()
        for action in legal:
            match = GRAMMAR.fullmatch(action)
            assert match, action
            if match.group(1):
                assert int(match.group(1)) <= int(match.group(2))  # smaller die first
        state.apply_action(random_action(state, rng))


def test_action_tables() -> None:
    assert len(N.ONE_DIE) == 6 and len(N.TWO_DICE) == 21
    assert N.trade_action(0, 1, 3) == "trade:wheat_field:2:cafe"
    assert N.parse_trade("trade:wheat_field:2:cafe") == (0, 1, 3)
    for bad in (
        "trade:wheat_field:0:cafe",
        "trade:wheat_field:2",
        "trade:x:2:cafe",
        "trade:wheat_field:22:cafe",
    ):
        assert N.parse_trade(bad) is None
    assert N.parse_tv("tv:3") == 2
    for bad in ("tv:0", "tv:", "tv:03", "tv:x", "tv:-1"):
        assert N.parse_tv(bad) is None


def test_tv_station_refusals_explain() -> None:
    state = new(4, coins={0: 0, 1: 7, 2: 3, 3: 0}, cards={0: {"tv_station": 1}})
    play(state, "dice:6")
    with pytest.raises(IllegalAction, match="Player 4 has no coins"):
        state.apply_action("tv:4")
    with pytest.raises(IllegalAction, match="not from yourself"):
        state.apply_action("tv:1")


def test_business_center_offers_every_opponent() -> None:
    state = new(
        3, cards={0: {"business_center": 1, "bakery": 1}, 1: {"cafe": 1}, 2: {"mine": 1, "bakery": 1}}
    )
    play(state, "dice:6")
    assert state.legal_actions() == ["trade:bakery:2:cafe", "trade:bakery:3:mine", "notrade"]


def test_train_station_with_one_die() -> None:
    state = new(2, landmarks={0: ["train_station"]})
    play(state, "roll:1")
    assert state.legal_actions() == list(N.ONE_DIE)
    assert dict(state.chance_outcomes())["dice:6"] == pytest.approx(1 / 6)
