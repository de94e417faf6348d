"""The server plays bot seats as soon as it is their turn.

One background thread works through a queue of games where a bot is to move,
one move at a time and round-robin, so a thousand bot games share the thread
fairly and a bots-only game plays itself to the end.  ``delay`` spaces a bot's
moves so a person can follow them (0 in tests and benchmarks).
"""

from __future__ import annotations

import heapq
import logging
import threading
import time

from ludothek.storage import GameEvent, Store

log = logging.getLogger(__name__)


class BotRunner:
    def __init__(self, store: Store, delay: float = 0.0) -> None:
        self.store = store
        self.delay = delay
        self._heap: list[tuple[float, int]] = []
        self._queued: set[int] = set()
        self._cond = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="ludothek-bots", daemon=True)
        self._thread.start()
        for game_id in self.store.running_bot_games():  # resume after a restart
            self.schedule(game_id, 0.0)

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def on_event(self, event: GameEvent) -> None:
        """Store listener: a bot is to move in this game."""
        if event.bot_to_move and event.status == "running":
            self.schedule(event.game_id, self.delay)

    def schedule(self, game_id: int, delay: float) -> None:
        with self._cond:
            if game_id in self._queued:
                return
            self._queued.add(game_id)
            heapq.heappush(self._heap, (time.monotonic() + delay, game_id))
            self._cond.notify()

    def idle(self) -> bool:
        with self._cond:
            return not self._queued

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopping and (not self._heap or self._heap[0][0] > time.monotonic()):
                    timeout = None if not self._heap else max(0.0, self._heap[0][0] - time.monotonic())
                    self._cond.wait(timeout)
                if self._stopping:
                    return
                _, game_id = heapq.heappop(self._heap)
                self._queued.discard(game_id)
            try:
                # The move's event schedules the next bot move, if any.
                self.store.bot_step(game_id)
            except Exception:
                log.exception("bot move failed in game %s", game_id)
