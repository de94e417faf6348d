"""The bot worker: plays every pending bot turn, in a process of its own (``ludothek bots``).

Bots think outside the web server: a 2-second `hard` decision runs here, at a
lower CPU priority (``nice``), so no person's move waits for it.  Any number of
bot workers may run against one database, on any machine: each turn is claimed
in the database (`ludothek.storage.botturns`) and played exactly once; a turn
whose worker died is played by another once the claim's lease runs out.

One worker thinks about one turn at a time (Python threads do not think in
parallel), oldest waiting turn first, so a thousand bot games share it fairly
and a bots-only game plays itself to the end.  More workers, more turns at once.

How the seats hear of the bot's move: the worker's store publishes it like a
server does, through Redis when the deployment has it; without Redis (one
server on SQLite) the server notices the move in the database
(`ludothek.portal.live.dbwatch`).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable
from datetime import UTC, datetime

from ludothek.bots.fallback import safe_bot
from ludothek.engine import State
from ludothek.services import Site
from ludothek.services.bots import Choose
from ludothek.services.tracked import CHANCE_RNG
from ludothek.storage import GameEvent
from ludothek.storage.botturns import BotTurn

log = logging.getLogger("ludothek.bots")


def utcnow() -> datetime:
    return datetime.now(UTC)


def thinker(nice: int = 0) -> Choose:
    """The bots' thinking: a named bot behind the fallback chain (a bot that fails or overruns 5× its
    budget gives way to `medium`, then `random`), in threads ``nice`` lower than the caller."""

    def choose(bot_name: str, state: State) -> str:
        return safe_bot(bot_name, nice=nice).choose(state, CHANCE_RNG)

    return choose


def play_bot_turn(site: Site, turn: BotTurn, nice: int = 0) -> bool:
    """Think about the claimed turn and store the move with ``site.play.submit``; ``False`` if the game
    had moved on meanwhile.  The bot thinks on a copy, outside the game's lock, ``nice`` lower than
    the caller, which stores the move at its own priority."""
    return site.bots.play_turn(turn, thinker(nice))


def bot_step(site: Site, game_id: int) -> bool:
    """Play one move for the bot whose turn it is, here and now (tests, tools); ``False`` when none is to move.

    Claims the turn like a worker would, so it never plays a turn a worker holds.
    """
    return site.bots.step(game_id, thinker())


def worker_name() -> str:
    """A name unique to this worker (machine, process, a random tail): what a claim records."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(3)}"


