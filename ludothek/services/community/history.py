"""History: a game's whole log page by page, and its replay at any step from any seat allowed.

A replay shows the position after the first ``step`` entries of the game's history (step 0 is
the start, step ``seq`` the position now; undo entries are steps of their own, as in the game's
move numbers).  Replaying a record from the start for every step, with log sentences, would cost
a 1,000-move game about a second a step (see ``performance_profile.md``, "Rebuilding states").
A `ReplayBook` therefore replays a game once, keeping a copy of the state every
`CHECKPOINT_EVERY` steps and the log in both languages; any step is then one copy and at most
`CHECKPOINT_EVERY` applied actions (no sentences) away.  An undo entry is a step too: the position
after it is the one before the action it took back, with the history as it stood (exactly what
``State.undo`` makes), so it is rebuilt from that earlier step.

Books are kept in caches counted in bytes (`BookCache`, each book's `ReplayBook.size_estimate`):
one for stored games, a smaller one for imported records.  A finished game's book never changes;
a running game's book is extended with the moves stored since.  What an imported record may cost
is bounded in `replaylimits` (issue 28).

Who may see what (the portal and the API check it with `replay_seats`): once a game is over, the
view of every seat and of a spectator, with the whole log; while it runs, a player their own
seat's past views and anyone the spectator's, each with the log as that viewer may read it.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from ludothek import engine as eng
from ludothek.engine import CHANCE, UNDO, IllegalAction, State, jsonread
from ludothek.services.play import Play
from ludothek.services.tracked import LogEntry, Tracked, undone_rows
from ludothek.services.workgate import WorkGate
from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, Conflict, Forbidden
from ludothek.storage.games import Games
from ludothek.storage.info import GameInfo
from ludothek.storage.models import ActionRow

from .chat import Chat
from .replaylimits import BookCache, Budget, RecordTooBig, ReplayLimits, deep_size, replay_gate

__all__ = ["BadRecord", "History", "RecordTooBig", "ReplayBook", "ReplayLimits", "WorkGate"]

#: A copy of the state is kept every this many steps: a step costs at most this many applied actions.
CHECKPOINT_EVERY = 24
#: Bytes the books of stored games may take in the cache (`ludothek.portal.settings.Settings.replay_cache_bytes`).
BOOK_CACHE_BYTES = 64 * 1024 * 1024
#: Bytes the books of imported records may take (``replay_import_cache_bytes``).
IMPORT_CACHE_BYTES = 16 * 1024 * 1024
#: What a book holds per entry besides its states: the history entry and the log line with its
#: sentences in both languages (measured with tracemalloc: 500 to 800 bytes; see the tests).
ENTRY_BYTES = 800
#: The most log lines one page of the log holds.
LOG_PAGE_MAX = 500


class BadRecord(BadRequest):
    """A record from outside that is not JSON, not a record, or does not replay (the message says where)."""

    code = "bad_record"


class ReplayBook:
    """Every position of one game, cheaply at hand: checkpoints, the history and the log."""

    def __init__(self, record: dict[str, Any], names: Sequence[str] | None = None,
                 tick: Callable[[int], None] | None = None) -> None:
        start = eng.initial_state(record)
        self.record = record
        self.names = tuple(names) if names is not None else None
        self._tracked = Tracked(start.clone(), self.names)
        self._checkpoints: dict[int, State] = {0: start}
        #: Bytes a copy of a state of this game adds, without its history (for `size_estimate`): what
        #: the copy shares with the original (the game's tables, interned strings) is not counted.
        skip = frozenset({"game", "_history", "_in_force_memo"})
        shared: set[int] = set()
        deep_size(start, shared, skip)
        self._state_bytes = deep_size(start.clone(), shared, skip)
        #: For each undo entry (its index): the index of the action it took back.
        self._undo_of: dict[int, int] = {}
        #: For each action taken back (its index): the index of the undo entry.
        self._undone_at: dict[int, int] = {}
        self._stack: list[int] = []
        self._lock = threading.Lock()
        self.length = 0
        self.extend([("chance" if a["seat"] == "chance" else a["seat"], a["action"]) for a in record["actions"]],
                    tick=tick)

    def size_estimate(self) -> int:
        """About how many bytes this book holds once its log is written (what the cache counts).

        Each checkpoint is a state plus its own list of the history so far; the current state,
        the log writer's and the few copies kept for undos are states too; every entry adds a
        history entry and a log line in two languages.
        """
        lists = sum(8 * len(s._history) + 56 for s in self._checkpoints.values())
        states = len(self._checkpoints) + 2 + len(self._tracked._befores)
        return states * self._state_bytes + lists + 2 * 8 * self.length + self.length * ENTRY_BYTES

    def extend(self, actions: Sequence[tuple[int | str, str]], start: int | None = None,
               tick: Callable[[int], None] | None = None) -> None:
        """Append stored entries (``(seat or "chance", action)``); `ReplayError` names the first that does not apply.

        ``start``: the step of the first of ``actions``.  Entries the book already holds are then
        skipped: two requests of one process may read the same new entries for one cached book at
        once, and the second must not apply them again.
        """
        rows = [(CHANCE if seat == "chance" else seat, action) for seat, action in actions]
        with self._lock:
            if start is not None:
                if start > self.length:
                    raise eng.ReplayError(f"entries from {start + 1} cannot follow the book's {self.length}",
                                          self.length, "")
                rows = rows[self.length - start:]
            # Only the actions an undo of this batch takes back need the position before them kept.
            taken_back = undone_rows([(s if isinstance(s, int) else CHANCE, str(a)) for s, a in rows])
            for offset, (seat, action) in enumerate(rows):
                index = self.length
                if tick is not None:
                    tick(index)
                if not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(action, str):
                    raise eng.ReplayError(f"action {index + 1} is malformed: {seat!r}, {action!r}", index, str(action))
                try:
                    self._tracked.apply(seat, action, keep_before=offset in taken_back)
                except (IllegalAction, IndexError) as exc:
                    raise eng.ReplayError(f"action {index + 1} ({action!r}) does not apply: {exc}", index,
                                          str(action)) from None
                if action == UNDO and seat != CHANCE:
                    target = self._stack.pop()
                    self._undo_of[index] = target
                    self._undone_at[target] = index
                else:
                    self._stack.append(index)
                self.length = index + 1
                if self.length % CHECKPOINT_EVERY == 0:
                    self._checkpoints[self.length] = self._tracked.state.clone()

    @property
    def game(self) -> eng.Game:
        return self._tracked.state.game

    @property
    def num_players(self) -> int:
        return self._tracked.state.num_players

    def state_at(self, step: int) -> State:
        """A fresh state after the first ``step`` entries (0 <= step <= length)."""
        if not 0 <= step <= self.length:
            raise IndexError(step)
        history = self._tracked.state._history
        base = step - step % CHECKPOINT_EVERY
        last_undo = next((t for t in range(step - 1, base - 1, -1) if t in self._undo_of), None)
        if last_undo is not None:
            state = self.state_at(self._undo_of[last_undo])
            state._history = list(history[:last_undo + 1])
            first = last_undo + 1
        else:
            state = self._checkpoints[base].clone()
            first = base
        for entry in history[first:step]:
            state.apply_action(entry.action)
        return state

    def log(self, step: int, viewer: int | str | None, lang: str) -> list[dict[str, Any]]:
        """The log lines of the first ``step`` entries as ``viewer`` may read them (``"all"``: everything).

        An action is marked undone only when its undo is among these entries.
        """
        # The sentences are written on the first read, by advancing a trailing copy of the game: one
        # request at a time (a cached book is shared by the threads that serve requests).
        with self._lock:
            entries = self._tracked.log[:step]
        lines = []
        for entry in entries:
            index = entry.n - 1
            undone_at = self._undone_at.get(index)
            lines.append(_line(entry, viewer, lang, undone_at is not None and undone_at < step))
        return lines

    def result_json(self) -> list[dict[str, Any]] | None:
        state = self._tracked.state
        return state.result_json() if state.is_terminal() else None


def _line(entry: LogEntry, viewer: int | str | None, lang: str, undone: bool) -> dict[str, Any]:
    if viewer == "all":
        assert entry.text is not None  # read through `Tracked.log`, which writes the sentences
        out = {"n": entry.n, "seat": "chance" if entry.seat == CHANCE else entry.seat, "action": entry.action,
               "text": entry.text[lang], "undone": undone}
    else:
        out = entry.for_viewer(viewer if isinstance(viewer, int) else None, lang)
        out["undone"] = undone
    return out


@dataclass(frozen=True)
class ReplayStep:
    """What one viewer sees of one step of a replay."""

    step: int
    length: int
    seat: int | None
    state: State
    log: list[dict[str, Any]]
    #: Per-step extras of other concerns (chat messages written up to this step; see `Chat.replay_extras`).
    extras: list[dict[str, Any]]


def replay_seats(info: GameInfo, user_id: int | None) -> list[int | None]:
    """The seats whose views a viewer may choose in the replay (``None``: the spectator's view).

    Everybody's once the game is over; while it runs, the viewer's own seat and the spectator's.
    """
    if info.over:  # finished or abandoned
        return [*range(info.num_players), None]
    mine = info.seat_of(user_id)
    return [mine, None] if mine is not None else [None]


def record_digest(record: dict[str, Any]) -> str:
    """A key for an imported record: the SHA-256 of its canonical JSON."""
    return hashlib.sha256(json.dumps(record, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class History:
    """The whole log page by page, replay steps, and imported records (never stored)."""

    def __init__(self, db: Database, games: Games, play: Play, chat: Chat) -> None:
        self.db = db
        self.games = games
        self.play = play
        #: The game chat: each replay step carries the messages written up to it (`Chat.replay_extras`).
        self.chat = chat
        self._books: BookCache[ReplayBook] = BookCache(BOOK_CACHE_BYTES)
        self._imported: BookCache[ReplayBook] = BookCache(IMPORT_CACHE_BYTES)
        #: What an imported record may cost, and how many are replayed at once (the portal sets them
        #: from its settings).
        self.limits = ReplayLimits()
        self.gate = replay_gate()
        #: Entries replayed for imported records (both passes), for tests and the benchmark.
        self.import_work = 0

    def configure(self, limits: ReplayLimits, gate: WorkGate, cache_bytes: int, import_cache_bytes: int) -> None:
        """Bounds from the portal's settings (set once, before the first request)."""
        self.limits = limits
        self.gate = gate
        self._books = BookCache(cache_bytes)
        self._imported = BookCache(import_cache_bytes)

    # ------------------------------------------------------------------ the log
    def log_page(self, game_id: int, viewer: int | None, lang: str, before: int | None = None,
                 limit: int = 100) -> tuple[GameInfo, list[dict[str, Any]]]:
        """The log lines numbered below ``before`` (default: all), the last ``limit`` of them, oldest first.

        Lines are numbered by the game's own move numbers (``n``, 1 = the first entry), the
        numbers moves are made against; ``viewer`` reads them as that seat may (``None``: spectator).
        """
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= LOG_PAGE_MAX:
            raise BadRequest(f"limit must be 1 to {LOG_PAGE_MAX}", code_key="bad_limit")
        if before is not None and (isinstance(before, bool) or not isinstance(before, int) or before < 1):
            raise BadRequest("before must be a move number of 1 or more", code_key="bad_before")
        with self.play.state(game_id) as (info, tracked):
            if tracked is None:
                raise Conflict("the game has not started yet", code_key="not_started")
            end = len(tracked.log) if before is None else min(before - 1, len(tracked.log))
            start = max(0, end - limit)
            return info, [e.for_viewer(viewer, lang) for e in tracked.log[start:end]]

    # ------------------------------------------------------------------ replays
    def _cached_book(self, key: tuple[str, object]) -> ReplayBook | None:
        return self._books.get(key)

    def _keep_book(self, key: tuple[str, object], book: ReplayBook) -> None:
        self._books.put(key, book)

    def replay_book(self, info: GameInfo) -> ReplayBook:
        """The book of a stored game, brought up to ``info.seq``."""
        if info.status != "running" and not info.over:
            raise Conflict("the game has not started yet", code_key="not_started")
        key = ("game", info.id)
        book = self._cached_book(key)
        if book is None or book.length > info.seq:
            with self.db.engine.begin() as conn:
                rows = conn.execute(
                    select(ActionRow.seat, ActionRow.action)
                    .where(ActionRow.game_id == info.id, ActionRow.seq < info.seq).order_by(ActionRow.seq)
                ).all()
            book = ReplayBook(self.play.record_of(info, [(r.seat, r.action) for r in rows]), info.seat_names())
            self._keep_book(key, book)
        elif book.length < info.seq:
            start = book.length  # another request may extend the book meanwhile: `extend` skips what it added
            with self.db.engine.begin() as conn:
                rows = conn.execute(
                    select(ActionRow.seat, ActionRow.action)
                    .where(ActionRow.game_id == info.id, ActionRow.seq >= start, ActionRow.seq < info.seq)
                    .order_by(ActionRow.seq)
                ).all()
            book.extend([("chance" if r.seat == CHANCE else r.seat, r.action) for r in rows], start)
            self._keep_book(key, book)  # measured again: it grew
        return book

    def replay_step(self, game_id: int, step: int | None, seat: int | None, user_id: int | None,
                    lang: str) -> tuple[GameInfo, ReplayStep]:
        """Step ``step`` (default: the last) of game ``game_id`` from ``seat``'s view, if ``user_id`` may see it.

        `Forbidden` for a seat the viewer may not choose (another seat of a running game);
        `BadRequest` for a step outside ``0..seq``.
        """
        info = self.games.game(game_id)
        if seat is not None and (isinstance(seat, bool) or not 0 <= seat < info.num_players):
            raise BadRequest(f"there is no seat {seat} in this game (seats 0 to {info.num_players - 1})",
                             code_key="bad_seat")
        if seat not in replay_seats(info, user_id):
            raise Forbidden("while a game runs, you can replay only your own seat's views (or a spectator's)",
                            code_key="replay_seat")
        book = self.replay_book(info)
        step = book.length if step is None else step
        if isinstance(step, bool) or not 0 <= step <= book.length:
            raise BadRequest(f"step must be 0 to {book.length}", code_key="bad_step", last=book.length)
        viewer: int | str | None = "all" if info.over else seat
        return info, ReplayStep(step, book.length, seat, book.state_at(step), book.log(step, viewer, lang),
                                self.chat.replay_extras(info, step, seat, user_id))

    # ------------------------------------------------------------------ imported records
    def imported_book(self, record: Any, before_replay: Callable[[], None] | None = None) -> tuple[str, ReplayBook]:
        """A book for a record from outside: validated by replaying it, kept only in this process's cache.

        `BadRequest` with ``ReplayError``'s message (naming the first bad action) if it does not
        replay; `RecordTooBig` (413) past `ReplayLimits` (counted first) or its CPU budget;
        `TooManyAttempts` (429) when the gate is full.  ``before_replay`` is called only when the
        record must be replayed (not in the cache), before the gate: the portal's rate limits count
        the records that cost work, not the steps of one already replayed.  Nothing is written to
        the database.
        """
        try:
            parsed = jsonread.loads(record) if isinstance(record, (str, bytes)) else record
        except jsonread.TooDeep as exc:
            raise BadRecord(f"the record is not valid JSON: {exc}", code_key="json_too_deep", limit=exc.limit) from None
        except ValueError as exc:
            raise BadRecord(f"the record is not valid JSON: {exc}", code_key="bad_record_json", reason=str(exc)) from None
        if not isinstance(parsed, dict):
            raise BadRecord("a record must be a JSON object", code_key="bad_record_shape", reason="not an object")
        actions = parsed.get("actions")
        if isinstance(actions, list):
            self.limits.check(actions)
        digest = record_digest(parsed)
        key = ("import", digest)
        book = self._imported.get(key)
        if book is None:
            if before_replay is not None:
                before_replay()
            with self.gate.slot():
                book = self._replay_import(parsed)
            self._imported.put(key, book)
        return digest, book

    def _replay_import(self, parsed: dict[str, Any]) -> ReplayBook:
        """Replay an imported record within its CPU budget (both passes and the log's sentences)."""
        budget = Budget(self.limits.cpu_seconds)
        try:
            try:
                eng.replay(parsed, tick=budget.tick)  # the engine's own verdict first: it names the first bad action
                book = ReplayBook(parsed, imported_names(parsed), tick=budget.tick)
                book.log(0, "all", "en")  # writes every sentence now, under the gate, not in a later request
            except eng.ReplayError as exc:
                if exc.index is None:  # the record itself is malformed (no such game, bad players, ...)
                    raise BadRecord(f"the record does not replay: {exc}", code_key="bad_record",
                                    reason=str(exc)) from None
                raise BadRecord(f"the record does not replay: {exc}", code_key="bad_record_action", reason=str(exc),
                                n=exc.index + 1, action=str(exc.action)[:80]) from None
            except (TypeError, KeyError, AttributeError) as exc:
                raise BadRecord(f"the record is malformed: {exc!r}", code_key="bad_record", reason=repr(exc)) from None
        finally:
            self.import_work += budget.entries
        return book


def imported_names(record: dict[str, Any]) -> list[str] | None:
    """The player names a record carries (``meta.players``, as this site writes them), if usable."""
    meta = record.get("meta")
    names = meta.get("players") if isinstance(meta, dict) else None
    players = record.get("players")
    if not isinstance(names, list) or not isinstance(players, int) or len(names) != players:
        return None
    if not all(isinstance(n, str) and 0 < len(n) <= 40 and n.isprintable() for n in names):
        return None
    return [str(n) for n in names]
