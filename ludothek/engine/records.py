"""Game records: the options plus every action, chance outcomes included.

A record is plain JSON so that it can be stored, exported and shared.  Because
every random event is an explicit chance action, replaying the record from the
start state reproduces the identical state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .core import (
    CHANCE,
    UNDO,
    IllegalAction,
    InvalidOptions,
    ReplayError,
    State,
    check_lang,
    naming,
    seat_name,
)
from .jsonread import loads
from .registry import load

RECORD_FORMAT = "ludothek-record/1"


def _seat_json(seat: int) -> int | str:
    return "chance" if seat == CHANCE else seat


def record(state: State, **meta: Any) -> dict[str, Any]:
    """The JSON record of ``state``; extra keyword arguments go into ``meta``."""
    rec: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "game": state.game.id,
        "rules_version": state.game.rules_version,
        "players": state.num_players,
        "options": dict(state.options),
        "actions": [{"seat": _seat_json(e.seat), "action": e.action} for e in state.history()],
    }
    if state.is_terminal():
        rec["result"] = state.result_json()
    if meta:
        rec["meta"] = meta
    return rec


def _parse(data: Any) -> dict[str, Any]:
    if isinstance(data, (str, bytes)):
        try:
            data = loads(data)  # bounded nesting: a deep text is a ReplayError, not a RecursionError
        except ValueError as exc:
            raise ReplayError(f"the record is not valid JSON: {exc}") from exc
    if not isinstance(data, Mapping):
        raise ReplayError("a record must be a JSON object")
    for key in ("game", "players", "actions"):
        if key not in data:
            raise ReplayError(f"the record has no {key!r} field")
    if not isinstance(data["actions"], list):
        raise ReplayError("the record's 'actions' must be a list")
    return dict(data)


def initial_state(data: Any) -> State:
    """The start state a record begins from (options validated)."""
    rec = _parse(data)
    try:
        game = load(rec["game"])
    except KeyError as exc:
        raise ReplayError(str(exc.args[0])) from exc
    version = rec.get("rules_version", game.rules_version)
    if str(version) != game.rules_version:
        raise ReplayError(
            f"the record was made with rules version {version}, this server has {game.rules_version}"
        )
    try:
        return game.new_state(rec["players"], rec.get("options") or {})
    except InvalidOptions as exc:
        raise ReplayError(f"the record's setup is invalid: {exc}") from exc


def taken_back(actions: Sequence[Any]) -> set[int]:
    """Indices of the record entries that a later undo entry takes back.

    Replaying keeps a copy of the position before each of them (and only them), so an undo
    restores that copy instead of replaying every action still in force: a record of many
    move/undo pairs then replays in time linear in its length (issue 28).  Malformed entries
    count as actions here; replaying refuses them.
    """
    stack: list[int] = []
    undone: set[int] = set()
    for index, entry in enumerate(actions):
        if isinstance(entry, Mapping) and entry.get("action") == UNDO and entry.get("seat") != "chance":
            if stack:
                undone.add(stack.pop())
        else:
            stack.append(index)
    return undone


def replay(data: Any, upto: int | None = None, tick: Callable[[int], None] | None = None) -> State:
    """Rebuild the state a record describes (or the state after its first ``upto`` actions).

    Raises `ReplayError` naming the first action that does not apply.  ``tick`` is called with
    each entry's index before it is applied: a caller's budget may stop a long replay by raising.
    """
    rec = _parse(data)
    state = initial_state(rec)
    actions = rec["actions"] if upto is None else rec["actions"][:upto]
    keep = taken_back(actions)
    befores: dict[int, State] = {}
    in_force: list[int] = []
    for index, entry in enumerate(actions):
        if tick is not None:
            tick(index)
        if not isinstance(entry, Mapping) or "action" not in entry or "seat" not in entry:
            raise ReplayError(f"action {index + 1} is malformed: {entry!r}", index)
        action, seat = entry["action"], entry["seat"]
        if action == UNDO and seat != "chance":
            try:
                state.undo(seat, before=befores.pop(in_force[-1], None) if in_force else None)
            except IllegalAction as exc:
                raise ReplayError(f"action {index + 1} (undo by seat {seat}) does not apply: {exc}", index, UNDO) from exc
            in_force.pop()
            continue
        expected = state.current_player()
        wanted = CHANCE if seat == "chance" else seat
        if wanted != expected:
            raise ReplayError(
                f"action {index + 1} ({action!r}) is made by seat {seat}, but {_seat_json(expected)} is to move",
                index,
                str(action),
            )
        before = state.clone() if index in keep else None
        try:
            state.apply_action(action)
        except IllegalAction as exc:
            raise ReplayError(f"action {index + 1} ({action!r}) does not apply: {exc}", index, str(action)) from exc
        if before is not None:
            befores[index] = before
        in_force.append(index)
    return state


def undo_text(seat: int, lang: str) -> str:
    """The log sentence of an undo entry."""
    who = seat_name(seat, lang)
    return f"{who} nimmt die letzte Aktion zurück." if lang == "de" else f"{who} takes back their last action."


def log(
    data_or_state: Any, viewer: int | str | None = "all", lang: str = "en", names: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """The game log as sentences, as ``viewer`` may see it; ``names[seat]`` names each seat.

    Each sentence is made by ``describe`` in the state before the action, so
    it can speak of what the action did at that moment.  An undo is a line of
    its own, and the line of the action it took back says ``"undone": true``.
    """
    check_lang(lang)
    rec = record(data_or_state) if isinstance(data_or_state, State) else _parse(data_or_state)
    state = initial_state(rec)
    seat = viewer if isinstance(viewer, int) else None
    lines: list[dict[str, Any]] = []
    in_force: list[int] = []
    keep = taken_back(rec["actions"])
    befores: dict[int, State] = {}
    with naming(names):
        for index, entry in enumerate(rec["actions"]):
            action = entry["action"]
            who = CHANCE if entry["seat"] == "chance" else entry["seat"]
            if action == UNDO and who != CHANCE:
                taken = in_force.pop()
                lines[taken]["undone"] = True
                lines.append({"n": index + 1, "seat": who, "action": UNDO, "text": undo_text(who, lang),
                              "undone": False})
                state.undo(who, before=befores.pop(lines[taken]["n"] - 1, None))
                continue
            if index in keep:
                befores[index] = state.clone()
            visible_to = state._visibility(action) if who == CHANCE else None
            public = viewer == "all" or visible_to is None or (seat is not None and seat in visible_to)
            text = state.describe(action, lang) if public else state.describe_hidden(action, lang)
            in_force.append(len(lines))
            lines.append(
                {"n": index + 1, "seat": entry["seat"], "action": action if public else "?", "text": text,
                 "undone": False}
            )
            state.apply_action(action)
    return lines
