"""Property tests: random legal play from many seeds and option mixes keeps the invariants."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ludothek.engine import load, record, replay
from ludothek.engine.conformance import random_action, random_steps
from ludothek.games.machikoro.cards import ESTABLISHMENTS, LANDMARKS, PURPLE_REMOVED, START_CARDS
from ludothek.games.machikoro.rules import MachiKoroState

GAME = load("machikoro")

options_st = st.fixed_dictionaries(
    {
        "ending": st.sampled_from(["yucata", "kosmos"]),
        "market": st.sampled_from(["all", "komme_was_wolle"]),
        "max_two": st.sampled_from(["off", "on"]),
    }
)


def _check_invariants(state: MachiKoroState) -> None:
    n = state.num_players
    komme = state.options["market"] == "komme_was_wolle"
    limit = 2 if state.options["max_two"] == "on" else None
    for p in range(n):
        assert state.coins(p) >= 0
    for e in ESTABLISHMENTS:
        owned = [state.count(p, e.id) for p in range(n)]
        assert min(owned) >= 0 and state.pile(e.id) >= 0 and state.deck_count(e.id) >= 0
        supply = e.supply - (PURPLE_REMOVED[n] if komme and e.colour == "purple" else 0)
        # Components are conserved: start cards + supply = cities + display + deck.
        assert sum(owned) + state.pile(e.id) + state.deck_count(e.id) == supply + n * START_CARDS[e.index]
        if e.colour == "purple":
            assert max(owned) <= 1
        elif limit is not None:
            assert all(c <= limit for c in owned)
    if komme and state.phase != "draw" and state.deck_count():
        assert sum(1 for e in ESTABLISHMENTS if state.pile(e.id)) == 10
    if state.phase == "build":
        assert set(state.legal_actions()) == _naive_builds(state, limit)


def _naive_builds(state: MachiKoroState, limit: int | None) -> set[str]:
    """The build list straight from the rules, to check the engine's cached one."""
    me = state.turn
    coins = state.coins(me)
    legal = {"pass"}
    for e in ESTABLISHMENTS:
        cap = 1 if e.colour == "purple" else (limit or 10**6)
        if e.cost <= coins and state.pile(e.id) and state.count(me, e.id) < cap:
            legal.add(f"build:{e.id}")
    for m in LANDMARKS:
        if m.cost <= coins and not state.has_built(me, m.id):
            legal.add(f"build:{m.id}")
    return legal


@settings(max_examples=40)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), options=options_st)
def test_random_play_ends_and_keeps_invariants(seed: int, players: int, options: dict[str, str]) -> None:
    rng = random.Random(seed)
    state = GAME.new_state(players, options)
    assert isinstance(state, MachiKoroState)
    for _ in range(20_000):
        if state.is_terminal():
            break
        _check_invariants(state)
        state.apply_action(random_action(state, rng))
    assert state.is_terminal()
    _check_invariants(state)
    ranks = sorted(r.rank for r in state.result())
    assert ranks[0] == 1
    if options["ending"] == "yucata":
        assert ranks == list(range(1, players + 1))
        assert sorted(state.placing()) == list(range(players))
    else:
        assert ranks == [1] + [2] * (players - 1)
    again = replay(json.loads(json.dumps(record(state))))
    assert again.snapshot() == state.snapshot()


@settings(max_examples=15)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), steps=st.integers(0, 300), options=options_st)
def test_views_are_the_same_for_every_seat_but_the_seat_fields(
    seed: int, players: int, steps: int, options: dict[str, str]
) -> None:
    """Machi Koro has no secrets: every seat and a spectator see the same position."""
    rng = random.Random(seed)
    state = GAME.new_state(players, options)
    random_steps(state, rng, steps)
    views = [state.view(s) for s in [*range(players), None]]
    for v in views:
        json.dumps(v)
        assert "order" not in json.dumps(v["market"])
    strip = [{k: v for k, v in view.items() if k not in ("you", "legal_actions")} for view in views]
    assert all(s == strip[0] for s in strip)
    to_move = state.current_player()
    for seat, view in enumerate(views[:-1]):
        assert (view["legal_actions"] != []) == (seat == to_move)


@settings(max_examples=15)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), steps=st.integers(0, 200))
def test_clone_plays_the_same_as_a_replay(seed: int, players: int, steps: int) -> None:
    rng = random.Random(seed)
    state = GAME.new_state(players)
    random_steps(state, rng, steps)
    twin = state.clone()
    assert twin.snapshot() == state.snapshot() == replay(record(state)).snapshot()
    assert twin.history() == state.history()
