"""Undo: a player takes back their own last action, stored as an entry of its own.

Nothing is deleted: the action stays in the game's rows and an ``undo`` row
follows it, so the stored record replays (`ludothek.engine.replay`) to exactly
the position on the board.  Whether an undo is allowed is the engine's
decision (`ludothek.engine.State.undo_refusal`): only the seat's own last
action, with no chance outcome drawn and no other seat's move since.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ludothek.engine import UNDO, IllegalAction

from .errors import BadRequest, Conflict, Forbidden
from .info import GameEvent, GameInfo
from .models import utcnow
from .play import PlayStore
from .tracked import Tracked


class UndoRefused(Conflict):
    """The engine does not allow this undo now (someone acted since, a chance outcome was drawn ...)."""

    code = "undo_refused"


class UndoStore(PlayStore):
    """Taking back one's own last action."""

    def undo_as(
        self, game_id: int, user_id: int, seq: int, after: Callable[[GameInfo, Tracked], None] | None = None
    ) -> GameEvent:
        """`undo` for the seat ``user_id`` plays; `Forbidden` if they do not play in this game."""
        info = self.game(game_id)
        seat = info.seat_of(user_id)
        if seat is None:
            raise Forbidden("you do not play in this game", code_key="not_seated")
        return self.undo(game_id, seat, seq, after=after)

    def undo(
        self, game_id: int, seat: int, seq: int, *, after: Callable[[GameInfo, Tracked], None] | None = None
    ) -> GameEvent:
        """Take back ``seat``'s last action, against sequence number ``seq`` (the position the player saw).

        Refusals (nothing is written): `StaleMove` when the game moved on,
        `UndoRefused` (409) when the engine does not allow it, `Conflict` when
        the game is not running.
        """
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise BadRequest("seq must be a whole number: the sequence number you saw")
        with self._lock(game_id):
            info = self.game(game_id)
            self._check_current(info, seq, "undo")
            tracked = self._load_state(info)
            try:
                tracked.undo(seat)
            except IllegalAction as exc:
                raise UndoRefused(f"you cannot undo now: {exc}", code_key="undo_refused") from None
            state = tracked.state
            to_move = state.current_player()
            now = utcnow()
            try:
                self._write_move(game_id, seq, [(seat, UNDO)], to_move, state, now, info, seat)
            except BaseException:
                self._cache_drop(game_id)
                raise
            if after is not None:
                after(dataclasses.replace(info, seq=seq + 1, to_move=to_move, turn_since=now), tracked)
        event = GameEvent(game_id, seq + 1, to_move, "running", info.is_bot_seat(to_move))
        self._notify(event)
        return event
