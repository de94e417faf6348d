"""A reusable test suite that every game's tests run.

It plays random legal games and checks, along the way, the promises of the
engine contract: legal actions apply, illegal ones are refused without any
change, clones are independent, records replay to the identical state, views
are JSON and hide what they must, and ``describe`` speaks of every action.

Use ``run_suite`` from a game's tests (it raises ``AssertionError`` with a
precise message on the first broken promise), or the single checks.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from typing import Any

from .core import CHANCE, LANGS, TERMINAL, UNDO, Game, IllegalAction, State, sample_chance
from .records import record, replay
from .registry import load

JUNK_ACTIONS = (
    "",
    " ",
    "pass ",
    " pass",
    "PASS",
    "xyz",
    "build:",
    "build:nonexistent",
    "roll:99",
    "dice:0+0",
    ":",
    "::",
    "\x00",
    "é",
    "a" * 500,
    "take:-1",
    "1e9",
    "None",
)


def _game(game: Game | str) -> Game:
    return load(game) if isinstance(game, str) else game


def _fail(msg: str, state: State) -> AssertionError:
    return AssertionError(f"{state.game.id} after {state.move_number()} actions: {msg}")


def random_action(state: State, rng: random.Random) -> str:
    """A chance outcome by its probability, or a uniformly random legal action."""
    if state.current_player() == CHANCE:
        return sample_chance(state, rng)
    return rng.choice(state.legal_actions())


def random_steps(state: State, rng: random.Random, steps: int) -> State:
    """Apply up to ``steps`` random legal actions to ``state`` (in place), stopping at the end; return it."""
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(random_action(state, rng))
    return state


def random_playout(state: State, rng: random.Random, max_actions: int = 100_000) -> State:
    """Play ``state`` to the end with random legal actions (in place); return it."""
    for _ in range(max_actions):
        if state.is_terminal():
            return state
        state.apply_action(random_action(state, rng))
    raise _fail(f"no terminal state within {max_actions} actions", state)


def check_basic(state: State) -> None:
    """Current player, legal actions and chance probabilities are well formed."""
    player = state.current_player()
    if not (player in (CHANCE, TERMINAL) or 0 <= player < state.num_players):
        raise _fail(f"current_player() returned {player!r}", state)
    actions = state.legal_actions()
    if player == TERMINAL:
        if actions:
            raise _fail("a terminal state has legal actions", state)
        results = state.result()
        if sorted(r.seat for r in results) != list(range(state.num_players)):
            raise _fail("result() must give every seat once", state)
        ranks = sorted(r.rank for r in results)
        if ranks[0] != 1:
            raise _fail("nobody is ranked first", state)
        return
    if not actions:
        raise _fail("a non-terminal state has no legal actions", state)
    if UNDO in actions and player != CHANCE:
        raise _fail(f"{UNDO!r} is reserved for taking back an action and cannot be a game's action", state)
    if len(set(actions)) != len(actions):
        raise _fail(f"duplicate legal actions: {actions}", state)
    if not all(isinstance(a, str) and a and a == a.strip() for a in actions):
        raise _fail(f"actions must be non-empty trimmed strings: {actions}", state)
    if player == CHANCE:
        outcomes = state.chance_outcomes()
        if sorted(a for a, _ in outcomes) != sorted(actions):
            raise _fail("chance_outcomes() and legal_actions() disagree", state)
        total = sum(p for _, p in outcomes)
        if abs(total - 1.0) > 1e-9 or any(p <= 0 for _, p in outcomes):
            raise _fail(f"chance probabilities must be positive and sum to 1, got {total}", state)


def check_all_legal_apply(state: State) -> None:
    """Every legal action applies to a clone without error."""
    for action in state.legal_actions():
        child = state.clone()
        try:
            child.apply_action(action)
        except Exception as exc:  # any exception is a broken promise here
            raise _fail(f"legal action {action!r} failed: {exc!r}", state) from exc


def check_illegal_rejected(state: State, extra: Iterable[str] = ()) -> None:
    """Malformed, foreign and out-of-turn actions raise `IllegalAction` and change nothing."""
    before = state.snapshot()
    legal = set(state.legal_actions())
    candidates = [a for a in (*JUNK_ACTIONS, *extra) if a not in legal]
    candidates += [a + "x" for a in list(legal)[:5]] + [a.upper() for a in list(legal)[:5] if a.upper() not in legal]
    for action in candidates:
        try:
            state.apply_action(action)
        except IllegalAction as exc:
            if not str(exc):
                raise _fail(f"IllegalAction for {action!r} has no message", state) from exc
        else:
            raise _fail(f"illegal action {action!r} was accepted", state)
        if state.snapshot() != before:
            raise _fail(f"rejecting {action!r} changed the state", state)
    for bad in (None, 3, ["pass"]):
        try:
            state.apply_action(bad)  # type: ignore[arg-type]
        except IllegalAction:
            pass
        else:
            raise _fail(f"non-string action {bad!r} was accepted", state)
    player = state.current_player()
    if player >= 0 and legal:
        action = next(iter(legal))
        for seat in range(state.num_players):
            if seat == player:
                continue
            try:
                state.apply_action(action, seat=seat)
            except IllegalAction:
                pass
            else:
                raise _fail(f"seat {seat} acted out of turn", state)
    if state.snapshot() != before:
        raise _fail("rejected actions changed the state", state)


def check_clone_independent(state: State, rng: random.Random) -> None:
    """Playing on a clone leaves the original untouched, and the clone starts equal."""
    if state.is_terminal():
        return
    before = state.snapshot()
    child = state.clone()
    if child.snapshot() != before:
        raise _fail("a clone differs from its original", state)
    for _ in range(5):
        if child.is_terminal():
            break
        child.apply_action(random_action(child, rng))
    if state.snapshot() != before:
        raise _fail("playing on a clone changed the original", state)


def check_record_roundtrip(state: State) -> None:
    """The record is JSON and replays to the identical state."""
    rec = record(state)
    text = json.dumps(rec)
    again = replay(json.loads(text))
    if again.snapshot() != state.snapshot():
        raise _fail("replaying the record gives a different state", state)
    if [(e.seat, e.action) for e in again.history()] != [(e.seat, e.action) for e in state.history()]:
        raise _fail("replaying the record gives a different history", state)


def _viewers(state: State) -> list[int | None]:
    return [*range(state.num_players), None]


def check_views(state: State, rng: random.Random, tries: int = 2) -> None:
    """Views are JSON, and a view does not change when only what it hides changes."""
    for seat in _viewers(state):
        view = state.view(seat)
        try:
            json.dumps(view)
        except (TypeError, ValueError) as exc:
            raise _fail(f"view({seat}) is not JSON: {exc}", state) from exc
        for _ in range(tries):
            other = state.resample_hidden(seat, rng)
            if other is None:
                break
            if other.view(seat) != view:
                raise _fail(f"view({seat}) changes with information it must hide", state)
        hist = state.history(seat)
        if any(e.action != "?" and not e.visible(seat) for e in hist):
            raise _fail(f"history({seat}) shows a secret outcome", state)


def check_breakdown(state: State) -> None:
    """At the end, every view has a score breakdown per seat whose points add up to the seat's score."""
    if not state.is_terminal():
        return
    scores = {r.seat: r.score for r in state.result()}
    for viewer in _viewers(state):
        breakdown = state.view(viewer).get("breakdown")
        if not isinstance(breakdown, list) or sorted(b.get("seat") for b in breakdown) != sorted(scores):
            raise _fail(f"view({viewer}) has no score breakdown for every seat at the end", state)
        for entry in breakdown:
            parts = entry.get("parts") or []
            if not all({"part", "label", "points"} <= set(p) and set(p["label"]) == set(LANGS) for p in parts):
                raise _fail(f"view({viewer}): a breakdown part lacks its id, labels or points: {parts}", state)
            total = sum(p["points"] for p in parts if p["points"] is not None)
            seat = entry["seat"]
            if abs(total - scores[seat]) > 1e-9 or abs(entry.get("total", total) - scores[seat]) > 1e-9:
                raise _fail(f"view({viewer}): seat {seat}'s breakdown adds up to {total}, not {scores[seat]}", state)


