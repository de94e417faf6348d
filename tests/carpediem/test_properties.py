"""Hypothesis properties: random legal play ends, nothing goes negative, every tile stays
somewhere exactly once, records replay, and views hide what they must."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from ludothek.engine import record, replay
from ludothek.engine.conformance import random_action
from ludothek.games.carpediem import GAME
from ludothek.games.carpediem.rules import CarpeDiemState


def tile_places(state: CarpeDiemState) -> Counter[str]:
    where: Counter[str] = Counter(state.light_left + state.dark_left + state.removed)
    where.update(t for t in state.seal if t)
    where.update(t for space in state.rondel for t in space)
    if state.held:
        where[state.held] += 1
    for p in state.players:
        where.update(p.stored)
        where.update(c[0] for c in p.district.cells if c)
    return where


def check_invariants(state: CarpeDiemState) -> None:
    for p in state.players:
        assert p.coins >= 0 and p.bread >= 0 and min(p.wares.values()) >= 0 and p.vp >= 0
        assert 0 <= p.discs <= 4
    if state.players:
        where = tile_places(state)
        assert set(where) == set(state.comp.tiles) and set(where.values()) == {1}
    fountain_cards = sum(state.fdeck.values()) + len(state.fbottom) + len(state.fdrawn) + sum(
        len(p.fountains) for p in state.players)
    assert fountain_cards == 24


@settings(max_examples=25)
@given(st.integers(min_value=2, max_value=4), st.integers(min_value=0, max_value=10**6))
def test_random_play_ends_with_invariants(n: int, seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state(n)
    assert isinstance(state, CarpeDiemState)
    steps = 0
    while not state.is_terminal():
        state.apply_action(random_action(state, rng))
        steps += 1
        if steps % 7 == 0:
            check_invariants(state)
        assert steps < 5000
    check_invariants(state)
    assert sorted(r.rank for r in state.result())[0] == 1
    assert all(p.discs == 0 for p in state.players)


@settings(max_examples=6)
@given(st.integers(min_value=2, max_value=4), st.integers(min_value=0, max_value=10**6),
       st.integers(min_value=1, max_value=400))
def test_record_replays_and_views_hide_secrets(n: int, seed: int, length: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state(n)
    assert isinstance(state, CarpeDiemState)
    for _ in range(length):
        if state.is_terminal():
            break
        state.apply_action(random_action(state, rng))
    again = replay(json.loads(json.dumps(record(state))))
    assert again.snapshot() == state.snapshot()
    for seat in [*range(n), None]:
        view = state.view(seat)
        for _ in range(3):
            other = state.resample_hidden(seat, rng)
            if other is None:
                break
            assert other.view(seat) == view
        for s, p in enumerate(view["players"]):
            if s != seat and not state.is_terminal():
                assert "fountains" not in p and "stored" not in p
