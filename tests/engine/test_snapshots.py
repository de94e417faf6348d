"""Snapshots (`ludothek.engine.snapshots`, issue 34): a restored state is the replayed one, and goes on as it.

A state taken through bytes at every step of a random game (moves, chance outcomes and undos) must
be the very position the record replays to: equal snapshots, the same history and undo bookkeeping,
the same legal actions, views and undo answers, and it must accept the next move or undo exactly as
the state that never went through bytes.  Anything a loader cannot trust is refused.
"""

from __future__ import annotations

import itertools
import json
import random
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludothek import engine as eng
from ludothek.engine import snapshots
from ludothek.engine.snapshots import SnapshotError


def _setups() -> list[tuple[str, int, dict[str, str]]]:
    """Every game with every player count and option set it accepts."""
    out = []
    for gid in eng.games():
        game = eng.load(gid)
        names = [o.name for o in game.options]
        for players in range(game.min_players, game.max_players + 1):
            for values in itertools.product(*(o.values for o in game.options)):
                options = dict(zip(names, values, strict=True))
                try:
                    game.validate_options(players, options)
                except eng.InvalidOptions:
                    continue
                out.append((gid, players, options))
    return out


SETUPS = _setups()


def _same(restored: eng.State, reference: eng.State, views: bool = True) -> None:
    assert type(restored) is type(reference)
    assert restored.snapshot() == reference.snapshot()
    assert restored.history() == reference.history()
    assert restored.move_number() == reference.move_number()
    assert restored._undo_memo()[1:] == reference._undo_memo()[1:]
    assert restored.undone() == reference.undone()
    assert restored.current_player() == reference.current_player()
    assert restored.turn_seat() == reference.turn_seat()
    assert restored.decisions() == reference.decisions()
    if not reference.is_terminal():
        assert restored.legal_actions() == reference.legal_actions()
    for seat in range(reference.num_players):
        assert restored.undo_refusal(seat) == reference.undo_refusal(seat)
    if views:
        for seat in [*range(reference.num_players), None]:
            assert restored.view(seat) == reference.view(seat)


def _play(setup: tuple[str, int, dict[str, str]], seed: int, undo_chance: float, views: bool,
          replay_every: int, max_steps: int = 2_000) -> int:
    """Play a random game on a state that is dumped and loaded after every step, beside one that never
    is; compare them at every step (and with the record's replay every ``replay_every`` steps)."""
    gid, players, options = setup
    game = eng.load(gid)
    reference = game.new_state(players, options)
    live = snapshots.load(snapshots.dump(reference), gid, players, reference.options, 0)
    _same(live, reference, views)
    rng = random.Random(seed)
    steps = 0
    while not reference.is_terminal() and steps < max_steps:
        steps += 1
        last = reference.history()[-1] if reference.history() else None
        if (last is not None and last.seat != eng.CHANCE and reference.can_undo(last.seat)
                and rng.random() < undo_chance):
            reference.undo(last.seat)
            live.undo(last.seat)
        else:
            action = (eng.sample_chance(reference, rng) if reference.is_chance_node()
                      else rng.choice(reference.legal_actions()))
            seat = reference.current_player()
            reference.apply_action(action)
            live.apply_action(action, None if seat == eng.CHANCE else seat)
        data = snapshots.dump(live)
        live = snapshots.load(data, gid, players, reference.options, reference.move_number())
        _same(live, reference, views)
        if replay_every and steps % replay_every == 0:
            assert eng.replay(eng.record(reference)).snapshot() == live.snapshot()
    assert eng.replay(eng.record(reference)).snapshot() == live.snapshot()
    assert eng.record(live) == eng.record(reference)
    return steps


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: f"{s[0]}-{s[1]}-{'-'.join(s[2].values())}")
def test_every_setup_round_trips_at_every_step(setup: tuple[str, int, dict[str, str]]) -> None:
    """Every game, player count and option set: one game through bytes at every step, with undos."""
    assert _play(setup, seed=len(setup[2]) + setup[1], undo_chance=0.1, views=False, replay_every=0) > 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1), undo_chance=st.sampled_from([0.0, 0.1, 0.4]))
