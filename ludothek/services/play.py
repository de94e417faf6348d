"""Play: states rebuilt from records, moves stored with optimistic concurrency, and undo.

**One move path.** `Play.submit` is the only function that stores a move: pages, the API (also its
hot path) and the bot workers all call it.  Inside it, one apply (`Play._apply`): the position
comes from the state cache when the cache can vouch for it (the cached summary's seats and a cached
state at exactly the move named), else from the database; where the cached position refuses the
move, the refusal is computed against the database's position, so its code and text are those of a
request that found no cache.  The move is then written by the `MoveWriter` of the database's
dialect (`ludothek.storage.moves`), chosen once when the site is built.

Undo is not a move: it has its own path (`Play.undo`), written by the same writer.  Nothing is
deleted: the action stays in the game's rows and an ``undo`` row follows it, so the stored record
replays (`ludothek.engine.replay`) to exactly the position on the board.  Whether an undo is
allowed is the engine's decision (`ludothek.engine.State.undo_refusal`): only the seat's own last
action, with no chance outcome drawn and no other seat's move since; and the turn must not have been
handed on (`ludothek.services.handover`: after a person's turn ends it waits for their confirmation or a
grace period, `Play.hand_on`, before the next turn's chance steps are drawn and the next seat may move).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update

from ludothek import engine as eng
from ludothek.engine import CHANCE, TERMINAL, UNDO, IllegalAction
from ludothek.storage.database import Database
from ludothek.storage.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    IllegalMove,
    NotYourTurn,
    SeatTakenOver,
    StaleMove,
)
from ludothek.storage.games import Games
from ludothek.storage.info import GameEvent, GameInfo
from ludothek.storage.models import ActionRow, User, utcnow
from ludothek.storage.moves import MoveWriter, stale_move
from ludothek.storage.text import check_text
from ludothek.storage.timecontrol import placed_last

from .handover import check_grace, hands_on, pending_refusal, resolve_own_chance, undo_refusal
from .runtime import GameLocks, Listeners, StateCache
from .tracked import Tracked, resolve_chance, undone_rows

if TYPE_CHECKING:
    from .snapkeeper import SnapshotKeeper

#: The longest action any game writes, with room to spare (the API refuses longer ones with 422).
MAX_ACTION = 200


class UndoRefused(Conflict):
    """The engine does not allow this undo now (someone acted since, a chance outcome was drawn ...)."""

    code = "undo_refused"


class Play:
    """Running games: their states, records, moves and undos."""

    def __init__(self, db: Database, games: Games, states: StateCache, locks: GameLocks, listeners: Listeners,
                 writer: MoveWriter) -> None:
        self.db = db
        self.games = games
        self.states = states
        self.locks = locks
        self.listeners = listeners
        self.writer = writer
        #: Queue "your turn" and "game over" mails in the outbox with every move (off only for benchmarks).
        self.mail_on_moves = True
        #: Seconds a person's ended turn waits for their confirmation when they chose no grace period
        #: of their own (`ludothek.services.handover`); 0 hands on at once.  The portal sets its default.
        self.default_grace = 0
        self._grace_sql = f"SELECT handover_seconds FROM users WHERE id = {db.mark}"
        #: Restores cold games from snapshots and writes them (`ludothek.services.snapkeeper`; the site sets it).
        self.snapshots: SnapshotKeeper | None = None
        mark = db.mark
        self._catch_up_sql = (f"SELECT seq, seat, action FROM actions WHERE game_id = {mark} AND seq >= {mark} "
                              f"AND seq < {mark} ORDER BY seq")

    @staticmethod
    def _move_mails(info: GameInfo, seat: int, to_move: int) -> list[tuple[int, str, str]]:
        """The outbox rows a move causes: ``(user id, kind, payload)``.

        "turn" for the human seat that is to move now, if another seat moved;
        "ended" for every human player when the game is over.  Whether anybody
        wants them is the sender's business (the move path stays one INSERT).
        """
        if to_move >= 0:
            if to_move == seat:
                return []
            s = info.seats[to_move] if to_move < len(info.seats) else None
            if s is None or s.kind != "player" or s.user_id is None:
                return []
            return [(s.user_id, "turn", f'{{"by": {seat}}}')]
        if to_move == TERMINAL:
            return [(s.user_id, "ended", "{}") for s in info.seats if s.kind == "player" and s.user_id is not None]
        return []

    def _load_state(self, info: GameInfo) -> Tracked:
        """The game after ``info.seq`` actions: from the cache when it is current, else by replay."""
        with self.states.lock:
            tracked = self.states.entries.get(info.id)
            if tracked is not None:
                self.states.entries.move_to_end(info.id)
        if tracked is not None:
            known = tracked.state.move_number()
            if known == info.seq:
                return tracked
            try:
                if known < info.seq and self._catch_up(info, tracked, known):
                    return tracked
            finally:
                if tracked.state.move_number() != info.seq:  # refused, failed or half applied: replay
                    self.states.drop(info.id)
        # Issue 34: from the game's snapshot and the rows after it, when it has a usable one.
        tracked = self.snapshots.restore(info) if self.snapshots is not None else None
        if tracked is not None:
            self.states.put(info.id, tracked)
            return tracked
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(ActionRow.seat, ActionRow.action)
                .where(ActionRow.game_id == info.id, ActionRow.seq < info.seq)
                .order_by(ActionRow.seq)
            ).all()
        tracked = Tracked(eng.initial_state(self.record_of(info, [])), info.seat_names())
        undone = undone_rows([(r.seat, r.action) for r in rows])
        for index, r in enumerate(rows):
            try:
                tracked.apply(r.seat, r.action, keep_before=index in undone)
            except IllegalAction as exc:
                raise eng.ReplayError(
                    f"game {info.id}: stored action {index + 1} ({r.action!r}) does not apply: {exc}", index, r.action
                ) from exc
        self.states.put(info.id, tracked)
        if self.snapshots is not None:
            self.snapshots.replayed(info, tracked)
        return tracked

    def _catch_up(self, info: GameInfo, tracked: Tracked, known: int) -> bool:
        """Bring a cached game that is behind (another process or a bot worker moved) up to ``info.seq``
        by applying only the actions stored since, instead of replaying the whole game.

        Stored actions are never changed or removed (an undo is an entry of its own), so the cached
        position is a prefix of the stored game.  ``False`` (the caller replays from the start) when the
        rows do not fit; the cached state may then be half updated and must be dropped.
        """
        sql = self._catch_up_sql
        rows = self.db.single(sql, (info.id, known, info.seq), rows=True)
        if len(rows) != info.seq - known:
            return False
        try:
            for seq, seat, action in rows:
                if seq != tracked.state.move_number():
                    return False
                tracked.apply(seat, action)
        except IllegalAction:
            return False
        return True

    @staticmethod
    def record_of(info: GameInfo, actions: Sequence[tuple[int, str]]) -> dict[str, Any]:
        game = eng.load(info.game)
        return {
            "format": eng.RECORD_FORMAT,
            "game": info.game,
            "rules_version": game.rules_version,
            "players": info.num_players,
            "options": dict(info.options),
            "actions": [{"seat": "chance" if s == CHANCE else s, "action": a} for s, a in actions],
        }

    @contextmanager
    def state(self, game_id: int) -> Iterator[tuple[GameInfo, Tracked | None]]:
        """The game and its current state and log, held under the game's lock (read-only use!).

        ``None`` for a game that has not started (or was cancelled); an abandoned game has the
        state it stopped at.
        """
        with self.locks.get(game_id):
            info = self.games.game(game_id)
            if info.status != "running" and not info.over:
                yield info, None
                return
            yield info, self._load_state(info)

    def record(self, game_id: int, viewer: int | str | None = "all") -> dict[str, Any]:
        """The game's record; for a viewer other than ``"all"``, secrets are replaced by ``"?"``."""
        with self.state(game_id) as (info, tracked):
            if tracked is None:
                raise Conflict("the game has not started yet", code_key="not_started")
            state = tracked.state
            rec = eng.record(state, id=info.id, players=[s.name for s in info.seats])
            if viewer != "all":
                rec["actions"] = [
                    {"seat": "chance" if e.seat == CHANCE else e.seat, "action": e.action}
                    for e in state.history(viewer)
                ]
                rec["redacted"] = any(a["action"] == eng.HIDDEN_ACTION for a in rec["actions"])
            return rec

    # ------------------------------------------------------------------ moves

    def submit_as(
        self, game_id: int, user_id: int, action: str, seq: int,
        after: Callable[[GameInfo, Tracked], None] | None = None,
    ) -> GameEvent:
        """`submit` for the seat ``user_id`` plays; `Forbidden` if they do not play in this game."""
        return self.submit(game_id, action, seq, user_id=user_id, after=after)

    def submit(
        self, game_id: int, action: str, seq: int, *, user_id: int | None = None, seat: int | None = None,
        after: Callable[[GameInfo, Tracked], None] | None = None,
    ) -> GameEvent:
        """Apply ``action`` for ``seat`` (or the seat ``user_id`` plays) against sequence number ``seq``,
        plus the chance outcomes after it: the one function that stores a move.

        The caller has already established that ``seat`` belongs to whoever sends
        the move (or passes ``user_id`` to have it looked up).  ``after(info, tracked)``
        is called with the new position while the game is still locked.
        Refusals: `StaleMove`, `NotYourTurn`, `IllegalMove`, `Conflict`.
        """
        if not isinstance(action, str) or not action or len(action) > MAX_ACTION:
            raise BadRequest(f"an action is a non-empty string of at most {MAX_ACTION} characters")
        check_text(action, "the action")
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise BadRequest("seq must be a whole number: the sequence number you saw")
        with self.locks.get(game_id):
            info, tracked, mover = self._apply(game_id, seat, action, seq, user_id)
            state = tracked.state
            try:
                # The chance steps of the mover's own turn at once; those of the next turn wait while
                # the turn's hand-over is pending (`ludothek.services.handover`).
                new = [(mover, action), *resolve_own_chance(tracked, mover)]
                now = utcnow()
                handover = None
                if hands_on(state, mover):
                    grace = self.grace(info, mover)
                    if grace > 0:
                        handover = (mover, now + timedelta(seconds=grace))
                    else:
                        new += resolve_chance(tracked)
                to_move = state.current_player() if handover is None else CHANCE
                # In the order of the users' ids: a mail's row share-locks its user until the commit, and
                # a game's end locks its players in that order (`MoveWriter.transaction`).
                mails = sorted(self._move_mails(info, mover, to_move)) if self.mail_on_moves else []
                if not self.writer.write(game_id, seq, new, to_move, state, now, info, mover, mails,
                                         handover=handover):
                    self._refuse_lost_seat(game_id, seq, info, mover)
                    raise stale_move(seq)
            except BaseException:
                # The cached state already holds the move: forget it, the next access replays.
                self.states.drop(game_id)
                raise
            status = "finished" if to_move == TERMINAL else "running"
            if status == "finished":
                self.games.info_cache.pop(game_id, None)
            if after is not None:
                # The mover's answer, built from the state just stored (saves reading it back).
                result = (placed_last(state.result_json(), {s.seat: s.left_as for s in info.seats if s.left_as})
                          if status == "finished" else None)
                after(dataclasses.replace(info, seq=seq + len(new), to_move=to_move, status=status,
                                          turn_since=now, result=result,
                                          handover_seat=handover[0] if handover else None,
                                          handover_due=handover[1] if handover else None), tracked)
        event = GameEvent(game_id, seq + len(new), to_move, status, info.is_bot_seat(to_move), mover)
        self.listeners.notify(event)
        return event

    def _apply(
        self, game_id: int, seat: int | None, action: str, seq: int, user_id: int | None
    ) -> tuple[GameInfo, Tracked, int]:
        """The one apply: the position the move names, the checks of turn, move number and legality,
        and the action applied to the game's (cached) state; under the game's lock.

        The cached position is used when the cache can vouch for it: the running game's summary is
        cached and its cached state is at exactly move ``seq``.  That skips reading the game row
        first: the optimistic write that follows (``... WHERE seq = ?``) is what proves the position
        is still current, also against other server processes.  Where the cache cannot vouch for
        the move, or its position refuses it, the database's position is read and gives the
        precise refusal, exactly as a request that found no cache.
        """
        info = self.games.info_cache.get(game_id)
        if info is not None:
            states = self.states
            with states.lock:
                tracked = states.entries.get(game_id)
                if tracked is not None:
                    states.entries.move_to_end(game_id)
            if tracked is not None and tracked.state.move_number() == seq:
                cached_seat = info.seat_of(user_id) if user_id is not None else seat
                if cached_seat is not None and tracked.state.current_player() == cached_seat:
                    try:
                        tracked.apply(cached_seat, action)  # an illegal action raises before anything changes
                        return info, tracked, cached_seat
                    except IllegalAction:
                        pass
        info = self.games.game(game_id)
        if user_id is not None:
            seat = info.seat_of(user_id)
            if seat is None:
                raise Forbidden("you do not play in this game", code_key="not_seated")
        self._check_current(info, seq, "move")
        if info.handover_seat is not None:
            raise pending_refusal(info)
        if seat is None or info.to_move != seat:
            raise NotYourTurn("it is not your turn", code_key="not_your_turn")
        tracked = self._load_state(info)
        try:
            tracked.apply(seat, action)
        except IllegalAction as exc:
            raise IllegalMove(f"illegal action {action!r}: {exc}", action=action) from None
        return info, tracked, seat

    @staticmethod
    def _check_current(info: GameInfo, seq: int, what: str) -> None:
        """Refuse a ``what`` ("move", "undo") unless the game runs and is at move ``seq``."""
        if info.status in ("finished", "abandoned"):
            raise Conflict("the game is over", code_key="game_over")
        if info.status != "running":
            raise Conflict("the game has not started", code_key="not_started")
        if seq != info.seq:
            raise StaleMove(
                f"stale {what}: it was made against move {seq}, but the game is at move {info.seq}; "
                "reload to see what happened",
                sent=seq, current=info.seq,
            )

    def _refuse_lost_seat(self, game_id: int, seq: int, info: GameInfo, mover: int, what: str = "move") -> None:
        """After a refused write at an unchanged move number: say plainly what changed.

        ``seats_rev`` changes when a seat changes hands (a timeout, a resignation) and when the
        clocks change (a vacation, an administrator): either refuses a move being stored meanwhile.
        If the mover's own seat is no longer theirs, that is final (`SeatTakenOver`); otherwise the
        move was fine and only met the change, so it is a `StaleMove` that may simply be sent again.
        """
        self.games.info_cache.pop(game_id, None)
        now_info = self.games.full(game_id)
        self._check_current(now_info, seq, "move")  # over (an administrator, a vote), or another move came first
        if what == "move" and now_info.handover_seat is not None:
            raise pending_refusal(now_info)  # a move that met a turn waiting for its confirmation
        if now_info.seats_rev == info.seats_rev:
            return
        before = next((s for s in info.seats if s.seat == mover), None)
        after = next((s for s in now_info.seats if s.seat == mover), None)
        if before is None or after is None or (after.kind, after.user_id) != (before.kind, before.user_id):
            raise SeatTakenOver("a bot plays this seat now (timed out or resigned); your move was not stored",
                                code_key="seat_taken_over")
        raise StaleMove("the game's seats or clocks changed while your move was being stored; it was not stored: "
                        "send it again", code_key="stale_seats", sent=seq, current=seq)

    # ------------------------------------------------------------------ undo

    def undo_as(
        self, game_id: int, user_id: int, seq: int, after: Callable[[GameInfo, Tracked], None] | None = None
    ) -> GameEvent:
        """`undo` for the seat ``user_id`` plays; `Forbidden` if they do not play in this game."""
        info = self.games.game(game_id)
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
        with self.locks.get(game_id):
            info = self.games.game(game_id)
            self._check_current(info, seq, "undo")
            tracked = self._load_state(info)
            with eng.naming(info.seat_names()):
                reason = undo_refusal(info, tracked.state, seat)
            if reason is not None:
                raise UndoRefused(f"you cannot undo now: {reason}", code_key="undo_refused")
            try:
                tracked.undo(seat)
            except IllegalAction as exc:
                raise UndoRefused(f"you cannot undo now: {exc}", code_key="undo_refused") from None
            state = tracked.state
            to_move = state.current_player()
            now = utcnow()
            try:
                # Against the hand-over it saw: a hand-on (a confirmation in another tab, the clock job)
                # that came first makes this write fail, and the turn stays handed on.
                if not self.writer.write(game_id, seq, [(seat, UNDO)], to_move, state, now, info, seat,
                                         handover_was=info.handover_seat):
                    self._refuse_lost_seat(game_id, seq, info, seat, "undo")
                    if self.games.game(game_id).handover_seat != info.handover_seat:
                        raise UndoRefused("you cannot undo now: your turn has been handed on",
                                          code_key="undo_refused")
                    raise stale_move(seq)
            except BaseException:
                self.states.drop(game_id)
                raise
            if after is not None:
                after(dataclasses.replace(info, seq=seq + 1, to_move=to_move, turn_since=now, handover_seat=None,
                                          handover_due=None), tracked)
        event = GameEvent(game_id, seq + 1, to_move, "running", info.is_bot_seat(to_move), seat)
        self.listeners.notify(event)
        return event

    # ------------------------------------------------------------------ handing a turn on

    def grace(self, info: GameInfo, seat: int) -> int:
        """Seconds ``seat``'s ended turn waits for its confirmation: 0 for a bot, else the person's own
        setting or the site's default (`ludothek.services.handover`)."""
        s = next((x for x in info.seats if x.seat == seat), None)
        if s is None or s.kind != "player" or s.user_id is None:
            return 0
        row = self.db.read_one(self._grace_sql, (s.user_id,))
        chosen = row[0] if row is not None else None
        return int(self.default_grace if chosen is None else chosen)

    def grace_setting(self, user_id: int) -> tuple[int | None, int]:
        """The grace period ``user_id`` chose (None: none) and the one in force for them (`grace`)."""
        row = self.db.read_one(self._grace_sql, (user_id,))
        chosen = None if row is None or row[0] is None else int(row[0])
        return chosen, self.default_grace if chosen is None else chosen

    def set_grace(self, user_id: int, seconds: int | None) -> None:
        """Choose how long ``user_id``'s ended turns wait for their confirmation (`GRACE_CHOICES`; None: the
        site's default).  Turns already waiting keep the time they were given."""
        value = None if seconds is None else check_grace(seconds)
        with self.db.engine.begin() as conn:
            conn.execute(update(User).where(User.id == user_id).values(handover_seconds=value))

    def confirm_as(self, game_id: int, user_id: int, seq: int,
                   after: Callable[[GameInfo, Tracked], None] | None = None) -> GameEvent:
        """`confirm` for the seat ``user_id`` plays; `Forbidden` if they do not play in this game."""
        info = self.games.game(game_id)
        seat = info.seat_of(user_id)
        if seat is None:
            raise Forbidden("you do not play in this game", code_key="not_seated")
        return self.confirm(game_id, seat, seq, after=after)

    def confirm(self, game_id: int, seat: int, seq: int, *,
                after: Callable[[GameInfo, Tracked], None] | None = None) -> GameEvent:
        """``seat`` confirms its turn, seen at sequence number ``seq``: the turn is handed on now.

        Refusals (nothing changes): `StaleMove` when the game moved on, `Conflict` ``nothing_to_confirm``
        when no hand-over of ``seat`` is pending (already handed on: by the clock job, another tab).
        """
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise BadRequest("seq must be a whole number: the sequence number you saw")
        event = self.hand_on(game_id, seat=seat, seq=seq, after=after)
        if event is None:
            raise Conflict("there is no turn of yours waiting to be confirmed", code_key="nothing_to_confirm")
        return event

    def hand_on(self, game_id: int, *, seat: int | None = None, seq: int | None = None,
                now: datetime | None = None, after: Callable[[GameInfo, Tracked], None] | None = None,
                ) -> GameEvent | None:
        """Hand on the pending turn of ``game_id``: draw the next turn's chance steps, start the next
        player's clock, queue the "your turn" mail, wake the bots and tell every seat.

        ``seat`` (a confirmation) must be the hand-over's seat; without it (the clock job) only a hand-over
        due at ``now`` is handed on.  ``None`` when there was nothing to hand on (none pending, not yet due,
        or another process handed it on first): the conditional write against the hand-over it saw makes
        it happen exactly once, also against an undo or a confirmation racing it.
        """
        with self.locks.get(game_id):
            info = self.games.game(game_id)
            if seq is not None:
                self._check_current(info, seq, "confirm")
            if info.status != "running" or info.handover_seat is None:
                return None
            if seat is not None and seat != info.handover_seat:
                return None
            now = now or utcnow()
            if seat is None and (info.handover_due is None or info.handover_due > now):
                return None
            tracked = self._load_state(info)
            state = tracked.state
            try:
                new = resolve_chance(tracked)
                to_move = state.current_player()
                mails = sorted(self._move_mails(info, info.handover_seat, to_move)) if self.mail_on_moves else []
                stored = self.writer.write(game_id, info.seq, new, to_move, state, now, info, CHANCE, mails,
                                           handover_was=info.handover_seat)
            except BaseException:
                self.states.drop(game_id)
                raise
            if not stored:
                if new:
                    self.states.drop(game_id)
                self.games.info_cache.pop(game_id, None)
                return None
            status = "finished" if to_move == TERMINAL else "running"
            if status == "finished":
                self.games.info_cache.pop(game_id, None)
            if after is not None:
                after(dataclasses.replace(info, seq=info.seq + len(new), to_move=to_move, status=status,
                                          turn_since=now, handover_seat=None, handover_due=None), tracked)
        event = GameEvent(game_id, info.seq + len(new), to_move, status, info.is_bot_seat(to_move),
                          info.handover_seat)
        self.listeners.notify(event)
        return event

    def hand_on_due(self, now: datetime | None = None, limit: int = 100) -> list[int]:
        """Hand on every turn whose grace period has ended (the clock job); the games handed on.

        Any number of processes may run this at once: each hand-over happens exactly once (`hand_on`).
        """
        now = now or utcnow()
        mark = self.db.mark
        rows = self.db.single(
            f"SELECT id FROM games WHERE status = 'running' AND handover_due IS NOT NULL AND handover_due <= {mark} "
            f"ORDER BY handover_due LIMIT {int(limit)}", (self.db.db_time(now),), rows=True)
        return [gid for (gid,) in rows if self.hand_on(gid, now=now) is not None]
