"""Writing a move: one writer per database dialect, chosen once (`move_writer`) when the site is built.

A move is stored against the sequence number it was made on: ``UPDATE games SET seq = seq + k
... WHERE id = ? AND seq = ? AND seats_rev = ?`` together with the new action rows, whose
``(game_id, seq)`` pair is unique.  Of two concurrent writers exactly one wins, on SQLite and
PostgreSQL alike.  The mails a move causes go into the outbox in the same transaction, and the
last move of a game places the seats and rates the players in it (`rating_update.finish_game`).

`MoveWriter.write` answers ``True`` (stored) or ``False`` (the optimistic write found the game
moved on or its seats or clocks changed: the caller says which, `ludothek.services.play`), and
raises `StaleMove` when the unique index refused a second writer.  Plain DB-API statements on a
pooled connection: this runs for every move, and SQLAlchemy's statement and result machinery
cost more than the SQL.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ludothek.engine import TERMINAL, State

from .database import Database
from .errors import StaleMove
from .info import GameInfo
from .onetrip import move_statement
from .outbox import outbox_sql
from .rating_update import finish_game
from .timecontrol import clock_after_move, placed_last

log = logging.getLogger("ludothek.storage.play")

#: A pending hand-over to store with a move: the seat whose turn ended and when it is handed on.
Handover = tuple[int, datetime] | None
#: The pending hand-over seat as the writes compare it: `HANDOVER_NONE` stands for none pending.
HANDOVER_WAS = "coalesce(handover_seat, -9)"
HANDOVER_NONE = -9

#: How often a move's transaction is written again after PostgreSQL broke a deadlock by refusing it.
DEADLOCK_RETRIES = 2


def stale_move(seq: int) -> StaleMove:
    """The refusal of a move that another move beat to the database."""
    return StaleMove(
        "stale move: another move was stored first; reload to see what happened", sent=seq, current=seq + 1
    )


class MoveWriter:
    """Stores moves as one transaction each: SQLite (one writer at a time: no deadlocks to retry),
    and on PostgreSQL the last move of a game (`PostgresMoveWriter`)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        mark = db.mark
        #: The optimistic write of a move: it succeeds only against the sequence number, the seats and
        #: the pending hand-over (`HANDOVER_NONE`: none) it was made on, and sets the hand-over after it.
        self.move_sql = (
            f"UPDATE games SET seq = {mark}, to_move = {mark}, turn_since = {mark}, deadline = {mark}, "
            f"handover_seat = {mark}, handover_due = {mark} "
            f"WHERE id = {mark} AND seq = {mark} AND seats_rev = {mark} AND {HANDOVER_WAS} = {mark}"
        )
        #: The last move: the same write and the game's end in one update of its row.  (A second update
        #: of a row this transaction already changed checks the row's reference to its creator again,
        #: which share-locks that user before `finish_game` locks the players: see there.)
        self.move_finish_sql = (
            f"UPDATE games SET seq = {mark}, to_move = {mark}, turn_since = {mark}, deadline = {mark}, "
            f"handover_seat = NULL, handover_due = NULL, status = {mark}, finished_at = {mark}, result_json = {mark} "
            f"WHERE id = {mark} AND seq = {mark} AND seats_rev = {mark} AND {HANDOVER_WAS} = {mark}"
        )
        self.bank_sql = f"UPDATE seats SET bank_seconds = {mark} WHERE game_id = {mark} AND seat = {mark}"
        self.outbox_sql = outbox_sql(mark)

    def write(
        self, game_id: int, seq: int, new: Sequence[tuple[int, str]], to_move: int, state: State, now: datetime,
        info: GameInfo, mover: int, mails: Sequence[tuple[int, str, str]] = (), *,
        handover: Handover = None, handover_was: int | None = None,
    ) -> bool:
        """Store the move and its chance outcomes against ``seq``: exactly one of concurrent writers wins.

        ``mails`` (``(user id, kind, payload)``) go into the outbox in the same transaction.
        ``handover_was`` is the pending hand-over's seat the move was made against (None: none pending)
        and ``handover`` the one it leaves pending (seat, when it is due), if any: a confirmation, an
        undo and the clock job racing for one hand-over are decided here, one wins.  ``new`` may be
        empty (a hand-on with no chance step to draw).
        """
        deadline, bank = (None, None) if info.clock is None else self.clock(info, mover, to_move, now)
        return self.transaction(game_id, seq, new, to_move, state, self.db.db_time(now), deadline, bank, info, mails,
                                handover, handover_was)

    def clock(self, info: GameInfo, mover: int, to_move: int,
              now: datetime) -> tuple[datetime | None, tuple[int, float] | None]:
        """A game with a time control: the next deadline and the mover's bank (vacations read in their
        own short transaction)."""
        with self.db.engine.begin() as conn:
            return clock_after_move(conn, info, mover, to_move, now)

    def transaction(
        self, game_id: int, seq: int, new: Sequence[tuple[int, str]], to_move: int, state: State, when: Any,
        deadline: datetime | None, bank: tuple[int, float] | None, info: GameInfo,
        mails: Sequence[tuple[int, str, str]], handover: Handover = None, handover_was: int | None = None,
    ) -> bool:
        """The move as one transaction: the last move of a game, SQLite, or a game with a bank of time.

        A game's end is one update of the game's row, and then it locks its players' rows before
        anything that refers to them (the mails, the counts): two endings that share players then
        wait for each other in one order, by id, and never each hold what the other needs
        (`rating_update.finish_game`).
        """
        db = self.db
        raw = db.engine.raw_connection()
        try:
            cur = raw.cursor()
            try:
                due = None if deadline is None else db.db_time(deadline)
                was = HANDOVER_NONE if handover_was is None else handover_was
                result = None
                if to_move == TERMINAL:
                    result = placed_last(state.result_json(), {s.seat: s.left_as for s in info.seats if s.left_as})
                    cur.execute(self.move_finish_sql, (seq + len(new), to_move, when, due, "finished", when,
                                                       json.dumps(result), game_id, seq, info.seats_rev, was))
                else:
                    h_seat, h_due = (None, None) if handover is None else (handover[0], db.db_time(handover[1]))
                    cur.execute(self.move_sql, (seq + len(new), to_move, when, due, h_seat, h_due, game_id, seq,
                                                info.seats_rev, was))
                if cur.rowcount != 1:
                    raw.rollback()
                    return False
                if result is not None:
                    # The seats' places and the ratings, in the transaction that ends the game.
                    finish_game(cur, db.mark, not db.sqlite, game_id, info.game, result,
                                {s.seat: s.user_id for s in info.seats}, when, also_lock=[m[0] for m in mails])
                if new:
                    cur.executemany(
                        db.insert_actions_sql,
                        [(game_id, seq + i, s, a, when) for i, (s, a) in enumerate(new)],
                    )
                for user_id, kind, payload in mails:  # the outbox row(s), in the move's transaction
                    cur.execute(self.outbox_sql, (user_id, kind, game_id, seq + len(new), payload, when, when))
                if bank is not None:
                    cur.execute(self.bank_sql, (bank[1], game_id, bank[0]))
                raw.commit()
            except db.integrity_errors:
                raw.rollback()
                raise stale_move(seq) from None
            except BaseException:
                raw.rollback()
                raise
            finally:
                cur.close()
        finally:
            raw.close()  # back to the pool
        return True


