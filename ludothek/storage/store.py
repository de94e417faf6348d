"""The game store: accounts, the lobby, and games kept as their records.

A game's state is never stored, only its record (setup plus every action).
States are rebuilt by replaying and kept in a small in-memory cache; the cache
is checked against the stored sequence number on every access, so several
server processes can share one database.

Moves use optimistic concurrency: a move names the sequence number it was
made against, and it is stored by ``UPDATE games SET seq = seq + k WHERE
id = ? AND seq = ?`` together with the new action rows, whose ``(game_id,
seq)`` pair is unique.  Of two concurrent submissions exactly one can win, on
SQLite and PostgreSQL alike; the other gets a clear "stale" refusal.

The store is split by concern: `info` (what it hands out), `base` (engine,
caches, locks, reading a game), `accounts`, `sessions` (browser sessions and
API tokens), `lobby`, `play`, `outbox` (mail queued with moves) and
`notify_prefs` (addresses, mail settings, mail links).  `Store`
combines them; import it and the info types from here.
"""

from __future__ import annotations

from .catalog import CatalogStore
from .clocks import ClockStore
from .info import GameEvent, GameInfo, SeatInfo, UserInfo, aware, token_hash
from .notify_prefs import NotifyStore
from .outbox import OutboxStore
from .sessions import SessionStore
from .tracked import Tracked

__all__ = ["GameEvent", "GameInfo", "SeatInfo", "Store", "Tracked", "UserInfo", "aware", "token_hash"]


class Store(NotifyStore, OutboxStore, SessionStore, ClockStore, CatalogStore):
    """All database access of the portal.  Thread-safe; one instance per process."""
