"""Credentials: browser sessions and API tokens, both checked against the database on every request.

A browser session is a row in ``sessions``; the cookie carries only a random
secret whose SHA-256 is the row's key.  An API token is a row in
``api_tokens`` the same way.  Ending one is deleting its row, so it stops
working at once on every server process: the lookups below are never cached
(one indexed read each, by plain SQL, as cheap as a cache miss can be).  Only
the user's name and language behind a valid credential may come from the
short-lived user cache of `StoreBase`, and that cache can never make a
credential valid.

Logging out ends the one session; changing the password ends every other
session and token; "log out everywhere" ends them all; converting a guest
ends every credential issued to the guest; deleting a user deletes its rows.

Credentials generations (``users.cred_gen``): a login reads the generation
with the password hash it checks (`Accounts.check_login`), and the
transaction that creates its session or token first claims the user's row
on the condition that the generation is still that value (`claim_user`).
A password change or reset raises the generation and ends the other
credentials in one transaction that claims the same row.  The two
serialize on that row (PostgreSQL's row lock, SQLite's write lock): either
the login's credential exists before the change and the change deletes it,
or the login finds the generation raised and is refused like a wrong
password.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Connection, delete, insert, select, update

from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, Conflict, Forbidden, NotFound, Unauthorized
from ludothek.storage.info import UserInfo, aware, token_hash
from ludothek.storage.models import ApiToken, SessionRow, User, utcnow
from ludothek.storage.text import check_text

from .accounts import Accounts, check_password, usable_hash
from .runtime import UserCache

#: A browser session lasts this long from login (the cookie's max-age says the same).
SESSION_LIFETIME = timedelta(days=30)
#: How often "last used" of a token is written at most (a write per request would cost every move).
LAST_USED_STEP = 60.0
#: Every this many new sessions, expired sessions and tokens are deleted (and at every start).
PURGE_EVERY = 500
#: The longest expiry a token may be given.
MAX_TOKEN_DAYS = 3650


@dataclass(frozen=True)
class TokenInfo:
    """What the owner may see of a token: never the token itself (only its hash is stored)."""

    id: int
    label: str
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None


@dataclass(frozen=True)
class Credential:
    """Which credential a request came with, so that a change can keep exactly that one."""

    session: str | None = None  # the session secret
    token: str | None = None  # the API token


def claim_user(conn: Connection, user_id: int, gen: int | None) -> None:
    """Hold the user's row for this transaction, if the account is not blocked and (given ``gen``) its
    credentials generation is still ``gen``; otherwise refuse, and the transaction creates nothing.

    A write that changes nothing (``cred_gen = cred_gen``), so that it takes the row lock on PostgreSQL
    and the write lock on SQLite before the generation is compared: a concurrent password change either
    finished before (the generation differs: refused) or waits for this transaction (and then ends
    what it created).
    """
    stmt = update(User).where(User.id == user_id, User.blocked_at.is_(None)).values(cred_gen=User.cred_gen)
    if gen is not None:
        stmt = stmt.where(User.cred_gen == gen)
    if conn.execute(stmt).rowcount == 1:
        return
    if conn.execute(select(User.blocked_at).where(User.id == user_id)).scalar() is not None:
        raise Forbidden("this account is blocked; ask the site's administrators", code_key="blocked")
    # The password it checked is no longer the password (or the account is gone): a failed login.
    raise Unauthorized("wrong user name or password", code_key="bad_login")


def raise_generation(conn: Connection, user_id: int, **values: Any) -> int:
    """Raise the user's credentials generation (with ``values`` for the row); rows changed (0 or 1)."""
    res = conn.execute(update(User).where(User.id == user_id).values(cred_gen=User.cred_gen + 1, **values))
    return res.rowcount or 0


def end_credentials(conn: Connection, user_id: int, keep: Credential | None = None) -> None:
    """Delete every session and token of the user except ``keep``, inside the caller's transaction."""
    keep = keep or Credential()
    sessions = delete(SessionRow).where(SessionRow.user_id == user_id)
    if keep.session is not None:
        sessions = sessions.where(SessionRow.key_hash != token_hash(keep.session))
    conn.execute(sessions)
    tokens = delete(ApiToken).where(ApiToken.user_id == user_id)
    if keep.token is not None:
        tokens = tokens.where(ApiToken.token_hash != token_hash(keep.token))
    conn.execute(tokens)


