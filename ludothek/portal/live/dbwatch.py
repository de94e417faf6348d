"""Without Redis: a server hears of moves other processes stored by looking in the database.

(With Redis, `DatabaseWatch.catch_up` does one such look after the subscription was lost and renewed.)

Bots move in worker processes of their own (``ludothek bots``).  With Redis they
publish each move like a server does.  Without it (one server on SQLite, what
``make run`` starts) the server looks, every ``interval`` seconds, at the games
and users it has live sockets for, and tells those sockets about every game
whose move number went past the last one it announced: the same update message
a move in this process sends, so the pages fetch their board as usual.  One
small query per look, and none while nobody watches.

The same look sees a bot worker's claim (``bot_claim_seq``, ``bot_lease_until``: a bot is thinking)
and tells the sockets once per claimed move, so the bot's panel says so whichever process thinks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, select

from ludothek.engine import TERMINAL
from ludothek.services import Site
from ludothek.storage import GameEvent
from ludothek.storage.botturns import BotTurn
from ludothek.storage.database import when
from ludothek.storage.models import GameRow, SeatRow

from .hub import Hub, event_message, thinking_message

log = logging.getLogger(__name__)

#: At most this many game ids per query (SQLite's variable limit is far above; keeps statements small).
CHUNK = 500


class DatabaseWatch:
    """Announces moves stored by other processes to this process's live sockets."""

    def __init__(self, site: Site, hub: Hub, interval: float = 0.25) -> None:
        self.site = site
        self.hub = hub
        self.interval = interval
        #: The last move number announced per game (by this watch or by a move in this process).
        self.seen: dict[int, int] = {}
        #: Per watched user: the (game, move) pairs where it was their turn at the last look.
        self._turns: dict[int, set[tuple[int, int]]] = {}
        #: Turns this process announced itself since the last look (its own moves): not again.
        self._local_turns: set[tuple[int, int]] = set()
        #: Per game, the move whose claim (a bot thinking) was last announced.
        self.thinking_seen: dict[int, int] = {}
        self._task: asyncio.Task[None] | None = None

    def on_event(self, event: GameEvent) -> None:
        """Store listener: a move this process stored is announced already."""
        self.note(event.game_id, event.seq)
        if event.status == "running" and event.to_move >= 0 and not event.bot_to_move:
            self._local_turns.add((event.game_id, event.seq))

    def on_thinking(self, turn: BotTurn) -> None:
        """`BotTurns` listener: a claim made in this process is announced already."""
        if turn.until is not None:
            self.thinking_seen[turn.game_id] = turn.seq

    def note(self, game_id: int, seq: int) -> None:
        """The watchers of ``game_id`` know it up to move ``seq`` (a socket's hello, a local move)."""
        if seq > self.seen.get(game_id, -1):
            self.seen[game_id] = seq

    async def start(self) -> None:
        if self.interval > 0:
            self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                games, users = self.hub.watched()
                if not games and not users:
                    continue
                rows, turns = await asyncio.to_thread(self._read, games, users)
                self.announce(rows, turns)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not look for moves in the database")

    async def catch_up(self) -> None:
        """Tell this process's sockets where each watched game stands now (with Redis, after a lost
        subscription: what other processes published meanwhile never arrives).  Only to this process's
        own sockets (`Hub.deliver`), and only games: an "update" makes a page fetch its view, which is
        harmless if nothing moved; "your turn" notices of the outage are not repeated.
        """
        games, _ = self.hub.watched()
        if not games:
            return
        rows, _ = await asyncio.to_thread(self._read, games, [])
        for game_id, seq, to_move, status, *_ in rows:
            self.site.games.info_cache.pop(game_id, None)  # it may have changed under this process
            event = GameEvent(game_id, seq, to_move if status == "running" else TERMINAL, status, False)
            self.hub.deliver(game_id, event_message(event))

    def look(self) -> None:
        """One look, synchronously (tests)."""
        games, users = self.hub.watched()
        rows, turns = self._read(games, users)
        self.announce(rows, turns)

    def _read(self, games: list[int], users: list[int]) -> tuple[list[Any], list[Any]]:
        rows: list[Any] = []
        turns: list[Any] = []
        with self.site.engine.connect() as conn:
            for i in range(0, len(games), CHUNK):
                rows += conn.execute(
                    select(GameRow.id, GameRow.seq, GameRow.to_move, GameRow.status, GameRow.bot_claim_seq,
                           GameRow.bot_lease_until)
                    .where(GameRow.id.in_(games[i:i + CHUNK]))
                ).all()
            for i in range(0, len(users), CHUNK):
                turns += conn.execute(
                    select(SeatRow.user_id, GameRow.id, GameRow.seq)
                    .join(GameRow, and_(SeatRow.game_id == GameRow.id, SeatRow.seat == GameRow.to_move))
                    .where(GameRow.status == "running", SeatRow.kind == "player",
                           SeatRow.user_id.in_(users[i:i + CHUNK]))
                ).all()
        return rows, turns

    def announce(self, rows: list[Any], turns: list[Any]) -> None:
        clock = datetime.now(UTC)
        for game_id, seq, to_move, status, claim_seq, lease_until in rows:
            if seq > self.seen.get(game_id, -1):
                self.seen[game_id] = seq
                self.site.games.info_cache.pop(game_id, None)  # its summary changed under this process
                self.hub.publish(GameEvent(game_id, seq, to_move if status == "running" else TERMINAL, status, False))
            until = when(lease_until)
            if (status == "running" and claim_seq == seq and until is not None and until > clock
                    and self.thinking_seen.get(game_id) != seq):
                self.thinking_seen[game_id] = seq
                self.hub.publish_to(game_id, thinking_message(game_id, seq, to_move, until, clock), None, [])
        now: dict[int, set[tuple[int, int]]] = {}
        for user_id, game_id, seq in turns:
            now.setdefault(user_id, set()).add((game_id, seq))
        local, self._local_turns = self._local_turns, set()
        watched_users = set(self.hub.watched()[1])
        for user_id in watched_users:
            current = now.get(user_id, set())
            before = self._turns.get(user_id)
            if before is not None:  # a user watched since the last look: only what is new since then
                for game_id, seq in sorted(current - before - local):
                    self.hub.publish_user(user_id, {"type": "turn", "game": game_id, "seq": seq})
                ended = {g for g, _ in before} - {g for g, _ in current}
                if ended:  # a wait ended elsewhere (another process, another tab): the tabs re-count
                    self.hub.publish_user(user_id, {"type": "waiting", "game": min(ended), "seq": 0})
            self._turns[user_id] = current
        for user_id in list(self._turns):
            if user_id not in watched_users:
                del self._turns[user_id]