def check_undo(state: State, rng: random.Random) -> None:
    """Where the mover may take back its last action, undo restores that position exactly and replays."""
    history = state.history()
    if state.is_terminal() or not history:
        return
    last = history[-1]
    if last.seat < 0 or last.action == UNDO:
        return
    for seat in range(state.num_players):
        allowed = state.undo_refusal(seat) is None
        if allowed != (seat == last.seat):
            raise _fail(f"undo for seat {seat} is {'allowed' if allowed else 'refused'} after {last}", state)
    before = replay(record(state), upto=len(history) - 1).snapshot()
    child = state.clone()
    child.undo(last.seat)
    if child.snapshot() != before:
        raise _fail("undo does not restore the position before the last action", state)
    if child.move_number() != state.move_number() + 1 or child.history()[-1].action != UNDO:
        raise _fail("an undo is not kept in the history", state)
    again = replay(json.loads(json.dumps(record(child))))
    if again.snapshot() != child.snapshot():
        raise _fail("a record with an undo does not replay to the same state", state)


def check_describe(state: State) -> None:
    """Every legal action has a sentence in every language."""
    for action in state.legal_actions():
        for lang in LANGS:
            text = state.describe(action, lang)
            if not isinstance(text, str) or not text.strip():
                raise _fail(f"describe({action!r}, {lang!r}) gave {text!r}", state)