class BotWorker:
    """Claims and plays pending bot turns until stopped.

    ``nice``: the bots think in threads that much lower in CPU priority (Linux), while the
    worker's own thread claims and stores at normal priority: a starved thinker then never
    holds a database lock (SQLite's one writer) that a server waits for.  ``delay``: the pause a person needs to follow a bot (seconds after the seat
    started waiting).  ``interval``: the longest it sleeps before looking at the
    database again when nothing is due (new turns from other processes).
    """

    name = "bots"

    def __init__(self, site: Site, delay: float = 0.4, interval: float = 0.25,
                 owner: str | None = None, clock: Callable[[], datetime] = utcnow, nice: int = 0,
                 follow_tables: bool = True) -> None:
        self.site = site
        #: How much lower the bots think than this worker claims and stores (``ludothek bots``: 10).
        self.nice = nice
        self.delay = delay
        self.interval = interval
        self.owner = owner or worker_name()
        self.clock = clock
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._current: BotTurn | None = None
        #: Turns this worker has played (logs, tests).
        self.played = 0
        #: The last turn claimed from the queue (the table `follow` plays on at).
        self._last: BotTurn | None = None
        #: Play a table's bots through to its person before taking another table's turn (`follow`).
        self.follow_tables = follow_tables

    def play(self, turn: BotTurn) -> bool:
        """Think about a claimed turn and store its move (`play_bot_turn`)."""
        return play_bot_turn(self.site, turn, nice=self.nice)

    def run_once(self, now: datetime | None = None) -> int:
        """Claim one due bot turn and play it; 1 if a turn was claimed, else 0."""
        turn = self.site.bots.claim_bot_turn(self.owner, now or self.clock(), self.delay)
        self._last = turn
        if turn is None:
            return 0
        self._play_claimed(turn)
        return 1

    def _play_claimed(self, turn: BotTurn) -> bool:
        """Play a claimed turn; ``True`` when its move was stored."""
        self._current = turn
        try:
            if self.play(turn):
                self.played += 1
                return True
            # Not played: the game moved on, or its seats or clocks changed at the same move (a
            # resignation, a vacation).  Give the claim back, so the turn is thought about again at
            # once, not after the lease.
            self.site.bots.release_bot_turn(self.owner, turn)
        except Exception:
            # The claim stays until its lease runs out, then any worker tries again.
            log.exception("bot turn failed in game %s at move %s", turn.game_id, turn.seq)
        finally:
            self._current = None
        return False

    def follow(self, game_id: int) -> int:
        """Play the table's next bot turns, each after its pause, until a person is to move there.

        Why (issue 29): a person waits for the bots before them in turn order, three `hard` bots in Roll
        Through the Ages being some seven decisions.  A worker that went back to the queue after each
        decision took the turn that had waited longest, the next bot of another table as often as not,
        so every table advanced one decision at a time in turn with all the others and each person also
        waited while the workers thought for other tables.  Following the table keeps the person's wait
        to their own bots once a worker has taken them on; the other workers serve the other tables,
        the longest-waiting first.  A table without people is never followed (`claim_next_at_table`).
        Returns how many turns it played.
        """
        played = 0
        while not self._stop.is_set():
            wait = self.site.bots.next_at_table_due(game_id, self.clock(), self.delay)
            if wait is None:
                return played
            if wait > 0 and self._stop.wait(wait):
                return played
            turn = self.site.bots.claim_next_at_table(self.owner, game_id, self.clock(), self.delay)
            if turn is None or not self._play_claimed(turn):
                return played  # another worker took it, or the game moved on meanwhile
            played += 1
        return played

    def run_forever(self) -> None:
        busy = False
        while not self._stop.is_set():
            try:
                # Just played one: while turns keep coming, claiming is the only query (it finds the next).
                if busy and self.run_once():
                    self._follow_last()
                    continue
                busy = False
                # One query while idle: is any turn pending, and when is the first one due?
                wait = self.site.bots.next_bot_turn_due(self.clock(), self.delay)
                if wait is not None and wait <= 0:
                    if self.run_once():
                        self._follow_last()
                        busy = True
                        continue
                    wait = 0.005  # another worker took it first: look again at once
            except Exception:
                log.exception("the bot worker could not read the database; trying again")
                wait, busy = None, False
            pause = self.interval if wait is None else min(max(wait, 0.005), self.interval)
            self._wake.wait(pause)
            self._wake.clear()

    def _follow_last(self) -> None:
        """After a turn claimed from the queue: play on at its table while a person waits there (`follow`)."""
        turn = self._last
        if turn is not None and self.follow_tables:
            self.follow(turn.game_id)

    def wake(self) -> None:
        """Look for a turn now (a move in this process made it a bot's turn)."""
        self._wake.set()

    def on_event(self, event: GameEvent) -> None:
        """Site listener, when the worker shares a process with the site's writers: wake at once."""
        if event.bot_to_move and event.status == "running":
            self._wake.set()

    def idle(self) -> bool:
        """Nothing being played and no bot turn pending (tests wait for this)."""
        return self._current is None and self.site.bots.count_pending_bot_turns() == 0

    # ---------------------------------------------------------------- as a thread (tests, embedding)
    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self.run_forever, name="ludothek-bots", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the turn in hand (a bot answers within its fallback budget), then stop."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)

    def release(self) -> None:
        """Give back the turn in hand unplayed (the process is being stopped mid-thought)."""
        turn = self._current
        if turn is not None:
            try:
                self.site.bots.release_bot_turn(self.owner, turn)
            except Exception:
                log.exception("could not release the claim on game %s", turn.game_id)
