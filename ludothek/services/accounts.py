"""Accounts: registration, guests and logins (credentials: `sessions`)."""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ludothek import engine as eng
from ludothek.storage.database import Database
from ludothek.storage.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    Unauthorized,
)
from ludothek.storage.info import UserInfo, aware
from ludothek.storage.models import SeatRow, User, utcnow
from ludothek.storage.text import check_text

from .runtime import UserCache

NAME_RE = re.compile(r"^[A-Za-z0-9ÄÖÜäöüß_.\-]{3,20}$")
#: Names of this form belong to guests (``create_guest``): a real account cannot pose as one.
GUEST_NAME_RE = re.compile(r"^guest-", re.IGNORECASE)
MIN_PASSWORD = 8
GUEST_LIFETIME = timedelta(hours=24)
#: The password hash of an account whose address change was undone (`Notify.undo_email_change`): no
#: password matches it (it is no argon2 hash), so only a reset link sets a new one.
LOCKED_PASSWORD = "!locked"


def usable_hash(pw_hash: str | None) -> bool:
    """Whether a stored hash can match a password at all (guests have none, undone changes lock it)."""
    return pw_hash is not None and not pw_hash.startswith("!")


def user_info(u: Any) -> UserInfo:
    """A user row as the services hand it out."""
    return UserInfo(u.id, u.name, bool(u.is_guest), u.lang, aware(u.guest_expires_at), bool(u.is_admin))


def check_name(name: str) -> str:
    """Refuse a user name that is not 3 to 20 allowed characters or that poses as a guest."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise BadRequest(
            "a user name has 3 to 20 letters, digits, '.', '_' or '-'", code_key="bad_name"
        )
    if GUEST_NAME_RE.match(name):
        raise BadRequest("names beginning with 'guest-' are kept for guest accounts", code_key="guest_name")
    return name


def check_password(password: str) -> None:
    """Refuse a password that is too short or holds characters no text may hold."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise BadRequest(f"a password has at least {MIN_PASSWORD} characters", code_key="bad_password")
    check_text(password, "the password", 200)


