"""The table of state snapshots (issue 34): read a game's newest snapshot with the rows after it, write one.

The rows of ``actions`` are a game's truth; a snapshot only spares replaying them
(`ludothek.services.snapkeeper` decides when to write one and what to do with one that does not
load).  So a snapshot is written on its own, after the move's commit and never inside it: a move
is exactly as durable and atomic as without snapshots, and a snapshot that is never written (a
crash, a failed statement) only costs a longer replay.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .database import Database


class SnapshotRows:
    """Plain SQL on ``game_snapshots``, the same on SQLite and PostgreSQL."""

    def __init__(self, db: Database) -> None:
        self.db = db
        m = db.mark
        self._read_sql = f"SELECT seq, rules_version, data FROM game_snapshots WHERE game_id = {m}"
        self._rows_sql = (f"SELECT seat, action FROM actions WHERE game_id = {m} AND seq >= {m} AND seq < {m} "
                          "ORDER BY seq")
        # An older snapshot never replaces a newer one (two processes may write one game's); one of
        # the same position replaces it (written again after it failed to load).
        self._write_sql = (
            "INSERT INTO game_snapshots (game_id, seq, rules_version, data, created_at) "
            f"VALUES ({m}, {m}, {m}, {m}, {m}) ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, "
            "rules_version = excluded.rules_version, data = excluded.data, created_at = excluded.created_at "
            "WHERE excluded.seq >= game_snapshots.seq")
        self._drop_sql = f"DELETE FROM game_snapshots WHERE game_id = {m}"

    def read(self, game_id: int) -> tuple[int, str, bytes] | None:
        """The game's snapshot: ``(seq, rules version, bytes)``, or None."""
        row = self.db.single(self._read_sql, (game_id,))
        if row is None:
            return None
        return int(row[0]), str(row[1]), bytes(row[2])

    def rows(self, game_id: int, start: int, end: int) -> list[tuple[int, str]]:
        """The stored entries ``start <= seq < end`` as ``(seat, action)``, in order."""
        return [(int(seat), str(action)) for seat, action in self.db.single(self._rows_sql, (game_id, start, end),
                                                                           rows=True)]

    def write(self, game_id: int, seq: int, rules_version: str, data: bytes, now: datetime) -> None:
        """Keep ``data`` as the game's snapshot after ``seq`` entries (unless a newer one is kept)."""
        params: tuple[Any, ...] = (game_id, seq, rules_version, data, self.db.db_time(now))
        with self.db.engine.begin() as conn:  # its own short transaction (SQLite's `single` does not commit)
            conn.exec_driver_sql(self._write_sql, params)

    def drop(self, game_id: int) -> None:
        with self.db.engine.begin() as conn:
            conn.exec_driver_sql(self._drop_sql, (game_id,))


__all__ = ["SnapshotRows"]
