"""Friends, blocks and last activity (issue 12, part 4).

**Friends** are one-way, like Yucata's buddy list: putting someone on my list
asks nothing of them and tells them nothing; it lets me see when they were last
active and invite them with one click.

**A block** keeps two people apart: the blocked user can no longer invite the
blocker, join a waiting game the blocker sits in (or created), befriend them, or
be read by them in any game chat.  It works both ways for seating: neither can
take a seat at a waiting table the other sits at, and the blocker's lobby no
longer lists the blocked user's games (nor theirs the blocker's).  Blocking also
takes both off each other's friend lists, and gives back the blocked user's seat
or invitation in every waiting game the two share (the blocker's own seat when
the blocked user created that game).  Running games are not touched: nobody can
be taken out of a game that has started.

**Across server processes.**  The refusals run inside the lobby's own
transactions (`ludothek.services.lobby`), against the block rows as they are at
that moment, and a block serializes with every lobby change that could seat the
two together:

- A join claims its game row first (``Lobby._open_game``); `block` claims
  every waiting game either of the two sits in before it looks at the seats.
  Whichever claim comes second sees what the first one committed.
- Creating a game with invitations and `block` both lock the user rows involved
  (`lock_users`, one row at a time in id order, so two of them cannot deadlock);
  nothing that holds a game row waits for a user row, so no cycle can form.

On SQLite the first write of each of these transactions takes the database's
write lock, which serializes them the same way.

**Last activity** is when the user last used the site while logged in (any
page, API call, move, chat or live socket), written at most every
`ACTIVITY_STEP` seconds per process and shown rounded down to five minutes.  It
names no game and no move, so it reveals nothing any seat could not see.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ludothek.services.accounts import Accounts
from ludothek.services.lobby import Lobby
from ludothek.storage.blocks import Blocked, blocked_by, blocks_among, lock_users
from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, Conflict, NotFound
from ludothek.storage.info import UserInfo, aware
from ludothek.storage.models import Block, Friend, GameRow, SeatRow, User, UserActivity, utcnow
from ludothek.storage.outbox import queue_mail

#: How many users one may keep on the friend list, and on the block list.
MAX_FRIENDS = 500
MAX_BLOCKS = 500
#: Seconds between two writes of a user's last activity (per server process).
ACTIVITY_STEP = 300.0
#: Last activity is shown rounded down to this many seconds.
ACTIVITY_GRAIN = 300


@dataclass(frozen=True)
class FriendInfo:
    """A friend as my list shows them: no game, no move, only when they were last on the site."""

    user_id: int
    name: str
    guest: bool
    since: datetime
    last_active: datetime | None


@dataclass(frozen=True)
class BlockInfo:
    user_id: int
    name: str
    since: datetime


# ----------------------------------------------------------------------------- the service
class Social:
    """Friend lists, block lists and last activity."""

    def __init__(self, db: Database, accounts: Accounts, lobby: Lobby) -> None:
        self.db = db
        self.accounts = accounts
        self.lobby = lobby
        #: User id -> monotonic time this process last wrote their activity.
        self._activity_written: dict[int, float] = {}
        self._activity_lock = threading.Lock()


    def _other(self, user: UserInfo, name: Any, what: str) -> UserInfo:
        """The user called ``name``; `NotFound`, or `BadRequest` for oneself."""
        other = self.accounts.user_by_name(name) if isinstance(name, str) else None
        if other is None:
            raise NotFound(f"there is no user called {name!r}", code_key="no_user_named_plain", name=str(name)[:40])
        if other.id == user.id:
            if what == "friend":
                raise BadRequest("you cannot put yourself on your friend list", code_key="befriend_self")
            raise BadRequest("you cannot block yourself", code_key="block_self")
        return other

    # ------------------------------------------------------------------ friends
    def befriend(self, user: UserInfo, name: str) -> tuple[FriendInfo, bool]:
        """Put ``name`` on ``user``'s friend list; the entry and whether it is new (PUT: adding twice is fine)."""
        other = self._other(user, name, "friend")
        with self.db.engine.begin() as conn:
            lock_users(conn, [user.id, other.id])
            found = blocks_among(conn, user.id, [other.id])
            if any(a == user.id for a, _ in found):
                raise Blocked(f"you have blocked {other.name}; unblock them first", code_key="you_blocked",
                              name=other.name)
            if found:
                raise Blocked(f"{other.name} has blocked you", code_key="blocked_friend", name=other.name)
            exists = conn.execute(
                select(Friend.created_at).where(Friend.user_id == user.id, Friend.friend_id == other.id)
            ).first()
            if exists is None:
                count = conn.execute(select(func.count()).select_from(Friend).where(Friend.user_id == user.id)).scalar_one()
                if count >= MAX_FRIENDS:
                    raise Conflict(f"your friend list is full ({MAX_FRIENDS} people)", code_key="too_many_friends",
                                   n=MAX_FRIENDS)
                conn.execute(insert(Friend).values(user_id=user.id, friend_id=other.id, created_at=utcnow()))
                # Told once, when the entry is new (issue 30): a notice in the same transaction.
                queue_mail(conn, other.id, "friend_request", {"by": user.id})
            # Read in the same transaction: an unfriend committed just after (another tab) cannot take it away.
            entry = self._friend_entries(conn, user.id, other.id)[0]
        return entry, exists is None

    def unfriend(self, user: UserInfo, name: str) -> None:
        if not self._take_off(user, name, Friend.__table__, Friend.friend_id):
            raise NotFound(f"{name!r} is not on your friend list", code_key="not_friend", name=str(name)[:40])

    def _take_off(self, user: UserInfo, name: Any, table: Any, column: Any) -> bool:
        """Delete ``user``'s row naming ``name`` in ``column`` of the friends or blocks table; whether there was one."""
        other = self.accounts.user_by_name(name) if isinstance(name, str) else None
        if other is None:
            return False
        with self.db.engine.begin() as conn:
            # Under the same row locks as `befriend` and `block`: each sees the other's change whole.
            lock_users(conn, [user.id, other.id])
            return bool(conn.execute(delete(table).where(table.c.user_id == user.id, column == other.id)).rowcount)

    def friends(self, user_id: int) -> list[FriendInfo]:
        """My friend list, by name, each with their last activity."""
        with self.db.engine.begin() as conn:
            return self._friend_entries(conn, user_id)

    @staticmethod
    def _friend_entries(conn: Connection, user_id: int, friend_id: int | None = None) -> list[FriendInfo]:
        """The friend list's entries (only ``friend_id``'s, if given), inside the caller's transaction."""
        where = Friend.user_id == user_id
        if friend_id is not None:
            where &= Friend.friend_id == friend_id
        rows = conn.execute(
            select(User.id, User.name, User.is_guest, Friend.created_at, UserActivity.seen_at)
            .join(User, User.id == Friend.friend_id)
            .outerjoin(UserActivity, UserActivity.user_id == Friend.friend_id)
            .where(where)
            .order_by(User.name_key)
        ).all()
        return [FriendInfo(r.id, r.name, bool(r.is_guest), aware(r.created_at) or utcnow(), _coarse(r.seen_at))
                for r in rows]

    def friend_names(self, user_id: int) -> list[str]:
        """The names on my friend list (the new-game form offers them)."""
        with self.db.engine.begin() as conn:
            return list(conn.execute(
                select(User.name).join(Friend, Friend.friend_id == User.id)
                .where(Friend.user_id == user_id).order_by(User.name_key)
            ).scalars())

    # ------------------------------------------------------------------ blocks
    def block(self, user: UserInfo, name: str) -> tuple[BlockInfo, bool]:
        """Block ``name``; the entry and whether it is new.  See the module's docstring for what it does."""
        other = self._other(user, name, "block")
        changed: list[int] = []
        with self.db.engine.begin() as conn:
            lock_users(conn, [user.id, other.id])
            exists = conn.execute(
                select(Block.created_at).where(Block.user_id == user.id, Block.blocked_id == other.id)
            ).first()
            if exists is None:
                count = conn.execute(select(func.count()).select_from(Block).where(Block.user_id == user.id)).scalar_one()
                if count >= MAX_BLOCKS:
                    raise Conflict(f"your block list is full ({MAX_BLOCKS} people)", code_key="too_many_blocks",
                                   n=MAX_BLOCKS)
                conn.execute(insert(Block).values(user_id=user.id, blocked_id=other.id, created_at=utcnow()))
            conn.execute(delete(Friend).where(
                or_((Friend.user_id == user.id) & (Friend.friend_id == other.id),
                    (Friend.user_id == other.id) & (Friend.friend_id == user.id))
            ))
            changed = self._separate(conn, user.id, other.id)
            # Read in the same transaction: an unblock committed just after (another tab) cannot take it away.
            entry = self._block_entries(conn, user.id, other.id)[0]
        for gid in changed:
            self.lobby.after_change(gid, None)
        return entry, exists is None

    def _separate(self, conn: Connection, blocker: int, blocked: int) -> list[int]:
        """Give back seats and invitations so that the two share no waiting game; the games changed."""
        either = select(SeatRow.game_id).where(SeatRow.user_id.in_((blocker, blocked)))
        # Claim every waiting game either sits in (a join claims its game the same way): a join that
        # committed first is seen below, one that comes later sees the block.
        claimed = conn.execute(
            update(GameRow).where(GameRow.status == "open", GameRow.id.in_(either)).values(status="open")
            .returning(GameRow.id, GameRow.creator_id)
        ).all()
        changed = []
        for gid, creator in sorted(claimed):
            people = set(conn.execute(
                select(SeatRow.user_id).where(SeatRow.game_id == gid, SeatRow.kind.in_(("player", "invited")))
            ).scalars())
            if not {blocker, blocked} <= people:
                continue
            leaving = blocker if creator == blocked else blocked
            conn.execute(
                update(SeatRow)
                .where(SeatRow.game_id == gid, SeatRow.user_id == leaving, SeatRow.kind.in_(("player", "invited")))
                .values(kind="open", user_id=None)
            )
            changed.append(gid)
        return changed

    def unblock(self, user: UserInfo, name: str) -> None:
        if not self._take_off(user, name, Block.__table__, Block.blocked_id):
            raise NotFound(f"you have not blocked {name!r}", code_key="not_blocked", name=str(name)[:40])

    def blocks(self, user_id: int) -> list[BlockInfo]:
        with self.db.engine.begin() as conn:
            return self._block_entries(conn, user_id)

    @staticmethod
    def _block_entries(conn: Connection, user_id: int, blocked_id: int | None = None) -> list[BlockInfo]:
        """The block list's entries (only ``blocked_id``'s, if given), inside the caller's transaction."""
        where = Block.user_id == user_id
        if blocked_id is not None:
            where &= Block.blocked_id == blocked_id
        rows = conn.execute(
            select(User.id, User.name, Block.created_at)
            .join(User, User.id == Block.blocked_id)
            .where(where)
            .order_by(User.name_key)
        ).all()
        return [BlockInfo(r.id, r.name, aware(r.created_at) or utcnow()) for r in rows]

    def blocked_ids(self, user_id: int) -> set[int]:
        with self.db.engine.begin() as conn:
            return blocked_by(conn, user_id)

    # ------------------------------------------------------------------ last activity
    def touch(self, user_id: int, now: datetime | None = None) -> None:
        """Note that ``user_id`` is using the site; written at most every `ACTIVITY_STEP` seconds per process."""
        tick = time.monotonic()
        with self._activity_lock:
            last = self._activity_written.get(user_id)
            if last is not None and tick - last < ACTIVITY_STEP:
                return
            if len(self._activity_written) > 100_000:
                self._activity_written.clear()
            self._activity_written[user_id] = tick
        when = now or utcnow()
        try:
            with self.db.engine.begin() as conn:
                conn.execute(self.db.upsert(UserActivity, [UserActivity.user_id], {"user_id": user_id, "seen_at": when},
                                          {"seen_at": when}))
        except IntegrityError:  # the user was deleted meanwhile
            pass

    def last_active(self, user_id: int) -> datetime | None:
        with self.db.engine.begin() as conn:
            return _coarse(conn.execute(select(UserActivity.seen_at).where(UserActivity.user_id == user_id)).scalar())


def _coarse(value: datetime | None) -> datetime | None:
    """A last-activity time rounded down to `ACTIVITY_GRAIN` seconds."""
    value = aware(value)
    if value is None:
        return None
    return value.replace(second=0, microsecond=0, minute=value.minute - value.minute % (ACTIVITY_GRAIN // 60))
