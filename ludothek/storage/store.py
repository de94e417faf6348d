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
`notify_prefs` (addresses, mail settings, mail links), `history` (the whole log, replays,
imported records), `ratings` (leaderboards, rating histories; games are rated by
`rating_update` in the transaction that ends them), `profiles`, `social` (friends,
blocks, last activity; `blocks` holds the checks the lobby runs), `chat` (game chats and
their reports; it adds the chat to each replay step) and `admin` (users, blocking, ending
games), `botturns` (bot turns claimed by the bot workers).  `Store`
combines them; import it and the info types from here.
"""

from __future__ import annotations

from .admin import AdminStore
from .botturns import BotTurnStore
from .catalog import CatalogStore
from .chat import ChatStore
from .clocks import ClockStore
from .history import HistoryStore
from .info import GameEvent, GameInfo, SeatInfo, UserInfo, aware, token_hash
from .notify_prefs import NotifyStore
from .outbox import OutboxStore
from .profiles import ProfileStore
from .ratings import RatingStore
from .sessions import SessionStore
from .social import SocialStore
from .tracked import Tracked

__all__ = ["GameEvent", "GameInfo", "SeatInfo", "Store", "Tracked", "UserInfo", "aware", "token_hash"]


class Store(NotifyStore, OutboxStore, AdminStore, SessionStore, ClockStore, ChatStore, HistoryStore, CatalogStore,
            RatingStore, ProfileStore, SocialStore, BotTurnStore):
    """All database access of the portal.  Thread-safe; one instance per process."""
