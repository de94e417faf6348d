"""The fast paths behind a seat's answer after a move (issue 14) give exactly what the plain ones gave.

``State.describe_all`` must equal describing each action alone, for every game
and its own batch hook (Machi Koro's), in both languages, with and without
seat names; `naming` (a small class now, not a generator) must nest and
restore as before; the memo of `State._in_force` must always equal walking
the whole history again.
"""

from __future__ import annotations

import random
import threading
from contextvars import copy_context

import pytest

from ludothek import engine
from ludothek.engine import CHANCE, LANGS, TERMINAL, UNDO, State, naming, seat_name
from ludothek.engine.conformance import random_action
from ludothek.engine.registry import GAME_MODULES

GAMES = tuple(sorted(GAME_MODULES))
NAMES = ["anna", "Bob (Bot)", "", "dora"]


def _random_options(game: engine.Game, rng: random.Random) -> dict[str, str]:
    return {opt.name: rng.choice(opt.values) for opt in game.options}


def _positions(game_id: str, games: int, seed: int, every: int, max_actions: int = 400) -> list[State]:
    """Positions along seeded random games (all player counts and options), sometimes with an undo."""
    game = engine.load(game_id)
    rng = random.Random(seed)
    found: list[State] = []
    for index in range(games):
        players = game.min_players + index % (game.max_players - game.min_players + 1)
        while True:
            try:
                state = game.new_state(players, _random_options(game, rng))
                break
            except engine.InvalidOptions:
                continue
        for step in range(max_actions):
            if state.is_terminal():
                break
            if step % every == 0:
                found.append(state.clone())
            player = state.current_player()
            if player >= 0 and rng.random() < 0.05 and state.can_undo(player):
                state.undo(player)
            else:
                state.apply_action(random_action(state, rng))
        found.append(state)
    return found


def old_in_force(state: State) -> list[int]:
    """`State._in_force` as it was: the whole history walked every time."""
    stack: list[int] = []
    for index, entry in enumerate(state._history):
        if entry.action == UNDO and entry.seat != CHANCE:
            stack.pop()
        else:
            stack.append(index)
    return stack


@pytest.mark.parametrize("game_id", GAMES)
def test_describe_all_equals_describing_each_action(game_id: str) -> None:
    checked = 0
    for state in _positions(game_id, games=6, seed=11, every=7):
        if state.current_player() == TERMINAL:
            continue
        legal = state.legal_actions()
        for lang in LANGS:
            for names in (None, NAMES[: state.num_players], ("x",)):
                expected = [state.describe(a, lang, names) for a in legal]
                assert state.describe_all(legal, lang, names) == expected, (game_id, state.move_number())
                assert state.describe_all(iter(legal), lang, names) == expected
                checked += len(legal)
            # No names given: the names of an outer block stay in force, for one sentence as for many.
            with naming(NAMES[: state.num_players]):
                assert state.describe_all(legal, lang) == [state.describe(a, lang) for a in legal]
        assert state.describe_all([], "en", NAMES) == []
    assert checked > 500


def test_describe_all_refuses_a_language_as_describe_does() -> None:
    state = _positions("machikoro", games=1, seed=3, every=1000)[0]
    legal = state.legal_actions()
    with pytest.raises(ValueError):
        state.describe(legal[0], "fr")
    with pytest.raises(ValueError):
        state.describe_all(legal, "fr")


@pytest.mark.parametrize("game_id", GAMES)
def test_the_in_force_memo_equals_walking_the_history(game_id: str) -> None:
    for state in _positions(game_id, games=3, seed=5, every=3):
        assert state._in_force() == old_in_force(state)
        assert state._in_force() == old_in_force(state)  # from the memo
        mine = state._in_force()
        mine.append(-1)  # a caller's list is its own
        assert state._in_force() == old_in_force(state)
        other = state.clone()
        assert other._in_force() == old_in_force(other)
        player = other.current_player()
        if player == TERMINAL:
            continue
        if player >= 0 and other.can_undo(player):
            other.undo(player)
        else:
            other.apply_action(other.legal_actions()[0])
        assert other._in_force() == old_in_force(other)
        assert state._in_force() == old_in_force(state)  # the clone's moves did not touch the original's memo


def test_naming_nests_and_restores() -> None:
    assert seat_name(0) == "Player 1"
    with naming(["anna", "bob"]):
        assert seat_name(0) == "anna"
        with naming(None):  # None keeps the outer names
            assert seat_name(1) == "bob"
        with naming(["carl", ""]):
            assert seat_name(0) == "carl"
            assert seat_name(1, "de") == "Spieler 2"  # an empty name falls back
            assert seat_name(5) == "Player 6"
        assert seat_name(0) == "anna"
        with pytest.raises(KeyError), naming(["dora"]):
            assert seat_name(0) == "dora"
            raise KeyError("left by an exception")
        assert seat_name(0) == "anna"
    assert seat_name(0, "de") == "Spieler 1"


def test_naming_stores_strings_and_a_block_can_be_used_again_but_not_nested_in_itself() -> None:
    block = naming([7, "bob"])  # type: ignore[list-item]
    with block:
        assert seat_name(0) == "7"
        with pytest.raises(RuntimeError), block:
            pass
        assert seat_name(0) == "7"
    assert seat_name(0) == "Player 1"
    with block:
        assert seat_name(1) == "bob"
    assert seat_name(1) == "Player 2"
    empty = naming(None)
    with empty, empty:  # nothing to set, nothing to restore
        assert seat_name(0) == "Player 1"


def test_naming_is_per_thread_and_per_context() -> None:
    seen: dict[str, str] = {}
    entered = threading.Event()
    release = threading.Event()

    def worker() -> None:
        with naming(["thread"]):
            entered.set()
            release.wait(5)
            seen["thread"] = seat_name(0)

    thread = threading.Thread(target=worker)
    with naming(["main"]):
        thread.start()
        assert entered.wait(5)
        seen["main"] = seat_name(0)
        release.set()
        thread.join(5)
        seen["after"] = seat_name(0)
    assert seen == {"thread": "thread", "main": "main", "after": "main"}

    def inner() -> str:
        with naming(["copied"]):
            return seat_name(0)

    with naming(["outer"]):
        assert copy_context().run(inner) == "copied"
        assert seat_name(0) == "outer"
