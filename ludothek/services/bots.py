"""Bot turns: claimed through storage (`ludothek.storage.botturns`), played through `Play.submit`.

The thinking is not here: whoever plays a turn passes the function that chooses the action
(`ludothek.workers.bots`), so that services never run a bot and a bot's move is stored by the same
function as a person's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from ludothek.engine import State
from ludothek.storage.botturns import LEASE, BotTurn, BotTurnQueue
from ludothek.storage.errors import Conflict, StaleMove
from ludothek.storage.games import Games
from ludothek.storage.info import GameInfo
from ludothek.storage.models import utcnow

from .play import Play

#: Chooses a bot's action: ``choose(bot name, a copy of the state)``.
Choose = Callable[[str, State], str]

#: Told when a bot starts thinking (a claim, ``turn.until`` set) and when it gives a turn back unplayed
#: (``turn.until`` is ``None``): the live updates show it on the bot's panel.  The move that ends the
#: thinking is announced as every move is (`ludothek.services.runtime.Listeners`).
ThinkingListener = Callable[[BotTurn], None]


class BotTurns:
    """Finding, claiming and playing bot turns (the bot workers' side, `ludothek.workers.bots`)."""

    def __init__(self, queue: BotTurnQueue, games: Games, play: Play) -> None:
        self.queue = queue
        self.games = games
        self.play = play
        #: Told of every claim and every claim given back in this process (`ThinkingListener`).
        self.thinking_listeners: list[ThinkingListener] = []

    def _thinking(self, turn: BotTurn) -> None:
        for listener in list(self.thinking_listeners):
            listener(turn)

    def count_pending_bot_turns(self, now: datetime | None = None) -> int:
        """How many bot turns wait for a worker (the ``ludothek_bot_queue`` gauge)."""
        return self.queue.count_pending_bot_turns(now)

    def next_bot_turn_due(self, now: datetime, delay: float) -> float | None:
        """Seconds until the earliest pending bot turn may be played (0: now); ``None``: none pending."""
        return self.queue.next_bot_turn_due(now, delay)

    def claim_bot_turn(self, owner: str, now: datetime, delay: float = 0.0,
                       lease: timedelta = LEASE) -> BotTurn | None:
        """Claim the pending bot turn that has waited longest (`BotTurnQueue.claim_bot_turn`) and say
        that its bot is thinking."""
        turn = self.queue.claim_bot_turn(owner, now, delay, lease)
        if turn is not None:
            self._thinking(turn)
        return turn

    def claim_next_at_table(self, owner: str, game_id: int, now: datetime, delay: float,
                            lease: timedelta = LEASE) -> BotTurn | None:
        """Claim the next bot turn of the game ``owner`` has just played in, if a person waits at that
        table behind it; ``None`` when a person is to move, nobody is seated there, the turn is not due
        yet (``delay`` after it began) or another worker holds it.

        A worker that plays a person's bots through to the person (`BotWorker.follow`) never makes that
        person wait while it thinks for another table; a table without people is not followed, so it
        cannot hold a worker for a whole game.
        """
        info = self.games.game(game_id)
        if not self._followable(info):
            return None
        if info.turn_since is not None and info.turn_since + timedelta(seconds=delay) > now:
            return None
        if not self.queue.claim_game(owner, game_id, info.seq, now, lease):
            return None
        turn = BotTurn(game_id, info.seq, info.to_move, now + lease)
        self._thinking(turn)
        return turn

    @staticmethod
    def _followable(info: GameInfo) -> bool:
        """A running game whose seat to move is a bot, with a person seated behind it (`claim_next_at_table`)."""
        return (info.status == "running" and info.is_bot_seat(info.to_move)
                and any(s.kind == "player" for s in info.seats))

    def next_at_table_due(self, game_id: int, now: datetime, delay: float) -> float | None:
        """Seconds until the next bot turn of ``game_id`` may be claimed by `claim_next_at_table` (0: now),
        ``None`` when there is none to follow (a person is to move, the game is over, nobody is seated)."""
        info = self.games.game(game_id)
        if not self._followable(info):
            return None
        if info.turn_since is None:
            return 0.0
        return max(0.0, (info.turn_since + timedelta(seconds=delay) - now).total_seconds())

    def release_bot_turn(self, owner: str, turn: BotTurn) -> None:
        """Give a claim back unplayed (a worker stopping): another worker may take the turn at once."""
        self.queue.release_bot_turn(owner, turn)
        self._thinking(BotTurn(turn.game_id, turn.seq, turn.seat, None))

    def play_turn(self, turn: BotTurn, choose: Choose) -> bool:
        """Let ``choose`` pick the claimed turn's action and store it with `Play.submit`; ``False`` if the
        game had moved on meanwhile.

        ``choose`` thinks on a copy, outside the game's lock.
        """
        with self.play.state(turn.game_id) as (info, tracked):
            if (tracked is None or info.status != "running" or info.seq != turn.seq
                    or not info.is_bot_seat(info.to_move)):
                return False
            seat = info.to_move
            bot_name = next(s for s in info.seats if s.seat == seat).bot or "random"
            state: State = tracked.state.clone()
        action = choose(bot_name, state)
        try:
            self.play.submit(turn.game_id, action, turn.seq, seat=seat)
        except StaleMove:
            return False  # someone else stored a move first, or the seats or clocks changed meanwhile
        except Conflict:
            if self.games.game(turn.game_id).status == "running":
                raise
            return False  # the game ended meanwhile (an administrator, an abandonment vote)
        return True

    def step(self, game_id: int, choose: Choose) -> bool:
        """Play one move for the bot whose turn it is, here and now (tests, tools); ``False`` when none is to move.

        Claims the turn like a worker would, so it never plays a turn a worker holds.
        """
        info = self.games.game(game_id)
        if info.status != "running" or not info.is_bot_seat(info.to_move):
            return False
        now = utcnow()
        if not self.queue.claim_game("bot_step", game_id, info.seq, now):
            return False
        turn = BotTurn(game_id, info.seq, info.to_move, now + LEASE)
        self._thinking(turn)
        self.play_turn(turn, choose)
        return True
