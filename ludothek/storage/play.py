"""Play: states rebuilt from records, moves stored with optimistic concurrency, bot steps."""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import select

from ludothek import engine as eng
from ludothek.engine import CHANCE, TERMINAL, IllegalAction, State

from .errors import (
    BadRequest,
    Conflict,
    Forbidden,
    IllegalMove,
    NotYourTurn,
    SeatTakenOver,
    StaleMove,
)
from .info import GameEvent, GameInfo
from .lobby import LobbyStore
from .models import ActionRow, utcnow
from .onetrip import move_statement
from .outbox import outbox_sql
from .rating_update import finish_game
from .text import check_text
from .timecontrol import clock_after_move, placed_last
from .tracked import Tracked, undone_rows

#: The longest action any game writes, with room to spare (the API refuses longer ones with 422).
log = logging.getLogger(__name__)

#: How often a move's transaction is written again after PostgreSQL broke a deadlock by refusing it.
DEADLOCK_RETRIES = 2

MAX_ACTION = 200

class PlayStore(LobbyStore):
    """Running games: their states, records and moves."""

    #: Queue "your turn" and "game over" mails in the outbox with every move (off only for benchmarks).
    mail_on_moves: bool = True

    @functools.cached_property
    def _outbox_sql(self) -> str:
        return outbox_sql("?" if self.engine.dialect.paramstyle == "qmark" else "%s")

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
        with self._cache_lock:
            tracked = self._cache.get(info.id)
            if tracked is not None:
                self._cache.move_to_end(info.id)
        if tracked is not None:
            known = tracked.state.move_number()
            if known == info.seq:
                return tracked
            try:
                if known < info.seq and self._catch_up(info, tracked, known):
                    return tracked
            finally:
                if tracked.state.move_number() != info.seq:  # refused, failed or half applied: replay
                    self._cache_drop(info.id)
        with self.engine.begin() as conn:
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
        self._cache_put(info.id, tracked)
        return tracked

    def _catch_up(self, info: GameInfo, tracked: Tracked, known: int) -> bool:
        """Bring a cached game that is behind (another process or a bot worker moved) up to ``info.seq``
        by applying only the actions stored since, instead of replaying the whole game.

        Stored actions are never changed or removed (an undo is an entry of its own), so the cached
        position is a prefix of the stored game.  ``False`` (the caller replays from the start) when the
        rows do not fit; the cached state may then be half updated and must be dropped.
        """
        sql = self._catch_up_sql
        rows = self._single(sql, (info.id, known, info.seq), rows=True)
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

    @functools.cached_property
    def _catch_up_sql(self) -> str:
        mark = self._mark
        return (f"SELECT seq, seat, action FROM actions WHERE game_id = {mark} AND seq >= {mark} AND seq < {mark} "
                "ORDER BY seq")

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
        with self._lock(game_id):
            info = self.game(game_id)
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
        return self.submit(game_id, None, action, seq, user_id=user_id, after=after)

    def submit(
        self, game_id: int, seat: int | None, action: str, seq: int, *, user_id: int | None = None,
        after: Callable[[GameInfo, Tracked], None] | None = None,
    ) -> GameEvent:
        """Apply ``action`` for ``seat`` against sequence number ``seq``, plus the chance outcomes after it.

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
        with self._lock(game_id):
            fast = self._fast_move(game_id, seat, action, seq, user_id)
            if fast is not None:
                info, tracked, seat = fast
            else:
                info = self.game(game_id)
                if user_id is not None:
                    seat = info.seat_of(user_id)
                    if seat is None:
                        raise Forbidden("you do not play in this game", code_key="not_seated")
                self._check_current(info, seq, "move")
                if seat is None or info.to_move != seat:
                    raise NotYourTurn("it is not your turn", code_key="not_your_turn")
                tracked = self._load_state(info)
                try:
                    tracked.apply(seat, action)
                except IllegalAction as exc:
                    raise IllegalMove(f"illegal action {action!r}: {exc}", action=action) from None
            state = tracked.state
            try:
                new = [(seat, action), *self._resolve_chance(tracked)]
                now = utcnow()
                to_move = state.current_player()
                # In the order of the users' ids: a mail's row share-locks its user until the commit, and
                # a game's end locks its players in that order (`_write_move_transaction`).
                mails = sorted(self._move_mails(info, seat, to_move)) if self.mail_on_moves else []
                self._write_move(game_id, seq, new, to_move, state, now, info, seat, mails)
            except BaseException:
                # The cached state already holds the move: forget it, the next access replays.
                self._cache_drop(game_id)
                raise
            status = "finished" if to_move == TERMINAL else "running"
            if status == "finished":
                self._info_cache.pop(game_id, None)
            if after is not None:
                # The mover's answer, built from the state just stored (saves reading it back).
                result = (placed_last(state.result_json(), {s.seat: s.left_as for s in info.seats if s.left_as})
                          if status == "finished" else None)
                after(dataclasses.replace(info, seq=seq + len(new), to_move=to_move, status=status,
                                          turn_since=now, result=result), tracked)
        event = GameEvent(game_id, seq + len(new), to_move, status, info.is_bot_seat(to_move))
        self._notify(event)
        return event

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

    def _fast_move(
        self, game_id: int, seat: int | None, action: str, seq: int, user_id: int | None
    ) -> tuple[GameInfo, Tracked, int] | None:
        """Apply the move to the cached state when that is exactly the position the move names.

        This skips reading the game row first: the optimistic write that follows
        (``... WHERE seq = ?``) is what proves the position is still current,
        also against other server processes.  ``None`` (nothing applied) when the
        cache cannot vouch for the move; the caller then reads the database and
        gives the precise refusal, exactly as without this shortcut.
        """
        info = self._info_cache.get(game_id)
        if info is None:
            return None
        with self._cache_lock:
            tracked = self._cache.get(game_id)
            if tracked is not None:
                self._cache.move_to_end(game_id)
        if tracked is None or tracked.state.move_number() != seq:
            return None
        if user_id is not None:
            seat = info.seat_of(user_id)
        if seat is None or tracked.state.current_player() != seat:
            return None
        try:
            tracked.apply(seat, action)  # an illegal action raises before anything changes
        except IllegalAction:
            return None
        return info, tracked, seat

    def _write_move(
        self, game_id: int, seq: int, new: Sequence[tuple[int, str]], to_move: int, state: State, now: datetime,
        info: GameInfo, mover: int,
        mails: Sequence[tuple[int, str, str]] = (),
    ) -> None:
        """Store the move and its chance outcomes against ``seq``: exactly one of concurrent writers wins.

        ``mails`` (see `_move_mails`) go into the outbox in the same transaction.

        Plain DB-API statements on a pooled connection: this runs for every move,
        and SQLAlchemy's statement and result machinery cost more than the SQL.
        """
        stale = StaleMove(
            "stale move: another move was stored first; reload to see what happened", sent=seq, current=seq + 1
        )
        when = self._db_time(now)
        deadline: datetime | None = None
        bank: tuple[int, float] | None = None
        if info.clock is not None:
            # A game with a time control: the next deadline (vacations read in their own short transaction).
            with self.engine.begin() as conn:
                deadline, bank = clock_after_move(conn, info, mover, to_move, now)
        if not self._sqlite and to_move != TERMINAL:
            # PostgreSQL, a move that does not end the game: one statement, one round trip.  The last
            # move of a game places the seats and rates the players (reads and writes): a transaction.
            if not self._write_move_one_trip(game_id, seq, new, to_move, when, deadline, bank, info, mails):
                self._refuse_lost_seat(game_id, seq, info, mover)
                raise stale
            return
        for attempt in range(DEADLOCK_RETRIES + 1):
            try:
                self._write_move_transaction(game_id, seq, new, to_move, state, when, deadline, bank, info, mails,
                                             stale, mover)
                return
            except self._deadlock_errors:
                if attempt == DEADLOCK_RETRIES:
                    raise
                log.warning("game %d: the database broke a deadlock by refusing this move's write; writing it again",
                            game_id)

    def _write_move_transaction(
        self, game_id: int, seq: int, new: Sequence[tuple[int, str]], to_move: int, state: State, when: Any,
        deadline: datetime | None, bank: tuple[int, float] | None, info: GameInfo,
        mails: Sequence[tuple[int, str, str]], stale: StaleMove, mover: int,
    ) -> None:
        """`_write_move` as one transaction: the last move of a game, SQLite, or a game with a bank of time.

        A game's end is one update of the game's row, and then it locks its players' rows before
        anything that refers to them (the mails, the counts): two endings that share players then
        wait for each other in one order, by id, and never each hold what the other needs
        (`rating_update.finish_game`).
        """
        raw = self.engine.raw_connection()
        try:
            cur = raw.cursor()
            try:
                due = None if deadline is None else self._db_time(deadline)
                result = None
                if to_move == TERMINAL:
                    result = placed_last(state.result_json(), {s.seat: s.left_as for s in info.seats if s.left_as})
                    cur.execute(self._move_finish_sql, (seq + len(new), to_move, when, due, "finished", when,
                                                        json.dumps(result), game_id, seq, info.seats_rev))
                else:
                    cur.execute(self._move_sql, (seq + len(new), to_move, when, due, game_id, seq, info.seats_rev))
                if cur.rowcount != 1:
                    raw.rollback()
                    self._refuse_lost_seat(game_id, seq, info, mover)
                    raise stale
                if result is not None:
                    # The seats' places and the ratings, in the transaction that ends the game.
                    finish_game(cur, self._mark, not self._sqlite, game_id, info.game, result,
                                {s.seat: s.user_id for s in info.seats}, when, also_lock=[m[0] for m in mails])
                cur.executemany(
                    self._insert_actions_sql,
                    [(game_id, seq + i, s, a, when) for i, (s, a) in enumerate(new)],
                )
                for user_id, kind, payload in mails:  # the outbox row(s), in the move's transaction
                    cur.execute(self._outbox_sql, (user_id, kind, game_id, seq + len(new), payload, when, when))
                if bank is not None:
                    cur.execute(self._bank_sql, (bank[1], game_id, bank[0]))
                raw.commit()
            except self._integrity_errors:
                raw.rollback()
                raise stale from None
            except BaseException:
                raw.rollback()
                raise
            finally:
                cur.close()
        finally:
            raw.close()  # back to the pool

    def _write_move_one_trip(
        self, game_id: int, seq: int, new: Sequence[tuple[int, str]], to_move: int, when: Any,
        deadline: datetime | None, bank: tuple[int, float] | None, info: GameInfo,
        mails: Sequence[tuple[int, str, str]],
    ) -> bool:
        """`_write_move` on PostgreSQL: one statement, one round trip (`ludothek.storage.onetrip`).

        ``False`` when the optimistic write found the game moved on (or its seats changed hands).
        """
        params: list[Any] = [seq + len(new), to_move, when, deadline, game_id, seq, info.seats_rev, when]
        for i, (s, a) in enumerate(new):
            params += [seq + i, s, a]
        if mails:
            params += [seq + len(new), when, when]
            for user_id, kind, payload in mails:
                params += [user_id, kind, payload]
        if bank is not None:
            params += [bank[1], bank[0]]
        sql = move_statement(len(new), len(mails), bank is not None)
        try:
            row = self._single(sql, params)
        except self._integrity_errors:
            return False
        return bool(row and row[0] == 1)

    def _refuse_lost_seat(self, game_id: int, seq: int, info: GameInfo, mover: int) -> None:
        """After a refused write at an unchanged move number: say plainly what changed.

        ``seats_rev`` changes when a seat changes hands (a timeout, a resignation) and when the
        clocks change (a vacation, an administrator): either refuses a move being stored meanwhile.
        If the mover's own seat is no longer theirs, that is final (`SeatTakenOver`); otherwise the
        move was fine and only met the change, so it is a `StaleMove` that may simply be sent again.
        """
        self._info_cache.pop(game_id, None)
        now_info = self._game_full(game_id)
        self._check_current(now_info, seq, "move")  # over (an administrator, a vote), or another move came first
        if now_info.seats_rev == info.seats_rev:
            return
        before = next((s for s in info.seats if s.seat == mover), None)
        after = next((s for s in now_info.seats if s.seat == mover), None)
        if before is None or after is None or (after.kind, after.user_id) != (before.kind, before.user_id):
            raise SeatTakenOver("a bot plays this seat now (timed out or resigned); your move was not stored",
                                code_key="seat_taken_over")
        raise StaleMove("the game's seats or clocks changed while your move was being stored; it was not stored: "
                        "send it again", code_key="stale_seats", sent=seq, current=seq)
