"""A cached game: its state plus its log, both extended move by move.

Rebuilding a state means replaying its record; rebuilding the log with
`ludothek.engine.log` means replaying it once more.  A `Tracked` game keeps
both and appends to them as moves are stored, with each log line written in
both languages and, for a secret chance outcome, also in its hidden form, so
that any viewer's log is a cheap filter (equal to what `engine.log` gives with
the same seat names).

The sentences are written when the log is first read, not with every move: a
sentence describes an action in the position before it, so the game keeps a
second copy of its state that trails behind at the first line not yet written,
and catches up (applying the actions again, which costs far less than
describing them) when someone reads the log.  Programs that never ask for the
log (``?log=false``, bots, rebuilding a game after a restart) never pay for
sentences in two languages.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ludothek import engine as eng
from ludothek.engine import CHANCE, UNDO, IllegalAction, State, naming, sample_chance

from .bytecache import deep_size

#: How many positions of the current run a cached game keeps for undo; older undos replay the game.
KEEP_BEFORES = 8


@dataclass(frozen=True)
class LogEntry:
    """One log line in both languages, as `ludothek.engine.log` would write it for each viewer."""

    n: int
    seat: int
    action: str
    visible_to: frozenset[int] | None
    #: ``None`` until `Tracked.log` writes it (entries read through `Tracked.log` always have it).
    text: dict[str, str] | None
    hidden_text: dict[str, str] | None
    undone: bool = False

    def for_viewer(self, viewer: int | None, lang: str) -> dict[str, Any]:
        public = self.visible_to is None or (viewer is not None and viewer in self.visible_to)
        texts = self.text if public or self.hidden_text is None else self.hidden_text
        assert texts is not None, "a log entry read before its sentence was written"
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

    #: The move number of the game's newest snapshot this process knows of (`ludothek.services.snapkeeper`).
    snapshot_seq = 0

    def __init__(self, state: State, names: Sequence[str] | None = None) -> None:
        self.state = state
        self.names: tuple[str, ...] | None = tuple(names) if names is not None else None
        #: One line per history entry; ``None`` for a line of a restored game not yet read (`restored`).
        self._log: list[LogEntry | None] = []
        #: How many entries of `_log` have their sentences, and the position before the first that has not.
        self._written = 0
        self._writer: State = state.clone()
        #: Copies of the writer's position before actions already taken back, by history index, until
        #: the writer reaches their undo.
        self._writer_befores: dict[int, State] = {}
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
            before = state.clone() if keep_before and seat != CHANCE else None
            state.apply_action(action, None if seat == CHANCE else seat)
        # The seat of the last line in force is its history entry's (a restored game's lines are written later).
        same_run = bool(self._in_force) and seat != CHANCE and state._history[self._in_force[-1]].seat == seat
        if seat == CHANCE:
            self._befores = []
        elif same_run:
            self._befores.append(before)
            if len(self._befores) > KEEP_BEFORES:  # bound the memory a cached game holds
                self._befores[-KEEP_BEFORES - 1] = None
        else:
            self._befores = [before]
        self._in_force.append(len(self._log))
        self._log.append(LogEntry(len(self._log) + 1, seat, action, visible_to, None, None))

    @classmethod
    def restored(cls, state: State, names: Sequence[str] | None = None) -> Tracked:
        """A cached game for ``state`` restored from a snapshot (`ludothek.engine.snapshots`, issue 34).

        Restoring must not cost in proportion to the game's length, so nothing is made per history
        entry: the log lines stay ``None`` until the log is first read, when the trailing copy
        replays the game from its start (as for any game) and makes each line from its history
        entry.  No copies for undo are kept: an undo of a restored game rebuilds the position
        (`State.undo`).
        """
        game = cls.__new__(cls)
        game.state = state
        game.names = tuple(names) if names is not None else None
        game._log = [None] * len(state._history)
        game._written = 0
        game._writer = state.game.new_state(state.num_players, state.options)
        game._writer_befores = {}
        game._in_force = list(state._undo_memo()[2])
        game._befores = []
        return game

    def size_estimate(self) -> int:
        """About how many bytes this game holds in the cache (`ludothek.services.runtime.StateCache`).

        Its state, the log's trailing copy and the copies kept for undo are states (`state_bytes`);
        the history and the log take a list slot per entry, and each line with its sentences in
        two languages about `LINE_BYTES`.
        """
        states = 2 + len(self._writer_befores) + sum(1 for b in self._befores if b is not None)
        length = len(self._log)
        return (states * state_bytes(self.state) + 3 * 8 * length + ENTRY_BYTES * len(self.state._history)
                + LINE_BYTES * self._written)

    @property
    def log(self) -> list[LogEntry]:
        """Every log line with its sentences (written now for the lines that have none yet; read-only!)."""
        if self._written < len(self._log):
            self._write_sentences()
        return self._log  # type: ignore[return-value]  # every line is written now

    def _write_sentences(self) -> None:
        """Bring the trailing copy of the state up to date, describing each action before applying it.

        Describing changes nothing, and an action is applied only once both its sentences are
        written, so a failure leaves the copy at the first line still without sentences.
        """
        writer = self._writer
        befores = self._writer_befores
        history = self.state._history
        undone: set[int] | None = None
        with naming(self.names):
            for index in range(self._written, len(self._log)):
                entry = self._log[index]
                if entry is None:  # a line of a restored game (`Tracked.restored`): made from its history entry
                    if undone is None:
                        undone = self.state.undone()
                    h = history[index]
                    entry = LogEntry(index + 1, h.seat, h.action, h.visible_to, None, None, index in undone)
                    if h.action == UNDO and h.seat != CHANCE:
                        entry = dataclasses.replace(entry, text={lang: eng.undo_text(h.seat, lang) for lang in eng.LANGS})
                    self._log[index] = entry
                if entry.action == UNDO and entry.seat != CHANCE:
                    # Its own sentence was written with it.  The copy kept below (if any) spares
                    # replaying the game for each undo: a record of many move/undo pairs stays linear.
                    memo = writer._undo_memo()
                    taken = memo[2][-1] if memo[2] else None
                    writer.undo(entry.seat, self.names, before=befores.pop(taken, None) if taken is not None else None)
                else:
                    text = {lang: writer.describe(entry.action, lang) for lang in eng.LANGS}
                    hidden = ({lang: writer.describe_hidden(entry.action, lang) for lang in eng.LANGS}
                              if entry.visible_to is not None else None)
                    if entry.undone:  # already taken back: keep the position before it for that undo
                        befores[len(writer._history)] = writer.clone()
                    writer.apply_action(entry.action, None if entry.seat == CHANCE else entry.seat)
                    self._log[index] = dataclasses.replace(entry, text=text, hidden_text=hidden)
                self._written = index + 1

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
        line = self._log[index]
        if line is not None:  # a restored game's unwritten line learns it from the history when written
            self._log[index] = dataclasses.replace(line, undone=True)
        with naming(self.names):
            text = {lang: eng.undo_text(seat, lang) for lang in eng.LANGS}
        self._log.append(LogEntry(len(self._log) + 1, seat, UNDO, None, text, None))

    def log_for(self, viewer: int | None, lang: str) -> list[dict[str, Any]]:
        return [e.for_viewer(viewer, lang) for e in self.log]


#: Bytes of one log line with its sentences in both languages (tracemalloc: 500 to 800).
LINE_BYTES = 800
#: Bytes of one history entry (most are shared with the clones; counted once).
ENTRY_BYTES = 72
_STATE_BYTES: dict[tuple[Any, ...], int] = {}
#: States of a game are measured again every this many history entries (a game's state grows as it goes).
MEASURE_EVERY = 64


def state_bytes(state: State) -> int:
    """About how many bytes a copy of ``state`` holds besides its history and the game's shared tables.

    Measured (`ludothek.services.bytecache.deep_size`) once per game, players, options and stretch of
    `MEASURE_EVERY` history entries in a process, not for each state: measuring walks every object.
    """
    key = (state.game.id, state.num_players, tuple(sorted(state.options.items())),
           len(state._history) // MEASURE_EVERY)
    found = _STATE_BYTES.get(key)
    if found is None:
        skip = frozenset({"game", "_history", "_in_force_memo"})
        shared: set[int] = set()
        deep_size(state.game.new_state(state.num_players, state.options), shared, skip)
        shared.discard(id(state))
        found = deep_size(state, shared, skip)
        if len(_STATE_BYTES) > 10_000:
            _STATE_BYTES.clear()
        _STATE_BYTES[key] = found
    return found


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


#: Chance outcomes come from the operating system's CSPRNG: no client can predict or steer them.
CHANCE_RNG = secrets.SystemRandom()


def resolve_chance(tracked: Tracked) -> list[tuple[int, str]]:
    """Apply chance outcomes drawn from the CSPRNG until a seat (or the end) is to move."""
    out: list[tuple[int, str]] = []
    while tracked.state.current_player() == CHANCE:
        action = sample_chance(tracked.state, CHANCE_RNG)
        tracked.apply(CHANCE, action)
        out.append((CHANCE, action))
    return out
