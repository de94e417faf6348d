"""The database as the services see it: the SQLAlchemy engine plus what plain SQL needs on this dialect.

One `Database` per process (built by `ludothek.services.Site`).  It knows nothing of games or
users: the parameter mark of the driver, single statements without a transaction around them
(`Database.single`, the requests' hottest path), persistent settings (`meta`), one-statement
upserts, timestamps for plain SQL, and the error classes the driver raises when a unique index
refuses a second writer or PostgreSQL breaks a deadlock.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from ludothek.engine import TERMINAL, State

from .db import DirectConnections
from .info import aware
from .models import GameRow, Meta, SeatRow
from .rating_update import finish_game


def when(value: Any) -> datetime | None:
    """A timestamp read with plain SQL: SQLite hands back its text form."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return aware(value)


def db_time(dt: datetime, sqlite: bool) -> Any:
    """A timestamp as plain SQL must pass it: SQLite keeps SQLAlchemy's naive UTC text form."""
    if sqlite:
        return dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return dt


class Database:
    """The engine and the dialect's plain-SQL details; thread-safe, one per process."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: SQLite (a file in the process) or PostgreSQL (a server, one round trip per statement).
        self.sqlite = engine.dialect.name == "sqlite"
        #: The driver's parameter mark for plain SQL (``?`` on SQLite, ``%s`` on PostgreSQL).
        self.mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
        mark = self.mark
        self.insert_actions_sql = (
            f"INSERT INTO actions (game_id, seq, seat, action, created_at) VALUES ({mark}, {mark}, {mark}, {mark}, {mark})"
        )
        dbapi = engine.dialect.dbapi
        #: What the driver raises when the unique (game_id, seq) index refuses a second writer.
        self.integrity_errors: tuple[type[BaseException], ...] = (
            (IntegrityError, dbapi.IntegrityError) if dbapi is not None else (IntegrityError,)
        )
        #: What the driver raises when PostgreSQL ends one of two transactions that wait for each other
        #: (written again, `ludothek.storage.moves`); SQLite writes one transaction at a time.
        self.deadlock_errors: tuple[type[BaseException], ...] = ()
        if engine.dialect.name == "postgresql":
            import psycopg.errors

            self.deadlock_errors = (psycopg.errors.DeadlockDetected,)
        #: PostgreSQL: autocommit connections for the single statements of the hot paths (`single`).
        self.direct = DirectConnections(engine) if engine.dialect.name == "postgresql" else None

    def single(self, sql: str, params: Sequence[Any], rows: bool = False) -> Any:
        """Run one plain-SQL statement that needs no transaction around it: its first row, or with
        ``rows`` all of them (this is for the statements every request runs).

        On PostgreSQL it runs on a direct autocommit connection (`DirectConnections`): no ``BEGIN``
        before it and no ``ROLLBACK`` when the connection goes back, one round trip instead of three.
        A statement the database refuses (``IntegrityError``) leaves that connection usable; any other
        failure closes it.  Without a direct connection to spare, a pooled one is used the same way.
        """
        direct = self.direct.get() if self.direct is not None else None
        if direct is not None:
            assert self.direct is not None
            conn, cur = direct
            try:
                cur.execute(sql, params)
                result = cur.fetchall() if rows else cur.fetchone()
            except self.integrity_errors:
                self.direct.put(conn, cur)
                raise
            except BaseException:
                self.direct.put(conn, cur, broken=True)
                raise
            self.direct.put(conn, cur)
            return result
        raw = self.engine.raw_connection()
        driver = None if self.sqlite else raw.driver_connection
        try:
            if driver is not None:
                driver.autocommit = True
            cur = raw.cursor()
            try:
                cur.execute(sql, params)
                return cur.fetchall() if rows else cur.fetchone()
            finally:
                cur.close()
        finally:
            try:
                if driver is not None and not driver.closed:
                    driver.autocommit = False
            finally:
                raw.close()  # back to the pool

    def read_one(self, sql: str, params: tuple[Any, ...]) -> Any:
        """The first row of one plain-SQL query, in a single round trip."""
        return self.single(sql, params)

    def meta(self, key: str, default: Callable[[], str]) -> str:
        """A persistent setting; created with ``default()`` the first time (race-safe)."""
        with self.engine.begin() as conn:
            value = conn.execute(select(Meta.value).where(Meta.key == key)).scalar()
        if value is not None:
            return value
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(Meta).values(key=key, value=default()))
        except IntegrityError:
            pass
        with self.engine.begin() as conn:
            return conn.execute(select(Meta.value).where(Meta.key == key)).scalar_one()

    def upsert(self, model: Any, key: Sequence[Any], values: dict[str, Any], changes: dict[str, Any]) -> Any:
        """One statement: insert ``values``, or where a row with the same ``key`` exists, set ``changes``.

        A read followed by an insert or an update lets two requests writing the first row at once both
        insert (a server error for the second); this cannot, on either database.
        """
        insert_into = (sqlite_insert if self.sqlite else pg_insert)(model).values(**values)
        return insert_into.on_conflict_do_update(index_elements=list(key), set_=changes)

    def db_time(self, dt: datetime) -> Any:
        """A timestamp as plain SQL must pass it (`db_time`)."""
        return db_time(dt, self.sqlite)

    def insert_actions(self, conn: Any, game_id: int, start: int, actions: Sequence[tuple[int, str]],
                       now: datetime) -> None:
        """Inside a transaction: the action rows ``start, start + 1, ...`` of a game."""
        # Plain SQL: building SQLAlchemy statements per move costs more than running them.
        if actions:
            stamp = self.db_time(now)
            conn.exec_driver_sql(
                self.insert_actions_sql,
                [(game_id, start + i, seat, action, stamp) for i, (seat, action) in enumerate(actions)],
            )

    def finish_if_over(self, conn: Any, game_id: int, state: State, now: datetime) -> None:
        """Inside a transaction: if ``state`` is over, store the end, the seats' places and the ratings."""
        if state.current_player() == TERMINAL:
            result = state.result_json()
            conn.execute(
                update(GameRow).where(GameRow.id == game_id).values(
                    status="finished", finished_at=now, result_json=json.dumps(result)
                )
            )
            seats = conn.execute(select(SeatRow.seat, SeatRow.user_id).where(SeatRow.game_id == game_id)).all()
            kind = conn.execute(select(GameRow.game).where(GameRow.id == game_id)).scalar_one()
            cur = conn.connection.cursor()  # the same transaction, in the plain SQL the move path speaks
            try:
                finish_game(cur, self.mark, not self.sqlite, game_id, kind, result,
                            {s.seat: s.user_id for s in seats}, self.db_time(now))
            finally:
                cur.close()
