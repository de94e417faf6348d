"""E-mail addresses, notification settings, single-use mail links and password reset by mail.

An address counts only once its owner opened the verification link; until
then it is ``pending``.  Addresses leave this module only towards their owner
(account page, ``/api/me/notifications``) and the mail sender: never in
another player's view, never in a log line.

Verification and reset mails are limited to `MAIL_LIMIT` per user per hour,
counted in the outbox itself (the same transaction that queues the mail).

Reset links are bound to what they were sent for: the credentials generation
(``users.cred_gen``) and the verified address at the time the reset was asked
for travel with the link, and the link works only while both are unchanged.
Every password change, reset and address change raises the generation, so it
makes every outstanding reset link stale (the used one included).  Only the
newest reset link works: asking for one raises the reset generation
(``users.reset_gen``, issue 30) that the link also carries, so every link asked
for before is stale, sent or still queued (its mail is then not sent at all).
Opening a link (`check_reset_link`) says at once whether it was used or is
stale; the form never shows for a link that cannot work.

When a verified address is replaced or removed, the old address is told,
with a link that undoes the change once within a few days (`EmailChange`):
the old address comes back, every session and token ends, the password is
locked, and a reset link goes to the old address.  Undoing a change spends
the links of the later changes, never of earlier ones.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from email_validator import EmailNotValidError, validate_email
from sqlalchemy import Connection, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, Conflict, NotFound, TooManyAttempts
from ludothek.storage.models import (
    EmailChange,
    NotifyPrefs,
    OutboxRow,
    SeatRow,
    UsedLink,
    User,
    UserEmail,
    utcnow,
)
from ludothek.storage.outbox import queue_mail
from ludothek.storage.text import check_text

from .accounts import LOCKED_PASSWORD, check_password
from .runtime import UserCache
from .sessions import Sessions, end_credentials, raise_generation

#: Verification and reset mails a user can cause per hour.
MAIL_LIMIT = 5
MAIL_WINDOW = timedelta(hours=1)
TURN_MODES = ("each", "digest", "off")


@dataclass(frozen=True)
class EmailInfo:
    """The owner's own view of their address."""

    address: str | None  # verified: mail goes here
    pending: str | None  # waiting for its verification link


@dataclass(frozen=True)
class ChangeInfo:
    """A replaced or removed verified address (`EmailChange`), as its notice mail needs it."""

    id: int
    user_id: int
    old_address: str
    new_address: str | None  # None: removed
    used: bool


@dataclass(frozen=True)
class Prefs:
    """What a user wants to be told by mail (see `NotifyPrefs`)."""

    turns: str = "each"
    digest_hour: int = 18
    timezone: str = "UTC"
    invites: bool = True
    ended: bool = True
    last_digest_on: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"turns": self.turns, "digest_hour": self.digest_hour, "timezone": self.timezone,
                "invites": self.invites, "ended": self.ended}


class LinkRefused(BadRequest):
    """A mail link that is expired, tampered with, already used or no longer fits."""

    code = "bad_link"


def check_address(address: Any) -> str:
    """The normalized address, or `BadRequest` with the validator's reason (syntax only, no DNS)."""
    if not isinstance(address, str) or not address.strip():
        raise BadRequest("give an e-mail address", code_key="bad_email", reason="empty")
    check_text(address, "the e-mail address", 254)
    try:
        return str(validate_email(address.strip(), check_deliverability=False).normalized)
    except EmailNotValidError as exc:
        raise BadRequest(f"this is not a valid e-mail address: {exc}", code_key="bad_email",
                         reason=str(exc)) from None


def check_timezone(name: Any) -> str:
    if not isinstance(name, str) or not name or len(name) > 64:
        raise BadRequest("unknown time zone", code_key="bad_timezone")
    check_text(name, "the time zone", 64)
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise BadRequest(f"unknown time zone {name!r}; use a name such as Europe/Berlin",
                         code_key="bad_timezone") from None
    return name


