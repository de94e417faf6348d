"""Snapshots of running games (issue 34): a cold game is restored, not replayed from its first move.

Opening a game that is in no cache of this process used to replay every stored action: 7.8 ms of
CPU for an ordinary game, more for a long one, and again on every visit once more games were
running than the cache held.  Now every `SnapshotKeeper.every` entries (and when a game ends) the
game's state is written as a snapshot (`ludothek.engine.snapshots`) into ``game_snapshots``
(`ludothek.storage.snapshots`), and a cold game is its snapshot plus at most about that many
stored rows applied.

When to write was measured (``benchmarks/bench_cold_open.py``): a snapshot costs several times a
move's own engine work to make, so one on every commit would add to every move what it saves only
on the rare cold open; every `SNAPSHOT_EVERY` entries costs a move a small share on average and
bounds a cold open by that many applied actions.  It is written by a listener after the move's
commit and outside it, so the move's durability and atomicity are untouched; a snapshot that is
never written only means a longer replay.

The rows stay the truth.  A snapshot whose rules version or code is not this server's, that is
damaged, or whose rows do not apply is not used: the game is replayed from its rows and the
snapshot written again.
"""

from __future__ import annotations

import logging
import os

from ludothek import engine as eng
from ludothek.engine import snapshots
from ludothek.engine.core import CHANCE, UNDO, IllegalAction, State
from ludothek.storage.database import Database
from ludothek.storage.info import GameEvent, GameInfo
from ludothek.storage.models import utcnow
from ludothek.storage.snapshots import SnapshotRows

from .runtime import GameLocks, StateCache
from .tracked import Tracked, undone_rows

log = logging.getLogger("ludothek.services.snapshots")

#: A snapshot is written every this many history entries (``LUDOTHEK_SNAPSHOT_EVERY``; 0: never,
#: every cold game is replayed).  See the module docstring and docs/operations.md.
SNAPSHOT_EVERY = 16


def snapshot_every_from_env() -> int:
    """``LUDOTHEK_SNAPSHOT_EVERY``, or `SNAPSHOT_EVERY`; a value that is not a whole number >= 0 stops the start."""
    text = os.environ.get("LUDOTHEK_SNAPSHOT_EVERY", "").strip()
    if not text:
        return SNAPSHOT_EVERY
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"LUDOTHEK_SNAPSHOT_EVERY must be a whole number, not {text!r}") from None
    if value < 0:
        raise ValueError(f"LUDOTHEK_SNAPSHOT_EVERY must be 0 or more, not {value}")
    return value


def apply_rows(state: State, rows: list[tuple[int, str]]) -> None:
    """Apply stored rows (``(seat, action)``, seat `CHANCE` for an outcome, action ``undo`` for an undo) to
    ``state`` as `ludothek.engine.replay` does: checked, and an undo restores a copy kept for it
    instead of replaying the game (only the rows a later row takes back are copied).  Raises
    `IllegalAction` for a row that does not apply."""
    undone = undone_rows(rows)
    befores: dict[int, State] = {}
    for index, (seat, action) in enumerate(rows):
        if action == UNDO and seat != CHANCE:
            stack = state._undo_memo()[2]
            state.undo(seat, before=befores.pop(stack[-1], None) if stack else None)
            continue
        if seat == CHANCE and state.current_player() != CHANCE:
            raise IllegalAction("no random outcome is due")
        if index in undone:
            befores[state.move_number()] = state.clone()
        state.apply_action(action, None if seat == CHANCE else seat)


class SnapshotKeeper:
    """Restores cold games from their snapshots and writes snapshots as games go on."""

    def __init__(self, db: Database, states: StateCache, locks: GameLocks, every: int = SNAPSHOT_EVERY) -> None:
        self.rows = SnapshotRows(db)
        self.states = states
        self.locks = locks
        #: Entries between two snapshots of a game; 0 switches snapshots off (replay only).
        self.every = every
        #: What happened, for tests, benchmarks and the curious: games restored from a snapshot,
        #: snapshots not used (refused), snapshots written.
        self.restored = 0
        self.refused = 0
        self.written = 0

    # ------------------------------------------------------------------ restoring
    def restore(self, info: GameInfo) -> Tracked | None:
        """The game at ``info.seq`` from its snapshot and the rows after it; None: replay it instead."""
        if self.every <= 0:
            return None
        found = self.rows.read(info.id)
        if found is None:
            return None
        seq, rules_version, data = found
        game = eng.load(info.game)
        if seq > info.seq or rules_version != game.rules_version:
            self.refused += 1
            return None
        try:
            state = snapshots.load(data, info.game, info.num_players, info.options, seq)
        except snapshots.SnapshotError as exc:
            self.refused += 1
            log.info("game %s: snapshot at %s not used (%s); replaying", info.id, seq, exc)
            return None
        tail = self.rows.rows(info.id, seq, info.seq) if seq < info.seq else []
        if len(tail) != info.seq - seq:
            return None
        try:
            apply_rows(state, tail)
        except IllegalAction as exc:
            self.refused += 1
            log.warning("game %s: stored rows after its snapshot at %s do not apply (%s); replaying",
                        info.id, seq, exc)
            return None
        tracked = Tracked.restored(state, info.seat_names())
        tracked.snapshot_seq = seq
        self.restored += 1
        if len(tail) >= 2 * self.every:  # snapshots fell behind (writes failed): write one now
            self.write(info.id, tracked)
        return tracked

    def replayed(self, info: GameInfo, tracked: Tracked) -> None:
        """After a game was replayed from its rows (under its lock): write its snapshot when that is worth it."""
        if self.every > 0 and info.seq >= self.every:
            self.write(info.id, tracked)

    # ------------------------------------------------------------------ writing
    def write(self, game_id: int, tracked: Tracked) -> bool:
        """Write the snapshot of a cached game now (the caller holds the game's lock); False if it failed.

        A failure is logged and otherwise ignored: the rows are the truth, a snapshot only saves time.
        """
        state = tracked.state
        try:
            data = snapshots.dump(state)
            self.rows.write(game_id, state.move_number(), state.game.rules_version, data, utcnow())
        except Exception:
            log.exception("game %s: writing its snapshot failed", game_id)
            return False
        tracked.snapshot_seq = state.move_number()
        self.written += 1
        return True

    def on_event(self, event: GameEvent) -> None:
        """The listener (`ludothek.services.runtime.Listeners`): after a commit, snapshot the game when
        `every` entries were stored since its last snapshot, or it ended."""
        if self.every <= 0:
            return
        with self.states.lock:
            tracked = self.states.entries.get(event.game_id)
        if tracked is None:
            return
        due = event.seq - tracked.snapshot_seq >= self.every or (
            event.status == "finished" and tracked.snapshot_seq != event.seq)
        if not due:
            return
        with self.locks.get(event.game_id):
            # Under the lock the cached state is committed: every failed write drops it from the cache.
            if tracked.state.move_number() != event.seq or self.states.entries.get(event.game_id) is not tracked:
                return
            self.write(event.game_id, tracked)

    def drop(self, game_id: int) -> None:
        self.rows.drop(game_id)


__all__ = ["SNAPSHOT_EVERY", "SnapshotKeeper", "snapshot_every_from_env"]