class Sessions:
    """Browser sessions and API tokens, checked fresh on every request."""

    def __init__(self, db: Database, hasher: PasswordHasher, accounts: Accounts, users: UserCache) -> None:
        self.db = db
        self.hasher = hasher
        self.accounts = accounts
        self.users = users
        mark = db.mark
        self._session_sql = f"SELECT user_id, expires_at FROM sessions WHERE key_hash = {mark}"
        self._token_sql = f"SELECT id, user_id, expires_at, last_used_at FROM api_tokens WHERE token_hash = {mark}"
        self._touch_sql = f"UPDATE api_tokens SET last_used_at = {mark} WHERE id = {mark}"
        #: Token id -> monotonic time this process last wrote its "last used".
        self._touched: dict[int, float] = {}
        self._touch_lock = threading.Lock()
        self._opened = 0

    @staticmethod
    def _when(value: Any) -> datetime | None:
        if isinstance(value, str):  # SQLite hands the raw text to plain SQL
            value = datetime.fromisoformat(value)
        return aware(value)

    # ------------------------------------------------------------------ browser sessions
    def open_session(self, user_id: int, gen: int | None = None) -> str:
        """A new session for the user; the returned secret goes into the signed cookie.

        ``gen``: the credentials generation read with the password that was checked (`claim_user`);
        ``None`` for a session that no password check led to (registration, a converted guest).
        """
        secret = secrets.token_urlsafe(32)
        now = utcnow()
        with self.db.engine.begin() as conn:
            claim_user(conn, user_id, gen)
            conn.execute(
                insert(SessionRow).values(
                    user_id=user_id, key_hash=token_hash(secret), created_at=now, expires_at=now + SESSION_LIFETIME
                )
            )
        self._opened += 1
        if self._opened % PURGE_EVERY == 0:  # a server that runs for months still sheds old rows
            self.purge_expired_sessions()
        return secret

    def session_user(self, secret: str) -> UserInfo | None:
        """The user of a live session; ``None`` if it was ended, has expired, or its user is gone."""
        row = self.db.read_one(self._session_sql, (token_hash(secret),))
        if row is None:
            return None
        expires = self._when(row[1])
        if expires is None or expires <= utcnow():
            return None
        return self.accounts.user(row[0])

    def end_session(self, secret: str) -> None:
        with self.db.engine.begin() as conn:
            conn.execute(delete(SessionRow).where(SessionRow.key_hash == token_hash(secret)))

    def end_sessions(self, user_id: int, keep: Credential | None = None) -> None:
        """End every browser session and revoke every API token of the user, except ``keep``."""
        with self.db.engine.begin() as conn:
            end_credentials(conn, user_id, keep)
        self.users.forget(user_id)

    def session_count(self, user_id: int) -> int:
        """How many live browser sessions the user has (the account page shows it)."""
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(SessionRow.id).where(SessionRow.user_id == user_id, SessionRow.expires_at > utcnow())
            ).all()
        return len(rows)

    def purge_expired_sessions(self) -> int:
        with self.db.engine.begin() as conn:
            gone = conn.execute(delete(SessionRow).where(SessionRow.expires_at <= utcnow())).rowcount or 0
            gone += conn.execute(delete(ApiToken).where(ApiToken.expires_at <= utcnow())).rowcount or 0
        return gone

    # ------------------------------------------------------------------ API tokens
    def create_token(self, user_id: int, label: str = "", expires_in_days: int | None = None,
                     gen: int | None = None) -> str:
        """A new API token; only its hash is stored, so it is shown once.

        ``gen``: as for `open_session`: the token exists only if the password it was made with is
        still the password.
        """
        label = check_text(str(label), "a token label", 80)
        if expires_in_days is not None and not 1 <= expires_in_days <= MAX_TOKEN_DAYS:
            raise BadRequest(f"a token expires after 1 to {MAX_TOKEN_DAYS} days", code_key="bad_expiry")
        token = "ldk_" + secrets.token_urlsafe(32)
        now = utcnow()
        expires = now + timedelta(days=expires_in_days) if expires_in_days is not None else None
        with self.db.engine.begin() as conn:
            claim_user(conn, user_id, gen)
            conn.execute(
                insert(ApiToken).values(
                    user_id=user_id, token_hash=token_hash(token), label=label, created_at=now, expires_at=expires
                )
            )
        return token

    def user_by_token(self, token: str) -> UserInfo | None:
        """The user behind a live token; ``None`` if it is unknown, revoked or expired."""
        row = self.db.read_one(self._token_sql, (token_hash(token),))
        if row is None:
            return None
        token_id, user_id, expires, last_used = row[0], row[1], self._when(row[2]), self._when(row[3])
        now = utcnow()
        if expires is not None and expires <= now:
            return None
        self._touch(token_id, last_used, now)
        return self.accounts.user(user_id)

    def _touch(self, token_id: int, last_used: datetime | None, now: datetime) -> None:
        if last_used is not None and (now - last_used).total_seconds() < LAST_USED_STEP:
            return
        tick = time.monotonic()
        with self._touch_lock:
            if tick - self._touched.get(token_id, -LAST_USED_STEP) < LAST_USED_STEP:
                return
            if len(self._touched) > 100_000:
                self._touched.clear()
            self._touched[token_id] = tick
        with self.db.engine.begin() as conn:
            conn.exec_driver_sql(self._touch_sql, (self.db.db_time(now), token_id))

    def tokens(self, user_id: int) -> list[TokenInfo]:
        """The user's live tokens, newest first."""
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(ApiToken).where(ApiToken.user_id == user_id).order_by(ApiToken.id.desc())
            ).all()
        now = utcnow()
        out = []
        for r in rows:
            expires = aware(r.expires_at)
            if expires is not None and expires <= now:
                continue
            out.append(TokenInfo(r.id, r.label, aware(r.created_at) or now, aware(r.last_used_at), expires))
        return out

    def revoke_token(self, user_id: int, token_id: int) -> None:
        """Delete one of the user's tokens; another user's token is "not found", as an unknown one."""
        with self.db.engine.begin() as conn:
            gone = conn.execute(
                delete(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == user_id)
            ).rowcount
        if not gone:
            raise NotFound(f"you have no token {token_id}", code_key="no_token")

    # ------------------------------------------------------------------ passwords
    def change_password(self, user_id: int, current: str, new: str, keep: Credential | None = None) -> None:
        """Set a new password after checking the current one; every other session and token ends."""
        check_password(new)
        with self.db.engine.begin() as conn:
            row = conn.execute(select(User.password_hash, User.cred_gen).where(User.id == user_id)).first()
        if row is None:
            raise NotFound("no such user")
        if row.password_hash is None:
            raise BadRequest("a guest account has no password; make it a real account first",
                             code_key="guest_password")
        wrong = Unauthorized("the current password is wrong", code_key="bad_current_password")
        check_text(current, "the password", 200)
        if not usable_hash(row.password_hash):
            raise wrong
        try:
            self.hasher.verify(row.password_hash, current)
        except (VerificationError, InvalidHashError):
            raise wrong from None
        pw_hash = self.hasher.hash(new)
        with self.db.engine.begin() as conn:
            # Only if nothing changed the credentials since the check: the password checked is the one replaced.
            changed = conn.execute(
                update(User).where(User.id == user_id, User.cred_gen == row.cred_gen)
                .values(password_hash=pw_hash, cred_gen=User.cred_gen + 1)
            ).rowcount
            if changed != 1:
                raise Conflict("the password or address was changed meanwhile; try again", code_key="cred_changed")
            end_credentials(conn, user_id, keep)
        self.users.forget(user_id)

    def convert_guest(self, user_id: int, name: str, password: str) -> UserInfo:
        """As `Accounts.convert_guest`, and every credential the guest had ends."""
        user = self.accounts.convert_guest(user_id, name, password)
        self.end_sessions(user_id)
        return user