def test_restored_states_equal_replayed_ones(setup: tuple[str, int, dict[str, str]], seed: int,
                                             undo_chance: float) -> None:
    """Random games (hypothesis): equal to the state never snapshotted, its views and the record's replay."""
    _play(setup, seed, undo_chance, views=True, replay_every=50)


def _midgame(gid: str = "machikoro") -> eng.State:
    game = eng.load(gid)
    state = game.new_state(game.usual_players())
    rng = random.Random(3)
    for _ in range(40):
        state.apply_action(eng.sample_chance(state, rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
    return state


def _with_header(data: bytes, **changes: Any) -> bytes:
    head = struct.Struct(">4sBI")
    magic, version, length = head.unpack_from(data)
    meta = json.loads(data[head.size:head.size + length])
    meta.update(changes)
    text = json.dumps(meta).encode()
    return head.pack(magic, version, len(text)) + text + data[head.size + length:]


def test_a_snapshot_is_refused_for_anything_it_does_not_match() -> None:
    state = _midgame()
    data = snapshots.dump(state)
    assert snapshots.load(data).snapshot() == state.snapshot()
    refusals = {
        "another game": lambda: snapshots.load(data, game_id="rolltheages"),
        "other players": lambda: snapshots.load(data, players=state.num_players + 1),
        "other options": lambda: snapshots.load(data, options={**state.options, "ending": "kosmos"
                                                               if state.options["ending"] == "yucata" else "yucata"}),
        "another position": lambda: snapshots.load(data, seq=state.move_number() + 1),
        "another rules version": lambda: snapshots.load(_with_header(data, rules_version="0")),
        "other code": lambda: snapshots.load(_with_header(data, code="0" * 32)),
        "an unknown game": lambda: snapshots.load(_with_header(data, game="chess")),
        "another format": lambda: snapshots.load(data[:4] + bytes([snapshots.FORMAT_VERSION + 1]) + data[5:]),
        "not a snapshot": lambda: snapshots.load(b"PK\x03\x04" + data[4:]),
        "cut short": lambda: snapshots.load(data[: len(data) // 2]),
        "a damaged body": lambda: snapshots.load(data[:-40] + bytes(40)),
        "nothing": lambda: snapshots.load(b""),
    }
    for what, attempt in refusals.items():
        with pytest.raises(SnapshotError):
            attempt()
            pytest.fail(f"{what} was accepted")


def test_a_body_naming_a_foreign_class_is_refused_without_running_it() -> None:
    """The body's unpickler accepts only the engine's and the game's own classes (no ``os.system``)."""
    import pickle
    import zlib

    state = _midgame()
    data = snapshots.dump(state)
    head = struct.Struct(">4sBI")
    _, _, length = head.unpack_from(data)

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (print, ("pwned",))

    body = pickle.dumps(Evil(), protocol=5)
    forged = _with_header(data[: head.size + length], compression="zlib") + zlib.compress(body)
    with pytest.raises(SnapshotError, match=r"builtins\.print"):
        snapshots.load(forged)


def test_a_restored_state_is_independent_and_shares_the_games_tables() -> None:
    state = _midgame("snowdonia")
    restored = snapshots.load(snapshots.dump(state))
    assert restored.game is state.game
    assert restored.lay is state.lay and restored.scen is state.scen  # type: ignore[attr-defined]
    restored.apply_action(restored.legal_actions()[0])
    assert state.move_number() == restored.move_number() - 1
    assert snapshots.load(snapshots.dump(state)).snapshot() == state.snapshot()


def test_a_long_history_is_stored_once_per_distinct_entry() -> None:
    """Move/undo pairs repeat their entries: the snapshot stays small and restores without walking them."""
    from ludothek.devtools.replaybomb import bomb

    state = eng.replay(bomb(real=10, pairs=2_000))
    data = snapshots.dump(state)
    assert len(data) < 40_000
    restored = snapshots.load(data)
    assert restored.history() == state.history() and len(restored.history()) > 4_000
    assert restored.undo_refusal(0) == state.undo_refusal(0)
