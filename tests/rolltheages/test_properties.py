"""Hypothesis properties over random legal play: it ends, invariants hold, records replay."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ludothek.engine import CHANCE, record, replay
from ludothek.engine.conformance import random_action
from ludothek.games.rolltheages import GAME
from ludothek.games.rolltheages.components import CAPACITY, FOOD_MAX, GOODS_LIMIT, MAX_CITIES, MONUMENT_BY_ID
from ludothek.games.rolltheages.rules import RollState

SETUPS = [(2, {}), (3, {}), (4, {}), (1, {"mode": "solo"}), (2, {"trade": "on"}), (4, {"trade": "on"})]


def check_invariants(s: RollState, before: RollState | None) -> None:
    for seat, b in enumerate(s.boards):
        assert all(0 <= n <= CAPACITY[i] for i, n in enumerate(b.goods))
        assert 0 <= b.food <= FOOD_MAX
        assert 3 <= b.cities <= MAX_CITIES
        cost = b.next_city_cost()
        assert (cost is None and b.city_work == 0) or (cost is not None and 0 <= b.city_work < cost)
        for m, work in b.monument_work.items():
            assert 0 <= work <= MONUMENT_BY_ID[m].workers
            assert (work == MONUMENT_BY_ID[m].workers) == (m in b.monument_points)
        assert len(set(b.developments)) == len(b.developments)
        assert b.disasters >= 0
        if before is not None:
            old = before.boards[seat]
            assert b.disasters >= old.disasters
            assert b.cities >= old.cities
            assert set(old.developments) <= set(b.developments)
    for m, seat in s.first.items():
        assert s.boards[seat].monument_points[m] == MONUMENT_BY_ID[m].first
    assert s.workers >= 0 and s.coins >= 0


@settings(max_examples=100)
@given(st.integers(0, 10**6), st.sampled_from(SETUPS))
def test_random_play_ends_and_keeps_invariants(seed: int, setup: tuple[int, dict[str, str]]) -> None:
    players, options = setup
    rng = random.Random(seed)
    s = GAME.new_state(players, options)
    assert isinstance(s, RollState)
    for _ in range(20_000):
        if s.is_terminal():
            break
        before = s.clone()
        turn_before = (s.active, s.round)
        totals_before = [sum(b.goods) + b.food for b in s.boards]
        action = random_action(s, rng)
        s.apply_action(action)
        check_invariants(s, before)
        if action == "accept":  # a trade moves goods and food, it creates none
            assert sum(sum(b.goods) + b.food for b in s.boards) == sum(totals_before)
        if (s.active, s.round) != turn_before and before.current_player() != CHANCE:
            board = s.boards[turn_before[0]]
            assert board.has("caravans") or board.goods_total() <= GOODS_LIMIT
    assert s.is_terminal()
    # everyone had the same number of turns
    firsts = [e for e in s.history() if e.action.startswith("dice:")]
    assert firsts
    if players > 1 or options.get("mode") != "solo":
        assert s.round * players == sum(1 for v in s.history() if v.action.startswith("dice:")) - _rerolls(s)
    json.dumps(s.view(None))


def _rerolls(s: RollState) -> int:
    return sum(1 for e in s.history() if e.action.startswith(("roll:", "lead:")))


@settings(max_examples=40)
@given(st.integers(0, 10**6), st.sampled_from(SETUPS), st.integers(1, 400))
def test_a_replayed_record_reproduces_the_state(seed: int, setup: tuple[int, dict[str, str]], steps: int) -> None:
    players, options = setup
    rng = random.Random(seed)
    s = GAME.new_state(players, options)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply_action(random_action(s, rng))
    again = replay(json.loads(json.dumps(record(s))))
    assert again.snapshot() == s.snapshot()


@settings(max_examples=40)
@given(st.integers(0, 10**6), st.sampled_from(SETUPS), st.integers(1, 300))
def test_views_hide_nothing_and_differ_only_by_viewer(seed: int, setup: tuple[int, dict[str, str]], steps: int) -> None:
    """All information in this game is public: every seat and a spectator see the same table."""
    players, options = setup
    rng = random.Random(seed)
    s = GAME.new_state(players, options)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply_action(random_action(s, rng))
    spectator = s.view(None)
    for seat in range(players):
        view = s.view(seat)
        assert {k: v for k, v in view.items() if k not in ("viewer", "legal_actions")} == {
            k: v for k, v in spectator.items() if k not in ("viewer", "legal_actions")
        }
        if seat == s.current_player():
            assert view["legal_actions"] == s.legal_actions()
        else:
            assert view["legal_actions"] == []


def builder_action(s: RollState, rng: random.Random) -> str:
    """A policy that builds a lot and buys rarely, so games reach 7 cities and finished monuments."""
    if s.current_player() == CHANCE:
        return random_action(s, rng)
    legal = s.legal_actions()
    if s.phase == "build":
        work = [a for a in legal if a.startswith(("work:", "engineer:"))]
        if work:
            return max(work, key=lambda a: int(a.rsplit(":", 1)[1]))
    if s.phase == "buy" and rng.random() < 0.6:
        return "done"
    if s.phase == "reroll" and rng.random() < 0.5:
        return "done"
    return rng.choice(legal)


@settings(max_examples=30)
@given(st.integers(0, 10**6), st.sampled_from(SETUPS))
def test_long_building_games_end_and_keep_invariants(seed: int, setup: tuple[int, dict[str, str]]) -> None:
    players, options = setup
    rng = random.Random(seed)
    s = GAME.new_state(players, options)
    assert isinstance(s, RollState)
    for _ in range(50_000):
        if s.is_terminal():
            break
        before = s.clone()
        s.apply_action(builder_action(s, rng))
        check_invariants(s, before)
    assert s.is_terminal()
    again = replay(record(s))
    assert again.snapshot() == s.snapshot()


def test_builder_games_reach_the_late_game() -> None:
    """Not a rule, a coverage check: the policy above really exercises 7 cities and the monument end."""
    reasons: set[str] = set()
    max_cities = 0
    for seed in range(30):
        rng = random.Random(seed)
        s = GAME.new_state(2)
        assert isinstance(s, RollState)
        while not s.is_terminal():
            s.apply_action(builder_action(s, rng))
        reasons.update(s.end_reasons)
        max_cities = max(max_cities, *(b.cities for b in s.boards))
    assert max_cities == 7
    assert "monuments" in reasons