def run_suite(
    game: Game | str,
    num_players: int,
    options: Mapping[str, Any] | None = None,
    seeds: Iterable[int] = range(5),
    max_actions: int = 100_000,
    check_every: int = 1,
    deep_every: int = 25,
    undo_rate: float = 0.02,
) -> list[State]:
    """Play one random game per seed and check every promise along the way.

    The cheap checks run every ``check_every`` actions; the costly ones (every
    legal action applied, illegal actions, clone, views, undo) every
    ``deep_every`` actions and at the end.  With probability ``undo_rate`` a
    seat that may take back its last action does so, so the final records
    also prove that undo entries replay.  Returns the terminal states.
    """
    g = _game(game)
    finals: list[State] = []
    for seed in seeds:
        rng = random.Random(seed)
        state = g.new_state(num_players, options)
        seen: list[str] = []
        n = 0
        while True:
            if n % check_every == 0:
                check_basic(state)
            if n % deep_every == 0:
                _deep(state, rng, seen)
            if state.is_terminal():
                break
            if n >= max_actions:
                raise _fail(f"seed {seed}: no terminal state within {max_actions} actions", state)
            last = state.history()[-1] if state.move_number() else None
            if last is not None and last.seat >= 0 and rng.random() < undo_rate and state.can_undo(last.seat):
                state.undo(last.seat)
                n += 1
                continue
            action = random_action(state, rng)
            if len(seen) < 200 and action not in seen:
                seen.append(action)
            state.apply_action(action)
            n += 1
        check_basic(state)
        _deep(state, rng, seen)
        check_record_roundtrip(state)
        finals.append(state)
    return finals


def _deep(state: State, rng: random.Random, seen: list[str]) -> None:
    check_all_legal_apply(state)
    check_illegal_rejected(state, seen)
    check_clone_independent(state, rng)
    check_views(state, rng)
    check_describe(state)
    if rng.random() < 0.25:  # it replays the game three times: a sample of positions is enough
        check_undo(state, rng)
    check_breakdown(state)
