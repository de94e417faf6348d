"""What the services of one process share besides the database: game locks, the cache of game
states, the listeners told of every change, and the short memory of who is behind a token or session.

All of it is per process; several server processes share one database, and every cached thing is
checked against the database before it is trusted (`ludothek.services.play`).
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from ludothek.storage.info import GameEvent, UserInfo

from .bytecache import ByteCache
from .tracked import Tracked


class GameLock:
    """A game's lock; a plain class so that the lock table can hold it weakly."""

    __slots__ = ("__weakref__", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> bool:
        return self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


class GameLocks:
    """The per-process locks of games: one request at a time changes or reads a game's state."""

    def __init__(self) -> None:
        self.table: weakref.WeakValueDictionary[int, GameLock] = weakref.WeakValueDictionary()
        self._lock = threading.Lock()

    def get(self, game_id: int) -> GameLock:
        """The lock of a game: kept only while someone holds or waits for it.

        The table holds locks weakly, so a lock disappears once no request uses it:
        requests for ids that never existed (or games long finished) leave nothing behind.
        """
        with self._lock:
            lock = self.table.get(game_id)
            if lock is None:
                lock = GameLock()
                self.table[game_id] = lock
            return lock


#: Bytes the state cache may hold per process (``LUDOTHEK_STATE_CACHE_BYTES``; docs/operations.md).
STATE_CACHE_BYTES = 256 * 1024 * 1024


def state_cache_bytes_from_env() -> int:
    """``LUDOTHEK_STATE_CACHE_BYTES`` (bytes; ``256M``, ``1G`` and ``64K`` are understood), or `STATE_CACHE_BYTES`."""
    text = os.environ.get("LUDOTHEK_STATE_CACHE_BYTES", "").strip()
    if not text:
        return STATE_CACHE_BYTES
    scale = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(text[-1].upper(), 1)
    try:
        value = int(text[:-1] if scale > 1 else text) * scale
    except ValueError:
        raise ValueError(f"LUDOTHEK_STATE_CACHE_BYTES must be a number of bytes such as 268435456 or 256M, "
                         f"not {text!r}") from None
    if value < 0:
        raise ValueError(f"LUDOTHEK_STATE_CACHE_BYTES must be 0 or more, not {text!r}")
    return value


class StateCache(ByteCache[int, Tracked]):
    """Game states by id, the least recently used dropped beyond ``max_bytes`` (each game's
    `Tracked.size_estimate`; issue 34: bounded by memory, not by a count of games).

    The move path reads ``entries`` under ``lock`` itself (no call for the hottest look-up).
    """

    def __init__(self, max_bytes: int = STATE_CACHE_BYTES) -> None:
        super().__init__(max_bytes)


class Listeners(list[Callable[[GameEvent], None]]):
    """The functions told of every change of a game (live updates, bot workers, the database watch)."""

    def notify(self, event: GameEvent) -> None:
        for listener in list(self):
            listener(event)


class UserMessages(list[Callable[[int, dict[str, Any]], None]]):
    """The functions that tell a user's open tabs something (the live hub's ``publish_user``)."""

    def publish(self, user_id: int, message: dict[str, Any]) -> int:
        """Hand ``message`` to every publisher; how many took it."""
        for publish in list(self):
            publish(user_id, message)
        return len(self)


class UserCache:
    """Who is behind a token or session, remembered briefly: every API request asks."""

    def __init__(self, seconds: float = 30.0) -> None:
        self.entries: dict[tuple[str, object], tuple[float, UserInfo | None]] = {}
        self.seconds = seconds

    def cached(self, key: tuple[str, object], load: Callable[[], UserInfo | None]) -> UserInfo | None:
        now = time.monotonic()
        hit = self.entries.get(key)
        if hit is not None and hit[0] > now:
            return hit[1]
        user = load()
        if len(self.entries) > 50_000:
            self.entries.clear()
        self.entries[key] = (now + self.seconds, user)
        return user

    def forget(self, user_id: int) -> None:
        for key, (_, user) in list(self.entries.items()):
            if key == ("id", user_id) or (user is not None and user.id == user_id):
                self.entries.pop(key, None)