class Accounts:
    """Users, guests and passwords (sessions and API tokens: `ludothek.services.sessions`)."""

    def __init__(self, db: Database, hasher: PasswordHasher, users: UserCache) -> None:
        self.db = db
        self.hasher = hasher
        self.users = users

    def register(self, name: str, password: str, lang: str = "en") -> UserInfo:
        check_name(name)
        check_password(password)
        lang = lang if lang in eng.LANGS else "en"
        pw_hash = self.hasher.hash(password)
        try:
            with self.db.engine.begin() as conn:
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
                with self.db.engine.begin() as conn:
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
        """Turn a guest into a real account, keeping its games (`Sessions.convert_guest` also ends the
        guest's credentials: the one to call)."""
        check_name(name)
        check_password(password)
        user = self.user(user_id)
        if user is None:
            raise NotFound("no such user")
        if not user.is_guest:
            raise Conflict("this account is not a guest account")
        pw_hash = self.hasher.hash(password)
        try:
            with self.db.engine.begin() as conn:
                conn.execute(
                    update(User).where(User.id == user_id).values(
                        name=name, name_key=name.lower(), password_hash=pw_hash, is_guest=False,
                        guest_expires_at=None,
                    )
                )
        except IntegrityError:
            raise Conflict(f"the name {name!r} is taken", code_key="name_taken") from None
        self.users.forget(user_id)
        return UserInfo(user_id, name, False, user.lang)

    def authenticate(self, name: str, password: str) -> UserInfo:
        """The user with this name and password; `Unauthorized` otherwise (same message either way)."""
        return self.check_login(name, password)[0]

    def check_login(self, name: str, password: str) -> tuple[UserInfo, int]:
        """The user with this name and password, and the credentials generation read with the hash.

        A session or token made from this check must be created with that generation
        (`Sessions.open_session`, `Sessions.create_token`): if the password changed meanwhile, the
        creation is refused, so a login that checked the old password never outlives the change.
        """
        check_text(name, "the user name", 40)
        check_text(password, "the password", 200)
        with self.db.engine.begin() as conn:
            row = conn.execute(select(User).where(User.name_key == name.lower())).first()
        refusal = Unauthorized("wrong user name or password", code_key="bad_login")
        if row is None or not usable_hash(row.password_hash):
            # Hash anyway so that timing does not reveal whether the name exists.
            self.hasher.hash("not a password")
            raise refusal
        try:
            self.hasher.verify(row.password_hash, password)
        except (VerificationError, InvalidHashError):
            raise refusal from None
        if row.blocked_at is not None:
            # Said only to whoever knows the password: nobody else learns that the account exists.
            raise Forbidden("this account is blocked; ask the site's administrators", code_key="blocked")
        return user_info(row), int(row.cred_gen)

    def confirm_password(self, user_id: int, password: str) -> int:
        """Check the current password before a sensitive change; the credentials generation it had.

        `Unauthorized` (``bad_current_password``) if it is wrong; a guest has none to give
        (`BadRequest`, ``guest_password``): the routes decide what a guest may do without one.
        """
        check_text(password, "the password", 200)
        with self.db.engine.begin() as conn:
            row = conn.execute(select(User.password_hash, User.cred_gen, User.is_guest)
                               .where(User.id == user_id)).first()
        if row is None:
            raise NotFound("no such user")
        if row.is_guest:
            raise BadRequest("a guest account has no password; make it a real account first",
                             code_key="guest_password")
        wrong = Unauthorized("the current password is wrong", code_key="bad_current_password")
        if not usable_hash(row.password_hash):
            self.hasher.hash("not a password")
            raise wrong
        try:
            self.hasher.verify(row.password_hash, password)
        except (VerificationError, InvalidHashError):
            raise wrong from None
        return int(row.cred_gen)

    def generation(self, user_id: int) -> int | None:
        """The user's credentials generation now (``None``: no such user)."""
        with self.db.engine.begin() as conn:
            return conn.execute(select(User.cred_gen).where(User.id == user_id)).scalar()

    def user(self, user_id: int) -> UserInfo | None:
        """The user, or ``None`` if unknown or an expired guest (remembered for a few seconds)."""
        user = self.users.cached(("id", user_id), lambda: self._load_user(user_id))
        if user is not None and user.is_guest and user.guest_expires_at is not None and user.guest_expires_at < utcnow():
            return None
        return user

    def _load_user(self, user_id: int) -> UserInfo | None:
        with self.db.engine.begin() as conn:
            row = conn.execute(select(User).where(User.id == user_id)).first()
        if row is None or row.blocked_at is not None:  # a blocked account acts no more, whatever it holds
            return None
        info = user_info(row)
        if info.is_guest and info.guest_expires_at is not None and info.guest_expires_at < utcnow():
            return None
        return info

    def user_by_name(self, name: str) -> UserInfo | None:
        check_text(name, "the user name", 40)
        with self.db.engine.begin() as conn:
            row = conn.execute(select(User).where(User.name_key == str(name).lower())).first()
        return None if row is None else user_info(row)

    def set_lang(self, user_id: int, lang: str) -> None:
        if lang not in eng.LANGS:
            raise BadRequest(f"language must be one of {', '.join(eng.LANGS)}")
        with self.db.engine.begin() as conn:
            conn.execute(update(User).where(User.id == user_id).values(lang=lang))
        self.users.forget(user_id)

    def purge_expired_guests(self) -> int:
        """Delete expired guests that never joined a game; their names become free again."""
        with self.db.engine.begin() as conn:
            in_games = select(SeatRow.user_id).where(SeatRow.user_id.is_not(None))
            res = conn.execute(
                delete(User).where(
                    User.is_guest.is_(True), User.guest_expires_at < utcnow(), User.id.not_in(in_games)
                )
            )
            return res.rowcount or 0
