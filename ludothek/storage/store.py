"""The game store: accounts, the lobby, and games kept as their records.

A game's state is never stored, only its record (setup plus every action).
States are rebuilt by replaying and kept in a small in-memory cache; the cache
is checked against the stored sequence number on every access, so several
server processes can share one database.

Moves use optimistic concurrency: a move names the sequence number it was
made against, and it is stored by ``UPDATE games SET seq = seq + k WHERE
id = ? AND seq = ?`` together with the new action rows, whose ``(game_id,
seq)`` pair is unique.  Of two concurrent submissions exactly one can win, on
SQLite and PostgreSQL alike; the other gets a clear "stale" refusal.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Engine, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ludothek import engine as eng
from ludothek.bots import make_bot
from ludothek.engine import CHANCE, TERMINAL, IllegalAction, InvalidOptions, State, sample_chance

from .errors import (
    BadRequest,
    Conflict,
    Forbidden,
    IllegalMove,
    NotFound,
    NotYourTurn,
    StaleMove,
    Unauthorized,
)
from .models import ActionRow, ApiToken, GameRow, Meta, SeatRow, User, utcnow
from .tracked import Tracked

#: Chance outcomes come from the operating system's CSPRNG: no client can predict or steer them.
CHANCE_RNG = secrets.SystemRandom()

NAME_RE = re.compile(r"^[A-Za-z0-9ÄÖÜäöüß_.\-]{3,20}$")
MIN_PASSWORD = 8
GUEST_LIFETIME = timedelta(hours=24)
SEAT_KINDS = ("me", "open", "invite", "bot")


def aware(dt: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything here is UTC."""
    if dt is None or dt.tzinfo is not None:
        return dt
    return dt.replace(tzinfo=UTC)


@dataclass(frozen=True)
class UserInfo:
    id: int
    name: str
    is_guest: bool
    lang: str
    guest_expires_at: datetime | None = None


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    kind: str  # open / invited / player / bot
    user_id: int | None
    name: str | None  # user name, or the bot's name
    bot: str | None = None


@dataclass(frozen=True)
class GameInfo:
    """A game's setup and summary, as stored (no hidden information in here)."""

    id: int
    game: str
    num_players: int
    options: dict[str, str]
    status: str
    creator_id: int | None
    seq: int
    to_move: int
    created_at: datetime
    turn_since: datetime | None
    result: list[dict[str, Any]] | None
    seats: tuple[SeatInfo, ...] = field(default_factory=tuple)

    def seat_of(self, user_id: int | None) -> int | None:
        """The seat ``user_id`` plays in this game (``None``: not a player)."""
        if user_id is None:
            return None
        for s in self.seats:
            if s.kind == "player" and s.user_id == user_id:
                return s.seat
        return None

    def is_bot_seat(self, seat: int) -> bool:
        return any(s.seat == seat and s.kind == "bot" for s in self.seats)


@dataclass(frozen=True)
class GameEvent:
    """What listeners hear after a change: public facts only, never a view."""

    game_id: int
    seq: int
    to_move: int
    status: str
    #: A bot seat is to move: the bot runner should play.
    bot_to_move: bool = False


def token_hash(token: str) -> str:
    """API tokens are stored only as their SHA-256 digest."""
    return hashlib.sha256(token.encode()).hexdigest()


