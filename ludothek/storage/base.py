"""The store's shared machinery: engine, caches, locks, listeners and reading a game."""

from __future__ import annotations

import dataclasses
import json
import secrets
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy import Engine, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from ludothek.engine import CHANCE, TERMINAL, State, sample_chance

from .db import DirectConnections
from .errors import (
    NotFound,
)
from .info import GameEvent, GameInfo, SeatInfo, UserInfo, aware, seat_label
from .models import GameRow, Meta, SeatRow, User, utcnow
from .rating_update import finish_game
from .tracked import Tracked

#: Chance outcomes come from the operating system's CSPRNG: no client can predict or steer them.
CHANCE_RNG = secrets.SystemRandom()


def _when(value: Any) -> datetime | None:
    """A timestamp read with plain SQL: SQLite hands back its text form."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return aware(value)


def db_time(dt: datetime, sqlite: bool) -> Any:
    """A timestamp as plain SQL must pass it: SQLite keeps SQLAlchemy's naive UTC text form."""
    if sqlite:
        return dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return dt


class GameLock:
    """A game's lock; a plain class so that the lock table can hold it weakly."""

    __slots__ = ("__weakref__", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> bool:
        return self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


class StoreBase:
    """The shared machinery of the store: connections, caches, per-game locks, listeners,
    and reading a game.  The concerns built on it live in their own modules
    (`accounts`, `lobby`, `play`) and are combined into `Store`."""

    def __init__(
        self,
        engine: Engine,
        *,
        cache_size: int = 4096,
        hasher: PasswordHasher | None = None,
    ) -> None:
        self.engine = engine
        self.hasher = hasher or PasswordHasher()
        self._cache: OrderedDict[int, Tracked] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()
        self._game_locks: weakref.WeakValueDictionary[int, GameLock] = weakref.WeakValueDictionary()
        self._locks_lock = threading.Lock()
        self._info_cache: dict[int, GameInfo] = {}
        mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
        self._sqlite = engine.dialect.name == "sqlite"
        #: The driver's parameter mark for plain SQL (``?`` on SQLite, ``%s`` on PostgreSQL).
        self._mark = mark
        self._live_sql = f"SELECT seq, status, to_move, turn_since, deadline, seats_rev FROM games WHERE id = {mark}"
        #: The optimistic write of a move: it succeeds only against the sequence number it was made on.
        self._move_sql = (
            f"UPDATE games SET seq = {mark}, to_move = {mark}, turn_since = {mark}, deadline = {mark} "
            f"WHERE id = {mark} AND seq = {mark} AND seats_rev = {mark}"
        )
        #: The last move: the same write and the game's end in one update of its row.  (A second update
        #: of a row this transaction already changed checks the row's reference to its creator again,
        #: which share-locks that user before `finish_game` locks the players: see there.)
        self._move_finish_sql = (
            f"UPDATE games SET seq = {mark}, to_move = {mark}, turn_since = {mark}, deadline = {mark}, "
            f"status = {mark}, finished_at = {mark}, result_json = {mark} "
            f"WHERE id = {mark} AND seq = {mark} AND seats_rev = {mark}"
        )
        self._insert_actions_sql = (
            f"INSERT INTO actions (game_id, seq, seat, action, created_at) VALUES ({mark}, {mark}, {mark}, {mark}, {mark})"
        )
        self._bank_sql = f"UPDATE seats SET bank_seconds = {mark} WHERE game_id = {mark} AND seat = {mark}"
        dbapi = engine.dialect.dbapi
        #: What the driver raises when the unique (game_id, seq) index refuses a second writer.
        self._integrity_errors: tuple[type[BaseException], ...] = (
            (IntegrityError, dbapi.IntegrityError) if dbapi is not None else (IntegrityError,)
        )
        #: What the driver raises when PostgreSQL ends one of two transactions that wait for each other
        #: (written again, `PlayStore._write_move`); SQLite writes one transaction at a time.
        self._deadlock_errors: tuple[type[BaseException], ...] = ()
        if engine.dialect.name == "postgresql":
            import psycopg.errors

            self._deadlock_errors = (psycopg.errors.DeadlockDetected,)
        #: PostgreSQL: autocommit connections for the single statements of the hot paths (`_single`).
        self._direct = DirectConnections(engine) if engine.dialect.name == "postgresql" else None
        self.listeners: list[Callable[[GameEvent], None]] = []
        #: Who is behind a token or session, remembered briefly: every API request asks.
        self._user_cache: dict[tuple[str, object], tuple[float, UserInfo | None]] = {}
        self.user_cache_seconds = 30.0

    def _single(self, sql: str, params: Sequence[Any], rows: bool = False) -> Any:
        """Run one plain-SQL statement that needs no transaction around it: its first row, or with
        ``rows`` all of them (this is for the statements every request runs).

        On PostgreSQL it runs on a direct autocommit connection (`DirectConnections`): no ``BEGIN``
        before it and no ``ROLLBACK`` when the connection goes back, one round trip instead of three.
        A statement the database refuses (``IntegrityError``) leaves that connection usable; any other
        failure closes it.  Without a direct connection to spare, a pooled one is used the same way.
        """
        direct = self._direct.get() if self._direct is not None else None
        if direct is not None:
            assert self._direct is not None
            conn, cur = direct
            try:
                cur.execute(sql, params)
                result = cur.fetchall() if rows else cur.fetchone()
            except self._integrity_errors:
                self._direct.put(conn, cur)
                raise
            except BaseException:
                self._direct.put(conn, cur, broken=True)
                raise
            self._direct.put(conn, cur)
            return result
        raw = self.engine.raw_connection()
        driver = None if self._sqlite else raw.driver_connection
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

    def _read_one(self, sql: str, params: tuple[Any, ...]) -> Any:
        """The first row of one plain-SQL query, in a single round trip."""
        return self._single(sql, params)

    def _cached_user(self, key: tuple[str, object], load: Callable[[], UserInfo | None]) -> UserInfo | None:
        now = time.monotonic()
        hit = self._user_cache.get(key)
        if hit is not None and hit[0] > now:
            return hit[1]
        user = load()
        if len(self._user_cache) > 50_000:
            self._user_cache.clear()
        self._user_cache[key] = (now + self.user_cache_seconds, user)
        return user

    def _forget_user(self, user_id: int) -> None:
        for key, (_, user) in list(self._user_cache.items()):
            if key == ("id", user_id) or (user is not None and user.id == user_id):
                self._user_cache.pop(key, None)

    # ------------------------------------------------------------------ helpers
    def _lock(self, game_id: int) -> GameLock:
        """The per-process lock of a game: kept only while someone holds or waits for it.

        The table holds locks weakly, so a lock disappears once no request uses it:
        requests for ids that never existed (or games long finished) leave nothing behind.
        """
        with self._locks_lock:
            lock = self._game_locks.get(game_id)
            if lock is None:
                lock = GameLock()
                self._game_locks[game_id] = lock
            return lock

    def _notify(self, event: GameEvent) -> None:
        for listener in list(self.listeners):
            listener(event)

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

    # ------------------------------------------------------------------ reading games
    def game(self, game_id: int) -> GameInfo:
        """The game's setup and summary; `NotFound` if there is none.

        Always read from the database (another server may have moved), but for
        a running game whose setup and seats are known only the few columns
        that change are read, with a plain SQL statement: this is the hottest
        query of the portal.
        """
        cached = self._info_cache.get(game_id)
        if cached is not None:
            row = self._read_one(self._live_sql, (game_id,))  # plain DB-API: no statement or result objects
            if row is not None and row[1] == "running" and row[5] == cached.seats_rev:
                return dataclasses.replace(cached, seq=row[0], to_move=row[2], turn_since=_when(row[3]),
                                           deadline=_when(row[4]))
            # A seat changed hands (another server's timeout or resignation): read the seats again.
            self._info_cache.pop(game_id, None)
        return self._game_full(game_id)

    def _game_full(self, game_id: int) -> GameInfo:
        with self.engine.begin() as conn:
            row = conn.execute(select(GameRow).where(GameRow.id == game_id)).first()
            if row is None:
                raise NotFound(f"there is no game {game_id}", code_key="no_game")
            cached = self._info_cache.get(game_id)
            if cached is not None and row.status == "running" and cached.seats_rev == row.seats_rev:
                seats = cached.seats
            else:
                seat_rows = conn.execute(
                    select(SeatRow.seat, SeatRow.kind, SeatRow.user_id, SeatRow.bot, SeatRow.left_as,
                           SeatRow.abandon_vote, User.name)
                    .outerjoin(User, User.id == SeatRow.user_id)
                    .where(SeatRow.game_id == game_id)
                    .order_by(SeatRow.seat)
                ).all()
                seats = tuple(
                    SeatInfo(r.seat, r.kind, r.user_id, seat_label(r.kind, r.seat, r.name), r.bot, r.left_as,
                             bool(r.abandon_vote))
                    for r in seat_rows
                )
        info = self._info_from_row(row, seats)
        if row.status == "running":
            # Seats no longer change once a game runs: remember them.
            self._info_cache[game_id] = info
        return info

    @staticmethod
    def _info_from_row(row: Any, seats: tuple[SeatInfo, ...]) -> GameInfo:
        return GameInfo(
            id=row.id, game=row.game, num_players=row.num_players, options=json.loads(row.options_json),
            status=row.status, creator_id=row.creator_id, seq=row.seq, to_move=row.to_move,
            created_at=aware(row.created_at) or utcnow(), turn_since=aware(row.turn_since),
            result=json.loads(row.result_json) if row.result_json else None, seats=seats,
            clock=json.loads(row.clock_json) if row.clock_json else None, deadline=aware(row.deadline),
            seats_rev=row.seats_rev or 0,
        )

    def _game_infos(self, ids: Sequence[int]) -> list[GameInfo]:
        """Several games at once (in the order of ``ids``), with two queries instead of two per game.

        For lists of games (the lobby, profiles, game pages, my games): the summaries of running
        games are not put into the cache here; `game` reads them fresh when one is opened.
        """
        if not ids:
            return []
        with self.engine.begin() as conn:
            rows = {r.id: r for r in conn.execute(select(GameRow).where(GameRow.id.in_(list(ids)))).all()}
            seat_rows = conn.execute(
                select(SeatRow.game_id, SeatRow.seat, SeatRow.kind, SeatRow.user_id, SeatRow.bot, SeatRow.left_as,
                       SeatRow.abandon_vote, User.name)
                .outerjoin(User, User.id == SeatRow.user_id)
                .where(SeatRow.game_id.in_(list(ids)))
                .order_by(SeatRow.game_id, SeatRow.seat)
            ).all()
        seats: dict[int, list[SeatInfo]] = {}
        for r in seat_rows:
            seats.setdefault(r.game_id, []).append(
                SeatInfo(r.seat, r.kind, r.user_id, seat_label(r.kind, r.seat, r.name), r.bot, r.left_as,
                         bool(r.abandon_vote)))
        return [self._info_from_row(rows[gid], tuple(seats.get(gid, ()))) for gid in ids if gid in rows]

    def _games(self, where: Any, order: Any = None, limit: int = 200) -> list[GameInfo]:
        query = select(GameRow.id).where(where).limit(limit)
        if order is not None:
            query = query.order_by(*order)
        with self.engine.begin() as conn:
            ids = list(conn.execute(query).scalars())
        return self._game_infos(ids)


    # ------------------------------------------------------------------ states and records
    def _cache_put(self, game_id: int, tracked: Tracked) -> None:
        with self._cache_lock:
            self._cache[game_id] = tracked
            self._cache.move_to_end(game_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _cache_drop(self, game_id: int) -> None:
        with self._cache_lock:
            self._cache.pop(game_id, None)


    @staticmethod
    def _resolve_chance(tracked: Tracked) -> list[tuple[int, str]]:
        """Apply chance outcomes drawn from the CSPRNG until a seat (or the end) is to move."""
        out: list[tuple[int, str]] = []
        while tracked.state.current_player() == CHANCE:
            action = sample_chance(tracked.state, CHANCE_RNG)
            tracked.apply(CHANCE, action)
            out.append((CHANCE, action))
        return out

    def _upsert(self, model: Any, key: Sequence[Any], values: dict[str, Any], changes: dict[str, Any]) -> Any:
        """One statement: insert ``values``, or where a row with the same ``key`` exists, set ``changes``.

        A read followed by an insert or an update lets two requests writing the first row at once both
        insert (a server error for the second); this cannot, on either database.
        """
        insert_into = (sqlite_insert if self._sqlite else pg_insert)(model).values(**values)
        return insert_into.on_conflict_do_update(index_elements=list(key), set_=changes)

    def _db_time(self, dt: datetime) -> Any:
        """A timestamp as plain SQL must pass it (`db_time`)."""
        return db_time(dt, self._sqlite)

    def _insert_actions(self, conn: Any, game_id: int, start: int, actions: Sequence[tuple[int, str]],
                        now: datetime) -> None:
        # Plain SQL: building SQLAlchemy statements per move costs more than running them.
        if actions:
            when = self._db_time(now)
            conn.exec_driver_sql(
                self._insert_actions_sql,
                [(game_id, start + i, seat, action, when) for i, (seat, action) in enumerate(actions)],
            )

    def _finish_if_over(self, conn: Any, game_id: int, state: State, now: datetime) -> None:
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
                finish_game(cur, self._mark, not self._sqlite, game_id, kind, result,
                            {s.seat: s.user_id for s in seats}, self._db_time(now))
            finally:
                cur.close()