class Notify:
    """Addresses, settings, mail links, and the counts the pages show."""

    def __init__(self, db: Database, hasher: PasswordHasher, sessions: Sessions, users: UserCache) -> None:
        self.db = db
        self.hasher = hasher
        self.sessions = sessions
        self.users = users
        #: Told the user id whenever that user's settings change (`ludothek.services.notices.prefs` forgets its copy).
        self.prefs_listeners: list[Callable[[int], None]] = []

    def _changed(self, user_id: int) -> None:
        """Tell the listeners that the user's address or settings changed."""
        for listener in self.prefs_listeners:
            listener(user_id)

    # ------------------------------------------------------------------ addresses
    def email_of(self, user_id: int) -> EmailInfo:
        with self.db.engine.begin() as conn:
            row = conn.execute(select(UserEmail).where(UserEmail.user_id == user_id)).first()
        return EmailInfo(row.address, row.pending) if row is not None else EmailInfo(None, None)

    def request_verification(self, user_id: int, address: Any, now: datetime | None = None) -> str:
        """Make ``address`` the pending address and queue its verification mail (rate-limited)."""
        address = check_address(address)
        now = now or utcnow()
        with self.db.engine.begin() as conn:
            if conn.execute(select(User.is_guest).where(User.id == user_id)).scalar():
                raise Conflict("a guest account cannot have an e-mail address; make it a real account first",
                               code_key="guest_email")
            self._check_mail_rate(conn, user_id, now)
            pending = {"pending": address, "pending_since": now}
            conn.execute(self.db.upsert(UserEmail, [UserEmail.user_id], {"user_id": user_id, **pending}, pending))
            queue_mail(conn, user_id, "verify", {"address": address}, now=now)
        return address

    def _check_mail_rate(self, conn: Connection, user_id: int, now: datetime) -> None:
        count = conn.execute(
            select(func.count()).select_from(OutboxRow).where(
                # Written as in the partial index's definition, so that the database can use it.
                OutboxRow.user_id == user_id, text("kind IN ('verify', 'reset')"),
                OutboxRow.created_at > now - MAIL_WINDOW,
            )
        ).scalar_one()
        if count >= MAIL_LIMIT:
            raise TooManyAttempts(
                f"at most {MAIL_LIMIT} verification or reset mails an hour; try again later", 3600
            )

    def verify_email(self, user_id: int, address: str, nonce: str, now: datetime | None = None) -> str:
        """Open a verification link: its address becomes the one mail goes to (once).

        If it replaces another verified address, that address is told (with an undo link) and every
        outstanding reset link becomes stale.
        """
        now = now or utcnow()
        with self.db.engine.begin() as conn:
            self._use_nonce(conn, nonce, now)  # rolled back with everything else if the link does not fit
            row = conn.execute(select(UserEmail).where(UserEmail.user_id == user_id)).first()
            if row is None or row.pending != address:
                raise LinkRefused("this link is for an address that is no longer waiting to be confirmed",
                                  code_key="link_stale")
            conn.execute(update(UserEmail).where(UserEmail.user_id == user_id).values(
                address=address, verified_at=now, pending=None, pending_since=None))
            if row.address != address:
                self._address_changed(conn, user_id, row.address, address, now)
        self._changed(user_id)
        return address

    def remove_email(self, user_id: int, now: datetime | None = None) -> None:
        """Remove the address (verified and pending); a verified one is told, with an undo link."""
        now = now or utcnow()
        with self.db.engine.begin() as conn:
            old = conn.execute(select(UserEmail.address).where(UserEmail.user_id == user_id)).scalar()
            conn.execute(update(UserEmail).where(UserEmail.user_id == user_id).values(
                address=None, verified_at=None, pending=None, pending_since=None))
            if old is not None:
                self._address_changed(conn, user_id, old, None, now)
        self._changed(user_id)

    @staticmethod
    def _address_changed(conn: Connection, user_id: int, old: str | None, new: str | None, now: datetime) -> None:
        """The verified address changed: reset links go stale, and the old address gets a notice."""
        raise_generation(conn, user_id)
        if old is None:
            return
        change_id = conn.execute(insert(EmailChange).values(
            user_id=user_id, old_address=old, new_address=new, created_at=now).returning(EmailChange.id)
        ).scalar_one()
        queue_mail(conn, user_id, "email_changed", {"change": change_id}, now=now)

    def email_change(self, change_id: int) -> ChangeInfo | None:
        """A recorded address change (what its notice mail says, whether it was undone)."""
        with self.db.engine.begin() as conn:
            row = conn.execute(select(EmailChange).where(EmailChange.id == change_id)).first()
        return None if row is None else ChangeInfo(row.id, row.user_id, row.old_address, row.new_address,
                                                     row.used_at is not None)

    def undo_email_change(self, user_id: int, change_id: int, now: datetime | None = None) -> str:
        """The link in an address-change notice: restore the old address, end every credential, lock the
        password and send a reset link to the old address.

        Once per change.  Undoing a change also spends the links of every later change of the account,
        but not those of earlier ones: whoever changed the address twice (A to B to C) cannot keep A's
        owner out by undoing the second change, since A's link still undoes the first (and then C's
        and B's links are spent).
        """
        now = now or utcnow()
        with self.db.engine.begin() as conn:
            # A write first: it claims the row (and SQLite's write lock) before anything is compared.
            claimed = conn.execute(update(EmailChange).where(
                EmailChange.id == change_id, EmailChange.user_id == user_id, EmailChange.used_at.is_(None),
            ).values(used_at=now)).rowcount
            if claimed != 1:
                raise LinkRefused("this link was used already", code_key="link_used")
            change = conn.execute(select(EmailChange).where(EmailChange.id == change_id)).one()
            conn.execute(update(EmailChange).where(
                EmailChange.user_id == user_id, EmailChange.id > change_id, EmailChange.used_at.is_(None),
            ).values(used_at=now))
            conn.execute(update(UserEmail).where(UserEmail.user_id == user_id).values(
                address=change.old_address, verified_at=now, pending=None, pending_since=None))
            raise_generation(conn, user_id, password_hash=LOCKED_PASSWORD)
            gen = conn.execute(select(User.cred_gen).where(User.id == user_id)).scalar_one()
            end_credentials(conn, user_id)
            queue_mail(conn, user_id, "reset", {"gen": gen, "address": change.old_address,
                                                "reset": _next_reset_gen(conn, user_id)}, now=now)
        self.users.forget(user_id)
        self._changed(user_id)
        return str(change.old_address)

    @staticmethod
    def _use_nonce(conn: Connection, nonce: str, now: datetime) -> None:
        try:
            with conn.begin_nested():
                conn.execute(insert(UsedLink).values(nonce=nonce, used_at=now))
        except IntegrityError:
            raise LinkRefused("this link was used already", code_key="link_used") from None

    # ------------------------------------------------------------------ settings
    def prefs(self, user_id: int) -> Prefs:
        with self.db.engine.begin() as conn:
            row = conn.execute(select(NotifyPrefs).where(NotifyPrefs.user_id == user_id)).first()
        if row is None:
            return Prefs()
        return Prefs(row.turns, row.digest_hour, row.timezone, bool(row.invites), bool(row.ended),
                     row.last_digest_on)

    def set_prefs(self, user_id: int, **changes: Any) -> Prefs:
        """Change some settings; each is checked, and nothing changes if one is wrong."""
        with self.db.engine.begin() as conn:
            if conn.execute(select(User.id).where(User.id == user_id)).first() is None:
                raise NotFound("no such user")
        current = self.prefs(user_id)
        values = current.to_json()
        changed: dict[str, Any] = {}
        for key, value in changes.items():
            if value is None:
                continue
            if key == "turns":
                if value not in TURN_MODES:
                    raise BadRequest(f"turns must be one of {', '.join(TURN_MODES)}", code_key="bad_turns")
            elif key == "digest_hour":
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 23:
                    raise BadRequest("the digest hour is a whole number from 0 to 23", code_key="bad_hour")
            elif key == "timezone":
                value = check_timezone(value)
            elif key in ("invites", "ended"):
                if not isinstance(value, bool):
                    raise BadRequest(f"{key} is true or false")
            else:
                raise BadRequest(f"unknown setting {key!r}")
            values[key] = changed[key] = value
        if changed:
            # One upsert that writes only what changed: two tabs saving at once (the first time, or
            # different settings) neither collide on the new row nor undo each other's change.
            with self.db.engine.begin() as conn:
                conn.execute(self.db.upsert(NotifyPrefs, [NotifyPrefs.user_id],
                                          {"user_id": user_id, "last_digest_on": None, **values}, changed))
            self._changed(user_id)
        return self.prefs(user_id)

    def unsubscribe(self, user_id: int) -> None:
        """The one-click unsubscribe: no more notification mails of any kind."""
        self.set_prefs(user_id, turns="off", invites=False, ended=False)

    def mark_digest(self, user_id: int, local_date: str) -> bool:
        """Claim today's digest for the user (``False``: it was claimed already)."""
        with self.db.engine.begin() as conn:
            res = conn.execute(
                update(NotifyPrefs).where(
                    NotifyPrefs.user_id == user_id,
                    (NotifyPrefs.last_digest_on.is_(None)) | (NotifyPrefs.last_digest_on != local_date),
                ).values(last_digest_on=local_date)
            )
            if res.rowcount == 1:
                queue_mail(conn, user_id, "digest", {"date": local_date})
                return True
        return False

    def digest_users(self) -> list[tuple[int, Prefs]]:
        """Users who chose the daily digest and have a verified address."""
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(NotifyPrefs).join(UserEmail, UserEmail.user_id == NotifyPrefs.user_id)
                .where(NotifyPrefs.turns == "digest", UserEmail.address.is_not(None))
            ).all()
        return [(r.user_id, Prefs(r.turns, r.digest_hour, r.timezone, bool(r.invites), bool(r.ended),
                                  r.last_digest_on)) for r in rows]

    # ------------------------------------------------------------------ password reset
    def request_reset(self, who: Any, now: datetime | None = None) -> None:
        """Queue a reset mail for the account named ``who`` (name or verified address), if any.

        Says nothing either way: the caller answers the same whether or not the
        account exists, has an address, or has had its 5 mails this hour.
        """
        if not isinstance(who, str) or not who.strip() or len(who) > 254:
            return
        try:
            check_text(who, "the name", 254)
        except BadRequest:
            return
        now = now or utcnow()
        key = who.strip().lower()
        with self.db.engine.begin() as conn:
            row = conn.execute(
                select(User.id, User.cred_gen, UserEmail.address).join(UserEmail, UserEmail.user_id == User.id).where(
                    UserEmail.address.is_not(None),
                    (User.name_key == key) | (func.lower(UserEmail.address) == key),
                ).limit(1)
            ).first()
            if row is None:
                return
            try:
                self._check_mail_rate(conn, row.id, now)
            except TooManyAttempts:
                return
            # The link is made when the mail is sent, bound to these three (see `reset_password`); the new
            # reset generation ends every link asked for before.
            queue_mail(conn, row.id, "reset", {"gen": row.cred_gen, "address": row.address,
                                               "reset": _next_reset_gen(conn, row.id)}, now=now)

    def reset_generation(self, user_id: int) -> int | None:
        """The user's reset-link generation now (``None``: no such user): only a link with it works."""
        with self.db.engine.begin() as conn:
            return conn.execute(select(User.reset_gen).where(User.id == user_id)).scalar()

    def check_reset_link(self, user_id: int, nonce: str, gen: Any, address: Any, reset: Any) -> None:
        """`LinkRefused` saying why a reset link cannot work (used, stale, replaced by a newer one); changes
        nothing.  Opening a link asks this first, so the form shows only for a link that can work."""
        with self.db.engine.begin() as conn:
            self._refuse_reset(conn, user_id, nonce, gen, address, reset)

    @staticmethod
    def _refuse_reset(conn: Connection, user_id: int, nonce: str, gen: Any, address: Any, reset: Any,
                      used_checked: bool = False) -> None:
        if not used_checked and conn.execute(select(UsedLink.nonce).where(UsedLink.nonce == nonce)).first():
            raise LinkRefused("this link was used already", code_key="link_used")
        stale = LinkRefused("this link no longer fits (the password or the address has changed since it "
                            "was sent); ask for a new one", code_key="link_stale")
        if any(isinstance(v, bool) or not isinstance(v, int) for v in (gen, reset)) or not isinstance(address, str):
            raise stale  # a link made before links were bound to the generations and the address
        row = conn.execute(select(User.cred_gen, User.reset_gen, User.is_guest).where(User.id == user_id)).first()
        current = conn.execute(select(UserEmail.address).where(UserEmail.user_id == user_id)).scalar()
        if row is None or row.is_guest or row.cred_gen != gen or current != address:
            raise stale
        if row.reset_gen != reset:
            raise LinkRefused("a newer reset link was sent since this one; use the newest", code_key="link_replaced")

    def reset_password(self, user_id: int, nonce: str, new: str, gen: Any, address: Any, reset: Any = None,
                       now: datetime | None = None) -> None:
        """Set a new password from a reset link (once); every session and token of the user ends.

        ``gen``, ``address`` and ``reset`` come from the signed link: it works only while the account's
        credentials generation, verified address and reset generation are still those it was sent
        for.  Using it raises the credentials generation, so no other reset link works afterwards.
        """
        check_password(new)
        pw_hash = self.hasher.hash(new)
        now = now or utcnow()
        with self.db.engine.begin() as conn:
            self._use_nonce(conn, nonce, now)  # a write first: the transaction holds the write lock from here
            # Claim the row, then compare: a reset asked for or a password changed at the same moment
            # waits for this transaction, or this one sees its change.
            conn.execute(update(User).where(User.id == user_id).values(cred_gen=User.cred_gen))
            self._refuse_reset(conn, user_id, nonce, gen, address, reset, used_checked=True)
            conn.execute(update(User).where(User.id == user_id).values(password_hash=pw_hash,
                                                                      cred_gen=User.cred_gen + 1))
            end_credentials(conn, user_id)
        self.users.forget(user_id)

    # ------------------------------------------------------------------ what waits for a user
    def waiting_games(self, user_id: int) -> list[tuple[int, int]]:
        """``(game id, seq)`` of every running game whose move is the user's (oldest wait first)."""
        from ludothek.storage.models import GameRow

        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(GameRow.id, GameRow.seq)
                .join(SeatRow, (SeatRow.game_id == GameRow.id) & (SeatRow.seat == GameRow.to_move))
                .where(GameRow.status == "running", SeatRow.kind == "player", SeatRow.user_id == user_id)
                .order_by(GameRow.turn_since)
            ).all()
        return [(r[0], r[1]) for r in rows]


def _next_reset_gen(conn: Connection, user_id: int) -> int:
    """Raise the user's reset-link generation inside ``conn`` (every earlier link goes stale); the new value."""
    conn.execute(update(User).where(User.id == user_id).values(reset_gen=User.reset_gen + 1))
    return int(conn.execute(select(User.reset_gen).where(User.id == user_id)).scalar_one())
