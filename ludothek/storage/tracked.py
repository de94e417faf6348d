"""A cached game: its state plus its log, both extended move by move.

Rebuilding a state means replaying its record; rebuilding the log with
`ludothek.engine.log` means replaying it once more.  A `Tracked` game keeps
both and appends to them as moves are stored, with each log line written in
both languages and, for a secret chance outcome, also in its hidden form, so
that any viewer's log is a cheap filter (equal to what `engine.log` gives with
the same seat names).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ludothek import engine as eng
from ludothek.engine import CHANCE, UNDO, IllegalAction, State, naming

#: How many positions of the current run a cached game keeps for undo; older undos replay the game.
KEEP_BEFORES = 8


@dataclass(frozen=True)
class LogEntry:
    """One log line in both languages, as `ludothek.engine.log` would write it for each viewer."""

    n: int
    seat: int
    action: str
    visible_to: frozenset[int] | None
    text: dict[str, str]
    hidden_text: dict[str, str] | None
    undone: bool = False

    def for_viewer(self, viewer: int | None, lang: str) -> dict[str, Any]:
        public = self.visible_to is None or (viewer is not None and viewer in self.visible_to)
        texts = self.text if public or self.hidden_text is None else self.hidden_text
        return {
            "n": self.n,
            "seat": "chance" if self.seat == CHANCE else self.seat,
            "action": self.action if public else eng.HIDDEN_ACTION,
            "text": texts[lang],
            "undone": self.undone,
        }


class Tracked:
    """A cached game: its state and its log, extended move by move instead of replayed.

    ``names`` (one per seat) is how every sentence names the seats.
    """

    def __init__(self, state: State, names: Sequence[str] | None = None) -> None:
        self.state = state
        self.names: tuple[str, ...] | None = tuple(names) if names is not None else None
        self.log: list[LogEntry] = []
        #: Indices into ``log`` of the lines whose actions are in force (what an undo takes back).
        self._in_force: list[int] = []
        #: Copies of the position before each action of the last mover's current run, newest last
        #: (``None`` where none was kept): an undo restores one instead of replaying the game.
        self._befores: list[State | None] = []

    def apply(self, seat: int, action: str, keep_before: bool = True) -> None:
        """Apply one action (seat ``CHANCE`` for an outcome), logging it first: describe needs the state before.

        ``keep_before=False`` skips keeping a copy for a later undo (replaying
        stored moves passes it for actions that are never taken back).
        """
        state = self.state
        with naming(self.names):
            if seat == CHANCE:
                if state.current_player() != CHANCE:
                    raise IllegalAction("no random outcome is due")
                state._validate(action)
                visible_to = state._visibility(action)
            else:
                if action == UNDO:
                    self.undo(seat)
                    return
                visible_to = None
                if state.current_player() != seat:
                    state.apply_action(action, seat)  # raises the engine's own "not your turn" refusal
                state._validate(action)
            text = {lang: state.describe(action, lang) for lang in eng.LANGS}
            hidden = (
                {lang: state.describe_hidden(action, lang) for lang in eng.LANGS} if visible_to is not None else None
            )
            before = state.clone() if keep_before and seat != CHANCE else None
            state.apply_action(action, None if seat == CHANCE else seat)
        same_run = bool(self._in_force) and seat != CHANCE and self.log[self._in_force[-1]].seat == seat
        if seat == CHANCE:
            self._befores = []
        elif same_run:
            self._befores.append(before)
            if len(self._befores) > KEEP_BEFORES:  # bound the memory a cached game holds
                self._befores[-KEEP_BEFORES - 1] = None
        else:
            self._befores = [before]
        self._in_force.append(len(self.log))
        self.log.append(LogEntry(len(self.log) + 1, seat, action, visible_to, text, hidden))

    def undo(self, seat: int) -> None:
        """Take back ``seat``'s last action (`State.undo`); its log line is marked undone, the undo logged."""
        before = self._befores[-1] if self._befores else None
        # Raises IllegalAction, changing nothing, when not allowed.
        try:
            self.state.undo(seat, self.names, before=before)
        except IllegalAction:
            raise
        except ValueError:  # a kept copy that does not fit (never expected): rebuild by replay instead
            self.state.undo(seat, self.names)
        if self._befores:
            self._befores.pop()
        index = self._in_force.pop()
        self.log[index] = dataclasses.replace(self.log[index], undone=True)
        with naming(self.names):
            text = {lang: eng.undo_text(seat, lang) for lang in eng.LANGS}
        self.log.append(LogEntry(len(self.log) + 1, seat, UNDO, None, text, None))

    def log_for(self, viewer: int | None, lang: str) -> list[dict[str, Any]]:
        return [e.for_viewer(viewer, lang) for e in self.log]


def undone_rows(rows: list[tuple[int, str]]) -> set[int]:
    """Indices of the stored actions that a later undo row takes back (the only ones worth a copy)."""
    stack: list[int] = []
    undone: set[int] = set()
    for index, (seat, action) in enumerate(rows):
        if action == UNDO and seat != CHANCE:
            if stack:
                undone.add(stack.pop())
        else:
            stack.append(index)
    return undone


__all__ = ["LogEntry", "Tracked", "undone_rows"]