class Store:
    """All database access of the portal.  Thread-safe; one instance per process."""

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
        self._game_locks: dict[int, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._info_cache: dict[int, GameInfo] = {}
        mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
        self._sqlite = engine.dialect.name == "sqlite"
        self._live_sql = f"SELECT seq, status, to_move, turn_since FROM games WHERE id = {mark}"
        #: The optimistic write of a move: it succeeds only against the sequence number it was made on.
        self._move_sql = (
            f"UPDATE games SET seq = {mark}, to_move = {mark}, turn_since = {mark} WHERE id = {mark} AND seq = {mark}"
        )
        self._insert_actions_sql = (
            f"INSERT INTO actions (game_id, seq, seat, action, created_at) VALUES ({mark}, {mark}, {mark}, {mark}, {mark})"
        )
        self._finish_sql = f"UPDATE games SET status = {mark}, finished_at = {mark}, result_json = {mark} WHERE id = {mark}"
        dbapi = engine.dialect.dbapi
        #: What the driver raises when the unique (game_id, seq) index refuses a second writer.
        self._integrity_errors: tuple[type[BaseException], ...] = (
            (IntegrityError, dbapi.IntegrityError) if dbapi is not None else (IntegrityError,)
        )
        self.listeners: list[Callable[[GameEvent], None]] = []
        #: Who is behind a token or session, remembered briefly: every API request asks.
        self._user_cache: dict[tuple[str, object], tuple[float, UserInfo | None]] = {}
        self.user_cache_seconds = 30.0

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
    def _lock(self, game_id: int) -> threading.Lock:
        with self._locks_lock:
            lock = self._game_locks.get(game_id)
            if lock is None:
                lock = self._game_locks[game_id] = threading.Lock()
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

    # ------------------------------------------------------------------ accounts
    @staticmethod
    def _user_info(u: Any) -> UserInfo:
        return UserInfo(u.id, u.name, bool(u.is_guest), u.lang, aware(u.guest_expires_at))

    def _check_name(self, name: str) -> str:
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise BadRequest(
                "a user name has 3 to 20 letters, digits, '.', '_' or '-'", code_key="bad_name"
            )
        return name

    def _check_password(self, password: str) -> None:
        if not isinstance(password, str) or len(password) < MIN_PASSWORD:
            raise BadRequest(f"a password has at least {MIN_PASSWORD} characters", code_key="bad_password")

    def register(self, name: str, password: str, lang: str = "en") -> UserInfo:
        self._check_name(name)
        self._check_password(password)
        lang = lang if lang in eng.LANGS else "en"
        pw_hash = self.hasher.hash(password)
        try:
            with self.engine.begin() as conn:
                uid = conn.execute(
                    insert(User).values(
                        name=name, name_key=name.lower(), password_hash=pw_hash, is_guest=False,
                        lang=lang, created_at=utcnow(),
                    ).returning(User.id)
                ).scalar_one()
        except IntegrityError:
            raise Conflict(f"the name {name!r} is taken", code_key="name_taken") from None
        return UserInfo(uid, name, False, lang)

    def create_guest(self, lang: str = "en") -> UserInfo:
        """A guest account that lives 24 hours unless it is turned into a real one."""
        lang = lang if lang in eng.LANGS else "en"
        expires = utcnow() + GUEST_LIFETIME
        for _ in range(20):
            name = f"guest-{secrets.randbelow(10**6):06d}"
            try:
                with self.engine.begin() as conn:
                    uid = conn.execute(
                        insert(User).values(
                            name=name, name_key=name, password_hash=None, is_guest=True,
                            guest_expires_at=expires, lang=lang, created_at=utcnow(),
                        ).returning(User.id)
                    ).scalar_one()
                return UserInfo(uid, name, True, lang, expires)
            except IntegrityError:
                continue
        raise Conflict("could not find a free guest name; try again")  # pragma: no cover

    def convert_guest(self, user_id: int, name: str, password: str) -> UserInfo:
        """Turn a guest into a real account, keeping its games."""
        self._check_name(name)
        self._check_password(password)
        user = self.user(user_id)
        if user is None:
            raise NotFound("no such user")
        if not user.is_guest:
            raise Conflict("this account is not a guest account")
        pw_hash = self.hasher.hash(password)
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    update(User).where(User.id == user_id).values(
                        name=name, name_key=name.lower(), password_hash=pw_hash, is_guest=False,
                        guest_expires_at=None,
                    )
                )
        except IntegrityError:
            raise Conflict(f"the name {name!r} is taken", code_key="name_taken") from None
        self._forget_user(user_id)
        return UserInfo(user_id, name, False, user.lang)

    def authenticate(self, name: str, password: str) -> UserInfo:
        """The user with this name and password; `Unauthorized` otherwise (same message either way)."""
        with self.engine.begin() as conn:
            row = conn.execute(select(User).where(User.name_key == str(name).lower())).first()
        refusal = Unauthorized("wrong user name or password", code_key="bad_login")
        if row is None or row.password_hash is None:
            # Hash anyway so that timing does not reveal whether the name exists.
            self.hasher.hash("not a password")
            raise refusal
        try:
            self.hasher.verify(row.password_hash, password)
        except (VerificationError, InvalidHashError):
            raise refusal from None
        return self._user_info(row)

    def user(self, user_id: int) -> UserInfo | None:
        """The user, or ``None`` if unknown or an expired guest (remembered for a few seconds)."""
        user = self._cached_user(("id", user_id), lambda: self._load_user(user_id))
        if user is not None and user.is_guest and user.guest_expires_at is not None and user.guest_expires_at < utcnow():
            return None
        return user

    def _load_user(self, user_id: int) -> UserInfo | None:
        with self.engine.begin() as conn:
            row = conn.execute(select(User).where(User.id == user_id)).first()
        if row is None:
            return None
        info = self._user_info(row)
        if info.is_guest and info.guest_expires_at is not None and info.guest_expires_at < utcnow():
            return None
        return info

    def user_by_name(self, name: str) -> UserInfo | None:
        with self.engine.begin() as conn:
            row = conn.execute(select(User).where(User.name_key == str(name).lower())).first()
        return None if row is None else self._user_info(row)

    def set_lang(self, user_id: int, lang: str) -> None:
        if lang not in eng.LANGS:
            raise BadRequest(f"language must be one of {', '.join(eng.LANGS)}")
        with self.engine.begin() as conn:
            conn.execute(update(User).where(User.id == user_id).values(lang=lang))
        self._forget_user(user_id)

    def create_token(self, user_id: int, label: str = "") -> str:
        """A new API token; only its hash is stored, so it is shown once."""
        token = "ldk_" + secrets.token_urlsafe(32)
        with self.engine.begin() as conn:
            conn.execute(
                insert(ApiToken).values(
                    user_id=user_id, token_hash=token_hash(token), label=str(label)[:80], created_at=utcnow()
                )
            )
        return token

    def user_by_token(self, token: str) -> UserInfo | None:
        digest = token_hash(token)

        def load() -> UserInfo | None:
            with self.engine.begin() as conn:
                uid = conn.execute(select(ApiToken.user_id).where(ApiToken.token_hash == digest)).scalar()
            return None if uid is None else self.user(uid)

        return self._cached_user(("token", digest), load)

    def purge_expired_guests(self) -> int:
        """Delete expired guests that never joined a game; their names become free again."""
        with self.engine.begin() as conn:
            in_games = select(SeatRow.user_id).where(SeatRow.user_id.is_not(None))
            res = conn.execute(
                delete(User).where(
                    User.is_guest.is_(True), User.guest_expires_at < utcnow(), User.id.not_in(in_games)
                )
            )
            return res.rowcount or 0

    # ------------------------------------------------------------------ lobby
    def create_game(
        self,
        creator: UserInfo,
        game_id: str,
        num_players: int,
        options: dict[str, Any] | None,
        seats: Sequence[dict[str, Any]] | None = None,
    ) -> int:
        """Create a game; ``seats`` lists ``{"kind": "me"|"open"|"invite"|"bot", "user": name}``.

        Without ``seats``: the creator plus open invitations.  The game starts
        at once when no seat is left to fill (e.g. against bots only).
        """
        try:
            game = eng.load(game_id)
        except KeyError:
            raise NotFound(f"unknown game {game_id!r}; known games: {', '.join(eng.games())}") from None
        try:
            opts = game.validate_options(num_players, options or {})
        except InvalidOptions as exc:
            raise BadRequest(str(exc)) from None
        spec = list(seats) if seats is not None else [{"kind": "me"}] + [{"kind": "open"}] * (num_players - 1)
        if len(spec) != num_players:
            raise BadRequest(f"give exactly {num_players} seats, not {len(spec)}")
        rows: list[dict[str, Any]] = []
        me_count = 0
        invited: set[int] = set()
        for i, s in enumerate(spec):
            kind = s.get("kind") if isinstance(s, dict) else None
            if kind not in SEAT_KINDS:
                raise BadRequest(f"seat {i + 1}: kind must be one of {', '.join(SEAT_KINDS)}")
            if kind == "me":
                me_count += 1
                rows.append({"seat": i, "kind": "player", "user_id": creator.id, "bot": None})
            elif kind == "open":
                rows.append({"seat": i, "kind": "open", "user_id": None, "bot": None})
            elif kind == "bot":
                bot = str(s.get("bot") or "random")
                try:
                    make_bot(bot)
                except KeyError as exc:
                    raise BadRequest(str(exc.args[0])) from None
                rows.append({"seat": i, "kind": "bot", "user_id": None, "bot": bot})
            else:
                other = self.user_by_name(str(s.get("user") or ""))
                if other is None:
                    raise NotFound(f"seat {i + 1}: no user called {s.get('user')!r}", code_key="no_user")
                if other.id == creator.id or other.id in invited:
                    raise BadRequest(f"seat {i + 1}: {other.name} already has a seat")
                invited.add(other.id)
                rows.append({"seat": i, "kind": "invited", "user_id": other.id, "bot": None})
        if me_count != 1:
            raise BadRequest("the creator takes exactly one seat ('me')")
        with self.engine.begin() as conn:
            gid = conn.execute(
                insert(GameRow).values(
                    game=game.id, rules_version=game.rules_version, num_players=num_players,
                    options_json=json.dumps(opts, sort_keys=True), status="open", creator_id=creator.id,
                    created_at=utcnow(), seq=0, to_move=-2, turn_since=None,
                ).returning(GameRow.id)
            ).scalar_one()
            conn.execute(insert(SeatRow), [dict(r, game_id=gid) for r in rows])
        self._maybe_start(gid)
        return gid

    def join(self, game_id: int, user: UserInfo) -> GameInfo:
        """Take an open seat or accept a named invitation; starts the game when it is full."""
        with self._lock(game_id):
            info = self.game(game_id)
            if info.status != "open":
                raise Conflict("this game has already started or is over", code_key="not_open")
            if info.seat_of(user.id) is not None:
                raise Conflict("you already have a seat in this game", code_key="already_seated")
            mine = [s for s in info.seats if s.kind == "invited" and s.user_id == user.id]
            free = mine or [s for s in info.seats if s.kind == "open"]
            if not free:
                raise Conflict("no seat is free for you in this game", code_key="full")
            with self.engine.begin() as conn:
                res = conn.execute(
                    update(SeatRow)
                    .where(SeatRow.game_id == game_id, SeatRow.seat == free[0].seat, SeatRow.kind == free[0].kind)
                    .values(kind="player", user_id=user.id)
                )
                if res.rowcount != 1:
                    raise Conflict("someone else took that seat just now; try again")
        self._maybe_start(game_id)
        return self.game(game_id)

    def leave(self, game_id: int, user: UserInfo) -> None:
        """Give back a seat (or decline an invitation) before the game starts; the creator cancels instead."""
        with self._lock(game_id):
            info = self.game(game_id)
            if info.status != "open":
                raise Conflict("you can leave only before the game starts", code_key="not_open")
            if info.creator_id == user.id:
                raise Conflict("you created this game: cancel it instead", code_key="creator_leaves")
            seat = next((s for s in info.seats if s.user_id == user.id and s.kind in ("player", "invited")), None)
            if seat is None:
                raise Forbidden("you have no seat in this game", code_key="not_seated")
            with self.engine.begin() as conn:
                conn.execute(
                    update(SeatRow)
                    .where(SeatRow.game_id == game_id, SeatRow.seat == seat.seat)
                    .values(kind="open", user_id=None)
                )

    def cancel(self, game_id: int, user: UserInfo) -> None:
        with self._lock(game_id):
            info = self.game(game_id)
            if info.creator_id != user.id:
                raise Forbidden("only the creator can cancel this game", code_key="not_creator")
            if info.status != "open":
                raise Conflict("a game can be cancelled only before it starts", code_key="not_open")
            with self.engine.begin() as conn:
                conn.execute(update(GameRow).where(GameRow.id == game_id).values(status="cancelled"))
        self._info_cache.pop(game_id, None)
        self._notify(GameEvent(game_id, 0, -2, "cancelled"))

    def _maybe_start(self, game_id: int) -> None:
        """Start a full game: seats are shuffled so the first player is drawn at random."""
        with self._lock(game_id):
            info = self.game(game_id)
            if info.status != "open" or any(s.kind in ("open", "invited") for s in info.seats):
                return
            occupants = [(s.kind, s.user_id, s.bot) for s in info.seats]
            CHANCE_RNG.shuffle(occupants)
            state = eng.load(info.game).new_state(info.num_players, info.options)
            tracked = Tracked(state)
            actions = self._resolve_chance(tracked)
            now = utcnow()
            with self.engine.begin() as conn:
                res = conn.execute(
                    update(GameRow)
                    .where(GameRow.id == game_id, GameRow.status == "open")
                    .values(
                        status="running", started_at=now, seq=len(actions), to_move=state.current_player(),
                        turn_since=now,
                    )
                )
                if res.rowcount != 1:
                    return
                conn.execute(delete(SeatRow).where(SeatRow.game_id == game_id))
                conn.execute(
                    insert(SeatRow),
                    [
                        {"game_id": game_id, "seat": i, "kind": k, "user_id": u, "bot": b}
                        for i, (k, u, b) in enumerate(occupants)
                    ],
                )
                self._insert_actions(conn, game_id, 0, actions, now)
                self._finish_if_over(conn, game_id, state, now)
            self._cache_put(game_id, tracked)
        self._info_cache.pop(game_id, None)
        info = self.game(game_id)
        to_move = state.current_player()
        self._notify(GameEvent(game_id, len(actions), to_move, info.status, info.is_bot_seat(to_move)))

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
            raw = self.engine.raw_connection()  # plain DB-API: no statement or result objects to build
            try:
                cur = raw.cursor()
                cur.execute(self._live_sql, (game_id,))
                row = cur.fetchone()
                cur.close()
            finally:
                raw.close()
            if row is not None and row[1] == "running":
                turn_since = row[3]
                if isinstance(turn_since, str):  # SQLite hands the raw text to plain SQL
                    turn_since = datetime.fromisoformat(turn_since)
                return dataclasses.replace(cached, seq=row[0], to_move=row[2], turn_since=aware(turn_since))
        return self._game_full(game_id)

    def _game_full(self, game_id: int) -> GameInfo:
        with self.engine.begin() as conn:
            row = conn.execute(select(GameRow).where(GameRow.id == game_id)).first()
            if row is None:
                raise NotFound(f"there is no game {game_id}", code_key="no_game")
            cached = self._info_cache.get(game_id)
            if cached is not None and row.status == "running":
                seats = cached.seats
            else:
                seat_rows = conn.execute(
                    select(SeatRow.seat, SeatRow.kind, SeatRow.user_id, SeatRow.bot, User.name)
                    .outerjoin(User, User.id == SeatRow.user_id)
                    .where(SeatRow.game_id == game_id)
                    .order_by(SeatRow.seat)
                ).all()
                seats = tuple(
                    SeatInfo(r.seat, r.kind, r.user_id, r.name if r.kind != "bot" else f"Bot {r.seat + 1}", r.bot)
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
        )

    def _games(self, where: Any, order: Any = None, limit: int = 200) -> list[GameInfo]:
        query = select(GameRow.id).where(where).limit(limit)
        if order is not None:
            query = query.order_by(*order)
        with self.engine.begin() as conn:
            ids = list(conn.execute(query).scalars())
        return [self.game(gid) for gid in ids]

    def open_games(self, user: UserInfo | None = None) -> list[GameInfo]:
        """Games waiting for players: with an open seat, or with an invitation for ``user``."""
        waiting = select(SeatRow.game_id).where(
            or_(SeatRow.kind == "open", SeatRow.user_id == (user.id if user else -1))
        )
        return self._games((GameRow.status == "open") & GameRow.id.in_(waiting), (GameRow.created_at.desc(),))

    def user_games(self, user_id: int, statuses: Sequence[str] = ("open", "running", "finished")) -> list[GameInfo]:
        mine = select(SeatRow.game_id).where(SeatRow.user_id == user_id)
        games = self._games(GameRow.status.in_(list(statuses)) & GameRow.id.in_(mine), (GameRow.id.desc(),), 500)
        return games

    def my_games(self, user_id: int) -> dict[str, list[GameInfo]]:
        """Running games (mine to move first, longest waiting first), open and finished ones."""
        games = self.user_games(user_id)
        running = [g for g in games if g.status == "running"]
        far = datetime.max.replace(tzinfo=UTC)

        def order(g: GameInfo) -> tuple[int, datetime]:
            my_turn = g.seat_of(user_id) == g.to_move
            return (0 if my_turn else 1, g.turn_since or far)

        running.sort(key=order)
        return {
            "running": running,
            "open": [g for g in games if g.status == "open"],
            "finished": [g for g in games if g.status == "finished"],
        }

    def next_waiting(self, user_id: int) -> int | None:
        """The game where it is this user's turn that has waited longest."""
        with self.engine.begin() as conn:
            return conn.execute(
                select(GameRow.id)
                .join(SeatRow, (SeatRow.game_id == GameRow.id) & (SeatRow.seat == GameRow.to_move))
                .where(GameRow.status == "running", SeatRow.user_id == user_id, SeatRow.kind == "player")
                .order_by(GameRow.turn_since.asc(), GameRow.id.asc())
                .limit(1)
            ).scalar()

    def running_bot_games(self) -> list[int]:
        """Running games where a bot is to move (resumed after a restart)."""
        with self.engine.begin() as conn:
            return list(
                conn.execute(
                    select(GameRow.id)
                    .join(SeatRow, (SeatRow.game_id == GameRow.id) & (SeatRow.seat == GameRow.to_move))
                    .where(GameRow.status == "running", SeatRow.kind == "bot")
                ).scalars()
            )

    def count_games(self) -> dict[str, int]:
        with self.engine.begin() as conn:
            rows = conn.execute(select(GameRow.status, func.count()).group_by(GameRow.status)).all()
        return {status: n for status, n in rows}

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

    def _load_state(self, info: GameInfo) -> Tracked:
        """The game after ``info.seq`` actions: from the cache when it is current, else by replay."""
        with self._cache_lock:
            tracked = self._cache.get(info.id)
            if tracked is not None:
                self._cache.move_to_end(info.id)
        if tracked is not None and tracked.state.move_number() == info.seq:
            return tracked
        with self.engine.begin() as conn:
            rows = conn.execute(
                select(ActionRow.seat, ActionRow.action)
                .where(ActionRow.game_id == info.id, ActionRow.seq < info.seq)
                .order_by(ActionRow.seq)
            ).all()
        tracked = Tracked(eng.initial_state(self.record_of(info, [])))
        for index, r in enumerate(rows):
            try:
                tracked.apply(r.seat, r.action)
            except IllegalAction as exc:
                raise eng.ReplayError(
                    f"game {info.id}: stored action {index + 1} ({r.action!r}) does not apply: {exc}", index, r.action
                ) from exc
        self._cache_put(info.id, tracked)
        return tracked

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

        ``None`` for a game that has not started (or was cancelled).
        """
        with self._lock(game_id):
            info = self.game(game_id)
            if info.status not in ("running", "finished"):
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
    @staticmethod
    def _resolve_chance(tracked: Tracked) -> list[tuple[int, str]]:
        """Apply chance outcomes drawn from the CSPRNG until a seat (or the end) is to move."""
        out: list[tuple[int, str]] = []
        while tracked.state.current_player() == CHANCE:
            action = sample_chance(tracked.state, CHANCE_RNG)
            tracked.apply(CHANCE, action)
            out.append((CHANCE, action))
        return out

    def _db_time(self, dt: datetime) -> Any:
        """A timestamp as plain SQL must pass it: SQLite keeps SQLAlchemy's naive UTC text form."""
        if self._sqlite:
            return dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        return dt

    def _insert_actions(self, conn: Any, game_id: int, start: int, actions: Sequence[tuple[int, str]],
                        now: datetime) -> None:
        # Plain SQL: building SQLAlchemy statements per move costs more than running them.
        if actions:
            when = self._db_time(now)
            conn.exec_driver_sql(
                self._insert_actions_sql,
                [(game_id, start + i, seat, action, when) for i, (seat, action) in enumerate(actions)],
            )

    @staticmethod
    def _finish_if_over(conn: Any, game_id: int, state: State, now: datetime) -> None:
        if state.current_player() == TERMINAL:
            conn.execute(
                update(GameRow).where(GameRow.id == game_id).values(
                    status="finished", finished_at=now, result_json=json.dumps(state.result_json())
                )
            )

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
        if not isinstance(action, str) or not action or len(action) > 200:
            raise BadRequest("an action is a non-empty string of at most 200 characters")
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
                if info.status == "finished":
                    raise Conflict("the game is over", code_key="game_over")
                if info.status != "running":
                    raise Conflict("the game has not started", code_key="not_started")
                if seq != info.seq:
                    raise StaleMove(
                        f"stale move: it was made against move {seq}, but the game is at move {info.seq}; "
                        "reload to see what happened",
                        sent=seq, current=info.seq,
                    )
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
                self._write_move(game_id, seq, new, to_move, state, now)
            except BaseException:
                # The cached state already holds the move: forget it, the next access replays.
                self._cache_drop(game_id)
                raise
            status = "finished" if to_move == TERMINAL else "running"
            if status == "finished":
                self._info_cache.pop(game_id, None)
            if after is not None:
                # The mover's answer, built from the state just stored (saves reading it back).
                result = state.result_json() if status == "finished" else None
                after(dataclasses.replace(info, seq=seq + len(new), to_move=to_move, status=status,
                                          turn_since=now, result=result), tracked)
        event = GameEvent(game_id, seq + len(new), to_move, status, info.is_bot_seat(to_move))
        self._notify(event)
        return event

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
        self, game_id: int, seq: int, new: Sequence[tuple[int, str]], to_move: int, state: State, now: datetime
    ) -> None:
        """Store the move and its chance outcomes against ``seq``: exactly one of concurrent writers wins.

        Plain DB-API statements on a pooled connection: this runs for every move,
        and SQLAlchemy's statement and result machinery cost more than the SQL.
        """
        stale = StaleMove(
            "stale move: another move was stored first; reload to see what happened", sent=seq, current=seq + 1
        )
        when = self._db_time(now)
        raw = self.engine.raw_connection()
        try:
            cur = raw.cursor()
            try:
                cur.execute(self._move_sql, (seq + len(new), to_move, when, game_id, seq))
                if cur.rowcount != 1:
                    raw.rollback()
                    raise stale
                cur.executemany(
                    self._insert_actions_sql,
                    [(game_id, seq + i, s, a, when) for i, (s, a) in enumerate(new)],
                )
                if to_move == TERMINAL:
                    cur.execute(self._finish_sql, ("finished", when, json.dumps(state.result_json()), game_id))
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

    def bot_step(self, game_id: int) -> bool:
        """Play one move for the bot whose turn it is; ``False`` when no bot is to move."""
        with self.state(game_id) as (info, tracked):
            if tracked is None or info.status != "running" or not info.is_bot_seat(info.to_move):
                return False
            seat_info = next(s for s in info.seats if s.seat == info.to_move)
            action = make_bot(seat_info.bot or "random").choose(tracked.state, CHANCE_RNG)
            seq = info.seq
        # StaleMove: someone else (another server) moved first; the caller looks again.
        with contextlib.suppress(StaleMove):
            self.submit(game_id, info.to_move, action, seq)
        return True
