"""Administration: the site's users, blocking and unblocking them, ending games, administrators.

Used by ``ludothek admin`` and the admin page (``/admin``).  A blocked account cannot log in,
and every browser session and API token it had ends at once, on every server process (their
rows are deleted); its seats stay in their games.  An account becomes an administrator only
through the command line (``ludothek admin make-admin NAME``): nobody can make themselves one
through the web.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update

from ludothek.storage.database import Database
from ludothek.storage.errors import Conflict, NotFound
from ludothek.storage.games import Games
from ludothek.storage.info import GameEvent, UserInfo, aware
from ludothek.storage.models import GameRow, SeatRow, User, utcnow

from .accounts import user_info
from .runtime import GameLocks, Listeners, StateCache, UserCache
from .sessions import Sessions


@dataclass(frozen=True)
class UserRow:
    """One line of the admin page's list of users."""

    id: int
    name: str
    is_guest: bool
    is_admin: bool
    created_at: datetime | None
    blocked_at: datetime | None
    games: int


class Admin:
    """What an administrator may do."""

    def __init__(self, db: Database, games: Games, states: StateCache, locks: GameLocks, listeners: Listeners, sessions: Sessions, users: UserCache) -> None:
        self.db = db
        self.games = games
        self.states = states
        self.locks = locks
        self.listeners = listeners
        self.sessions = sessions
        self.users = users


    def list_users(self, search: str = "", *, blocked_only: bool = False, limit: int = 100,
                   after: int = 0) -> list[UserRow]:
        """Users by id (from ``after`` on), whose name contains ``search``; with the number of their games."""
        games = (select(func.count(SeatRow.id)).where(SeatRow.user_id == User.id, SeatRow.kind == "player")
                 .scalar_subquery())
        query = (select(User.id, User.name, User.is_guest, User.is_admin, User.created_at, User.blocked_at,
                        games.label("games"))
                 .where(User.id > after).order_by(User.id).limit(max(1, min(limit, 1000))))
        if search:
            query = query.where(User.name_key.contains(search.lower()[:40], autoescape=True))
        if blocked_only:
            query = query.where(User.blocked_at.is_not(None))
        with self.db.engine.begin() as conn:
            rows = conn.execute(query).all()
        return [UserRow(r.id, r.name, bool(r.is_guest), bool(r.is_admin), aware(r.created_at), aware(r.blocked_at),
                        int(r.games)) for r in rows]

    def find_user(self, who: str | int) -> UserInfo:
        """A user by id or by name (any case); `NotFound` otherwise (blocked users too)."""
        with self.db.engine.begin() as conn:
            where = User.id == who if isinstance(who, int) else User.name_key == str(who).lower()
            row = conn.execute(select(User).where(where)).first()
        if row is None:
            raise NotFound(f"there is no user {who}", code_key="no_user")
        return user_info(row)

    def block_account(self, who: str | int) -> UserInfo:
        """Block the account: it cannot log in, and every session and token it had ends now."""
        user = self.find_user(who)
        if user.is_admin:
            raise Conflict("an administrator cannot be blocked; take the role away first", code_key="block_admin")
        with self.db.engine.begin() as conn:
            conn.execute(update(User).where(User.id == user.id, User.blocked_at.is_(None)).values(blocked_at=utcnow()))
        self.sessions.end_sessions(user.id)
        return user

    def unblock_account(self, who: str | int) -> UserInfo:
        user = self.find_user(who)
        with self.db.engine.begin() as conn:
            conn.execute(update(User).where(User.id == user.id).values(blocked_at=None))
        self.users.forget(user.id)
        return user

    def set_admin(self, who: str | int, admin: bool = True) -> UserInfo:
        """Make the account an administrator (or take the role away)."""
        user = self.find_user(who)
        if admin and user.is_guest:
            raise Conflict("a guest account cannot be an administrator", code_key="guest_admin")
        with self.db.engine.begin() as conn:
            conn.execute(update(User).where(User.id == user.id).values(is_admin=admin))
        self.users.forget(user.id)
        return self.find_user(user.id)

    def end_game(self, game_id: int) -> str:
        """Cancel a game: one waiting for players is ``cancelled``; a running one ends without a result
        (``abandoned``, counting for nobody, as when its players agree to abandon it).  The new status."""
        with self.locks.get(game_id), self.db.engine.begin() as conn:
            row = conn.execute(select(GameRow.status).where(GameRow.id == game_id)).first()
            if row is None:
                raise NotFound(f"there is no game {game_id}", code_key="no_game")
            if row.status not in ("open", "running"):
                raise Conflict(f"the game is already over ({row.status})", code_key="game_over")
            new = "cancelled" if row.status == "open" else "abandoned"
            ended = utcnow() if new == "abandoned" else None
            # seats_rev + 1: a move another process is storing right now finds the game changed and is refused.
            done = conn.execute(
                update(GameRow).where(GameRow.id == game_id, GameRow.status == row.status)
                .values(status=new, deadline=None, finished_at=ended, seats_rev=GameRow.seats_rev + 1)
            ).rowcount
            if done != 1:
                raise Conflict("the game changed meanwhile; look again", code_key="stale_admin")
            if ended is not None:  # over for profiles and replays too; no places, no ratings, no counts
                conn.execute(update(SeatRow).where(SeatRow.game_id == game_id).values(ended_at=ended))
        self.states.drop(game_id)
        self.games.info_cache.pop(game_id, None)
        info = self.games.game(game_id)
        self.listeners.notify(GameEvent(game_id, info.seq, -2, new))
        return new

    def admin_counts(self) -> dict[str, int]:
        """Users, blocked users and games by status, for the admin page's header."""
        with self.db.engine.begin() as conn:
            users = conn.execute(select(func.count(User.id))).scalar_one()
            blocked = conn.execute(select(func.count(User.id)).where(User.blocked_at.is_not(None))).scalar_one()
            by_status = dict(conn.execute(select(GameRow.status, func.count(GameRow.id)).group_by(GameRow.status)).all())
        return {"users": int(users), "blocked": int(blocked), **{str(k): int(v) for k, v in by_status.items()}}