class PostgresMoveWriter(MoveWriter):
    """PostgreSQL: a move that does not end the game is one statement, one round trip
    (`ludothek.storage.onetrip`); the last move of a game places the seats and rates the players
    (reads and writes): the transaction, written again should PostgreSQL refuse it to break a deadlock."""

    def write(
        self, game_id: int, seq: int, new: Sequence[tuple[int, str]], to_move: int, state: State, now: datetime,
        info: GameInfo, mover: int, mails: Sequence[tuple[int, str, str]] = (), *,
        handover: Handover = None, handover_was: int | None = None,
    ) -> bool:
        deadline, bank = (None, None) if info.clock is None else self.clock(info, mover, to_move, now)
        when = self.db.db_time(now)
        if to_move != TERMINAL and new:
            return self.one_trip(game_id, seq, new, to_move, when, deadline, bank, info, mails, handover, handover_was)
        for attempt in range(DEADLOCK_RETRIES + 1):
            try:
                return self.transaction(game_id, seq, new, to_move, state, when, deadline, bank, info, mails,
                                        handover, handover_was)
            except self.db.deadlock_errors:
                if attempt == DEADLOCK_RETRIES:
                    raise
                log.warning("game %d: the database broke a deadlock by refusing this move's write; writing it again",
                            game_id)
        raise AssertionError("unreachable")

    def one_trip(
        self, game_id: int, seq: int, new: Sequence[tuple[int, str]], to_move: int, when: Any,
        deadline: datetime | None, bank: tuple[int, float] | None, info: GameInfo,
        mails: Sequence[tuple[int, str, str]], handover: Handover = None, handover_was: int | None = None,
    ) -> bool:
        """The move in one statement.  ``False`` when the optimistic write found the game moved on (or its
        seats changed hands, or its hand-over), also when the unique index refused it."""
        h_seat, h_due = (None, None) if handover is None else (handover[0], self.db.db_time(handover[1]))
        was = HANDOVER_NONE if handover_was is None else handover_was
        params: list[Any] = [seq + len(new), to_move, when, deadline, h_seat, h_due, game_id, seq, info.seats_rev,
                             was, when]
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
            row = self.db.single(sql, params)
        except self.db.integrity_errors:
            return False
        return bool(row and row[0] == 1)


def move_writer(db: Database) -> MoveWriter:
    """The writer for ``db``'s dialect: the one place that chooses how moves are written."""
    return MoveWriter(db) if db.sqlite else PostgresMoveWriter(db)
