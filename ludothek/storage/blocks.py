"""Blocks as the lobby and the chat see them: checks that run inside their transactions.

`ludothek.services.community.social` explains what a block does and how it serializes with
the lobby across server processes; these helpers take the caller's connection,
so each check sees the block rows as they are inside that transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, or_, select, update

from .errors import Forbidden
from .models import Block, User


class Blocked(Forbidden):
    """Refused because of a block between the two users (either way)."""

    code = "blocked"


# ----------------------------------------------------------------------------- used inside lobby transactions
def lock_users(conn: Connection, user_ids: Iterable[int]) -> None:
    """Hold the rows of ``user_ids`` until the transaction ends (a no-op update, one row at a time in id order).

    Blocks and invitations between the same users serialize on these rows on
    PostgreSQL; on SQLite the update takes the database's write lock.
    """
    for uid in sorted(set(user_ids)):
        conn.execute(update(User).where(User.id == uid).values(name_key=User.name_key))


def share_users(conn: Connection, user_ids: Iterable[int | None]) -> None:
    """PostgreSQL: share-lock the rows of ``user_ids`` in id order, before writing rows that refer to them.

    Every row written with a reference to a user (a seat, the game's row, a mail) makes PostgreSQL
    share-lock that user's row, in whatever order the writes come; a game's end locks its players'
    rows for the ratings in id order.  A start that took the higher id first and then waited for the
    lower one could each hold what an ending waited for, and PostgreSQL broke the deadlock by refusing
    one of them.  Taken here first, in id order, the share locks follow the same order as every other
    lock on user rows.  (``FOR KEY SHARE`` is the lock a reference takes anyway: it keeps others from
    deleting the user, not from changing them.)  SQLite has one writer at a time and ignores it.
    """
    ids = sorted({uid for uid in user_ids if uid is not None})
    if ids:
        conn.execute(
            select(User.id).where(User.id.in_(ids)).order_by(User.id).with_for_update(read=True, key_share=True)
        ).all()


def blocks_among(conn: Connection, user_id: int, others: Iterable[int]) -> list[tuple[int, int]]:
    """The blocks between ``user_id`` and any of ``others``, either way, as ``(blocker, blocked)``."""
    ids = sorted({o for o in others if o is not None and o != user_id})
    if not ids:
        return []
    rows = conn.execute(
        select(Block.user_id, Block.blocked_id).where(
            or_((Block.user_id == user_id) & Block.blocked_id.in_(ids),
                Block.user_id.in_(ids) & (Block.blocked_id == user_id))
        )
    ).all()
    return [(r.user_id, r.blocked_id) for r in rows]


def _names(conn: Connection, ids: Iterable[int]) -> dict[int, str]:
    ids = list(ids)
    return dict(conn.execute(select(User.id, User.name).where(User.id.in_(ids))).all()) if ids else {}


def refuse_blocked_invitations(conn: Connection, creator_id: int, invited: Iterable[int]) -> None:
    """Inside the new game's transaction: `Blocked` if the creator and an invitee have a block between them.

    Only blocks that involve the creator are looked at: a game's creator never
    learns whether two other people blocked each other (that is checked when
    the second of them takes a seat, and told only to them).
    """
    found = blocks_among(conn, creator_id, invited)
    if not found:
        return
    blocker, blocked = found[0]
    if blocker == creator_id:
        name = _names(conn, [blocked]).get(blocked, "?")
        raise Blocked(f"you have blocked {name}; unblock them to invite them", code_key="you_blocked", name=name)
    name = _names(conn, [blocker]).get(blocker, "?")
    raise Blocked(f"{name} does not accept invitations from you", code_key="blocked_invite", name=name)


def refuse_blocked_seat(conn: Connection, user_id: int, seated: Iterable[int]) -> None:
    """Inside a claimed join: `Blocked` if the joining user and a seated player have a block between them."""
    found = blocks_among(conn, user_id, seated)
    mine = [b for a, b in found if a == user_id]
    if mine:
        name = _names(conn, mine[:1]).get(mine[0], "?")
        raise Blocked(f"you have blocked {name}, who plays in this game; unblock them to join",
                      code_key="you_blocked_player", name=name)
    if found:
        raise Blocked("a player of this game has blocked you", code_key="blocked_join")


def block_partners(user_id: int | None) -> Any:
    """A subquery of the users with a block between them and ``user_id`` (either way), for lobby lists."""
    me = -1 if user_id is None else user_id
    return select(Block.blocked_id).where(Block.user_id == me).union(
        select(Block.user_id).where(Block.blocked_id == me)
    )


def blocked_by(conn: Connection, user_id: int) -> set[int]:
    """Whom ``user_id`` has blocked (their chat is hidden from ``user_id``)."""
    return set(conn.execute(select(Block.blocked_id).where(Block.user_id == user_id)).scalars())


def blockers_of(conn: Connection, user_id: int) -> set[int]:
    """Who has blocked ``user_id`` (they do not receive ``user_id``'s chat)."""
    return set(conn.execute(select(Block.user_id).where(Block.blocked_id == user_id)).scalars())
