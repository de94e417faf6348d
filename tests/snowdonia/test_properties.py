"""Property tests over random legal play, and the engine's conformance suite."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from ludothek.engine import TERMINAL, record, replay
from ludothek.engine.conformance import random_action, run_suite
from ludothek.games.snowdonia import GAME, SnowdoniaState

MAX_ACTIONS = 3000


def totals(st: SnowdoniaState) -> dict[str, int]:
    players = st.players
    return {
        "iron": st.yard["iron"] + st.bag["iron"] + sum(p["iron"] for p in players),
        "stone": st.yard["stone"] + st.bag["stone"] + sum(p["stone"] for p in players),
        "coal": st.yard["coal"] + st.bag["coal"] + sum(p["coal"] for p in players) + sum(t["coal"] for t in st.shed),
        "steel": st.steel + sum(p["steel"] for p in players),
        "events": st.bag["event"] + sum(st.events) + st.events_pending + st.held_events,
    }


def check_invariants(st: SnowdoniaState, start: dict[str, int]) -> None:
    now = totals(st)
    for key in ("iron", "stone", "steel"):
        assert now[key] == start[key], key
    if st.round >= 1:  # after setup: the coal on the trains and the event cubes are in place
        assert now["coal"] == (6 if st.num_players == 1 else 14)
        assert now["events"] == (4 if st.num_players == 1 else 5)
    for seat, p in enumerate(players := st.players):
        assert min(p[k] for k in ("iron", "stone", "coal", "rubble", "steel", "markers")) >= 0
        placed = len(st.markers_on_stations(seat)) + len(st.markers_on_track(seat))
        placed += 1 if p.get("start_marker") else 0  # Blaenau Ffestiniog: the marker left at the start
        assert p["markers"] + placed == 16
        assert p["placed"] <= st.workers_total(seat)
    assert len({p["train"] for p in players if p["train"] is not None}) == sum(p["train"] is not None for p in players)
    assert min(st.bag.values()) >= 0 and min(st.yard.values()) >= 0 and st.steel >= 0
    assert all(t["rubble"] >= 0 for t in st.tracks)
    # Daffodil Line: a canal card never holds more than its number; daffodils are never negative.
    assert all(t["rubble"] <= t["number"] for t in st.tracks if t.get("canal"))
    assert all(p.get("daffodils", 0) >= 0 for p in players)


@settings(max_examples=40)
@given(seed=hst.integers(0, 10**9), n=hst.integers(1, 5))
def test_random_play_ends_and_conserves_components(seed: int, n: int) -> None:
    rng = random.Random(seed)
    options = {"solo_train": str(rng.randint(1, 7))} if n == 1 else {}
    random_game_holds_the_invariants(seed, n, options)


@settings(max_examples=25)
@given(seed=hst.integers(0, 10**9), n=hst.integers(1, 4))
def test_daffodil_line_random_play_ends_and_conserves_components(seed: int, n: int) -> None:
    random_game_holds_the_invariants(seed, n, {"map": "daffodil_line"})


def random_game_holds_the_invariants(seed: int, n: int, options: dict[str, str]) -> None:
    rng = random.Random(seed)
    st = GAME.new_state(n, options)
    assert isinstance(st, SnowdoniaState)
    start = totals(st)
    for _ in range(MAX_ACTIONS):
        if st.current_player() == TERMINAL:
            break
        legal = st.legal_actions()
        assert 0 < len(legal) <= 150
        st.apply_action(random_action(st, rng))
        check_invariants(st, start)
    assert st.is_terminal()
    results = st.result()
    assert sorted(r.rank for r in results) == list(range(1, n + 1))  # the tie-break leaves no ties
    again = replay(json.loads(json.dumps(record(st))))
    assert again.snapshot() == st.snapshot()


@settings(max_examples=10)
@given(seed=hst.integers(0, 10**9), steps=hst.integers(0, 300), daffodil=hst.booleans())
def test_every_seat_sees_the_same_board(seed: int, steps: int, daffodil: bool) -> None:
    rng = random.Random(seed)
    st = GAME.new_state(3, {"map": "daffodil_line"} if daffodil else {})
    for _ in range(steps):
        if st.is_terminal():
            break
        st.apply_action(random_action(st, rng))
    views = [st.view(s) for s in (0, 1, 2, None)]
    for v in views:
        json.dumps(v)
        v.pop("me")
        v.pop("panel_order")
    assert views[0] == views[1] == views[2] == views[3]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_conformance_suite(n: int) -> None:
    run_suite("snowdonia", n, seeds=range(4), deep_every=20)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_conformance_suite_daffodil_line(n: int) -> None:
    run_suite("snowdonia", n, {"map": "daffodil_line"}, seeds=range(3), deep_every=20)


@settings(max_examples=30)
@given(seed=hst.integers(0, 10**9), n=hst.integers(1, 4))
def test_blaenau_random_play_ends_and_conserves_components(seed: int, n: int) -> None:
    random_game_holds_the_invariants(seed, n, {"map": "blaenau_ffestiniog"})


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_conformance_suite_blaenau(n: int) -> None:
    run_suite("snowdonia", n, {"map": "blaenau_ffestiniog"}, seeds=range(3), deep_every=20)


@pytest.mark.parametrize("train", ["2", "6", "7"])
def test_conformance_suite_solo_series(train: str) -> None:
    run_suite("snowdonia", 1, {"solo_train": train}, seeds=range(1), deep_every=20)


def _containers(value: object, path: str = "") -> dict[int, str]:
    """The ids of every list and dict inside ``value``, with where they are."""
    found: dict[int, str] = {}
    if isinstance(value, dict):
        found[id(value)] = path
        for k, v in value.items():
            found.update(_containers(v, f"{path}.{k}"))
    elif isinstance(value, list):
        found[id(value)] = path
        for i, v in enumerate(value):
            found.update(_containers(v, f"{path}[{i}]"))
    return found


@settings(max_examples=15)
@given(seed=hst.integers(0, 10**9), n=hst.integers(1, 5), steps=hst.integers(0, 400))
def test_clone_is_independent_and_equal(seed: int, n: int, steps: int) -> None:
    """`clone` copies field by field for speed: it must share nothing a move could change."""
    from ludothek.games.snowdonia.base import FIELDS

    rng = random.Random(seed)
    st = GAME.new_state(n)
    for _ in range(steps):
        if st.is_terminal():
            break
        st.apply_action(random_action(st, rng))
    twin = st.clone()
    assert twin.snapshot() == st.snapshot() and twin.history() == st.history()
    assert twin.legal_actions() == st.legal_actions() and twin.chance_outcomes() == st.chance_outcomes()
    mine = {}
    for name in FIELDS:
        mine.update(_containers(getattr(st, name), name))
    theirs = {}
    for name in FIELDS:
        theirs.update(_containers(getattr(twin, name), name))
    # Agenda tasks and event-log entries are never changed once made; everything else must be a copy.
    shared = {mine[i] for i in mine.keys() & theirs.keys() if not mine[i].startswith(("agenda[", "event_log["))}
    assert not shared
    # Playing on in the copy leaves the original as it was.
    before = st.snapshot()
    for _ in range(50):
        if twin.is_terminal():
            break
        twin.apply_action(random_action(twin, rng))
    assert st.snapshot() == before
