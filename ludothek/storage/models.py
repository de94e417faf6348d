"""The database tables, as SQLAlchemy 2 declarative models.

A game is stored as its record: the setup (game id, rules version, players,
options) in ``games`` and every applied action, chance outcomes included, in
``actions`` with its seat, time and sequence number.  The unique constraint on
``(game_id, seq)`` is what makes concurrent submissions safe: two writers that
both try to store move *n* cannot both succeed, on SQLite or PostgreSQL.

The schema is created and upgraded only by the Alembic migrations in
``ludothek/storage/migrations``; keep them in step with this file.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy import false as sa_false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: The largest id an ``Integer`` column holds everywhere (it is int4 on PostgreSQL); routes and
#: the store refuse larger ids as unknown instead of letting the driver fail.
MAX_ID = 2**31 - 1


def utcnow() -> datetime:
    """The current time in UTC, timezone-aware (stored as UTC everywhere)."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class Meta(Base):
    """Key/value settings that must survive restarts, such as the session signing key."""

    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class User(Base):
    __tablename__ = "users"
    #: Ids are never handed out twice (SQLite AUTOINCREMENT; a sequence on PostgreSQL): a credential
    #: that outlived its account must never come to name a newer one.
    __table_args__ = {"sqlite_autoincrement": True}
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    #: Lower-cased name: names are unique regardless of case.
    name_key: Mapped[str] = mapped_column(String(40), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    is_guest: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Guests expire 24 hours after creation unless converted to a real account.
    guest_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    lang: Mapped[str] = mapped_column(String(2), default="en")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: May use the admin page (`ludothek admin make-admin NAME`).
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False, server_default=sa_false())
    #: When an administrator blocked the account (NULL: not blocked): it cannot log in or act.
    blocked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: "About me": plain text, at most 500 characters (``ludothek.services.community.profiles``).
    about: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The languages the user speaks, as codes separated by commas (``de,en``); NULL: only ``lang``.
    languages: Mapped[str | None] = mapped_column(String(60), nullable=True)
    #: Credentials generation: raised by every password change, reset and address change.  A login
    #: creates its session or token only while this still has the value read with the password it
    #: checked, and reset links carry it (``ludothek.services.sessions``, migration ``0012_credentials``).
    cred_gen: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: Reset-link generation: raised whenever a reset link is asked for; a link works only while this
    #: still has the value it was issued with, so only the newest works (migration ``0018_reset_links``).
    reset_gen: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: Seconds a turn waits for the player's confirmation before it is handed on (0, 5, 10 or 30);
    #: NULL: the site's default (`ludothek.services.handover`).
    handover_seconds: Mapped[int | None] = mapped_column(Integer, nullable=True)


class ApiToken(Base):
    """A token that lets a program act for a user; only its SHA-256 hash is stored."""

    __tablename__ = "api_tokens"
    __table_args__ = {"sqlite_autoincrement": True}
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(80), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: Optional: after this moment the token is refused.
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: Updated at most once a minute, so that the hot path does not write on every request.
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class SessionRow(Base):
    """A browser session: the cookie carries a random secret, the database its hash and owner.

    Deleting the row ends the session on every server at once (logout, password change,
    "log out everywhere"); deleting the user deletes its sessions.
    """

    __tablename__ = "sessions"
    __table_args__ = {"sqlite_autoincrement": True}
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class GameRow(Base):
    """One game: its setup and a summary of where it stands (kept in step with ``actions``)."""

    __tablename__ = "games"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    rules_version: Mapped[str] = mapped_column(String(20))
    num_players: Mapped[int] = mapped_column(Integer)
    options_json: Mapped[str] = mapped_column(Text, default="{}")
    #: ``open`` (waiting for players), ``running``, ``finished`` or ``cancelled``.
    status: Mapped[str] = mapped_column(String(12), default="open", index=True)
    creator_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: Number of stored actions: the sequence number the next move is made against.
    seq: Mapped[int] = mapped_column(Integer, default=0)
    #: The seat to move (or -1 chance, -4 over); -2 while the game has not started.
    to_move: Mapped[int] = mapped_column(Integer, default=-2)
    #: When the seat to move started waiting: "the game that has waited longest" sorts by it.
    turn_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    result_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The time control chosen at creation (``ludothek.storage.timecontrol.TimeControl`` as JSON); NULL: none.
    clock_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: When the seat to move runs out of time (vacations already added); NULL: no clock running.
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)
    #: Bumped whenever a seat of a running game changes hands (timeout, resignation): every move's
    #: optimistic write checks it, so no server can store a move for a seat a bot took over.
    seats_rev: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: The deadline a reminder mail was queued for (one reminder per deadline, 24 hours before it).
    reminded_for: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The bot worker thinking about the bot turn at move ``bot_claim_seq``, and until when its claim
    #: holds (`ludothek.storage.botturns`).  A claim on an older move, or one past its lease, is void.
    bot_claimed_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    bot_claim_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    bot_lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: A pending hand-over (issue 29, `ludothek.services.handover`): the seat whose turn ended and may
    #: still take it back, and when the turn passes on by itself.  While it is set nobody is to move
    #: (``to_move`` is -1), the next turn's chance steps wait and no bot moves.
    handover_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    handover_due: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)


class SeatRow(Base):
    """A seat of a game: open invitation, named invitation, a joined player, or a bot."""

    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_seats_game_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    #: ``open``, ``invited``, ``player`` or ``bot``.
    kind: Mapped[str] = mapped_column(String(10))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True, index=True)
    bot: Mapped[str | None] = mapped_column(String(20), nullable=True)
    #: A time bank's remaining seconds (time-bank games only).
    bank_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: ``timed_out`` or ``resigned`` once a bot plays on for the person who sat here.
    left_as: Mapped[str | None] = mapped_column(String(12), nullable=True)
    #: This player agrees to abandon the game (the creator's vote is the offer).
    abandon_vote: Mapped[bool] = mapped_column(Boolean, default=False, server_default=sa_false())
    #: The seat's final place once the game is finished (the stored result: leavers placed last).
    place: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: When the game ended (finished or abandoned): a player's last games are read from the index
    #: ``ix_seats_user_ended`` (user_id, ended_at, game_id), migration ``0011_profile_stats``.
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Vacation(Base):
    """An absence: while it lasts, the user's clocks are paused (at most 30 days per calendar year)."""

    __tablename__ = "vacations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    starts: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ends: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ActionRow(Base):
    """One applied action of a game; ``seat`` is -1 for a chance outcome resolved by the server."""

    __tablename__ = "actions"
    __table_args__ = (
        # The unique constraint doubles as the index that replay reads by.
        UniqueConstraint("game_id", "seq", name="uq_actions_game_seq"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class UserEmail(Base):
    """A user's e-mail address: ``address`` counts (it was verified), ``pending`` waits for its link.

    Never shown to anyone but its owner, never written to a log.
    """

    __tablename__ = "user_emails"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    address: Mapped[str | None] = mapped_column(String(254), nullable=True)
    verified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    pending: Mapped[str | None] = mapped_column(String(254), nullable=True)
    pending_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class EmailChange(Base):
    """A verified address was replaced or removed: the notice to ``old_address`` can undo it, once.

    ``new_address`` NULL: removed.  Undoing (once: ``used_at``) restores the old address, ends every
    credential and spends the later changes' rows (``Notify.undo_email_change``).
    """

    __tablename__ = "email_changes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    old_address: Mapped[str] = mapped_column(String(254))
    new_address: Mapped[str | None] = mapped_column(String(254), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class NotifyPrefs(Base):
    """What a user wants to be told by mail; a user without a row has the defaults."""

    __tablename__ = "notify_prefs"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    #: ``each`` (a mail when a game becomes my turn), ``digest`` (one a day) or ``off``.
    turns: Mapped[str] = mapped_column(String(8), default="each")
    #: The digest's hour (0-23) in ``timezone``.
    digest_hour: Mapped[int] = mapped_column(Integer, default=18)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    invites: Mapped[bool] = mapped_column(Boolean, default=True)
    ended: Mapped[bool] = mapped_column(Boolean, default=True)
    #: The local date (YYYY-MM-DD) of the last digest: at most one a day.
    last_digest_on: Mapped[str | None] = mapped_column(String(10), nullable=True)


class OutboxRow(Base):
    """A mail to send, written in the same transaction as what caused it (the transactional outbox).

    ``status``: ``pending`` → ``sending`` (claimed under a lease) → ``sent``; or ``failed``
    after the last retry; or ``skipped`` (nobody wants it: no verified address, settings).
    """

    __tablename__ = "outbox"
    # No AUTOINCREMENT (it costs every move a write to sqlite_sequence); ids only order the queue.
    # Indexes (see migration 0002_mail): few on purpose, each is another page written per move on SQLite.
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    #: 24 characters since issue 31 (``tournament_entered``), migration ``0020_tournaments``.
    kind: Mapped[str] = mapped_column(String(24))
    game_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    payload_json: Mapped[str] = mapped_column(Text, default="{}")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    status: Mapped[str] = mapped_column(String(10), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)


class TurnMail(Base):
    """The last "your turn" mail sent to a user for a game: none again until they have moved."""

    __tablename__ = "turn_mails"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)


class OutboxAttempt(Base):
    """One delivery attempt of an outbox mail and how it went."""

    __tablename__ = "outbox_attempts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    outbox_id: Mapped[int] = mapped_column(ForeignKey("outbox.id", ondelete="CASCADE"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    ok: Mapped[bool] = mapped_column(Boolean, default=False)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The channel that tried (``mail``, ``tab``, ``push``, ``webhook``; NULL: a mail before issue 30).
    channel: Mapped[str | None] = mapped_column(String(16), nullable=True)


class DeliveryRow(Base):
    """One notice (an outbox row) to one target of one channel (issue 30, `ludothek.storage.deliveries`).

    Written by the fan-out, in one transaction with the outbox row's ``dispatched``.  ``status``:
    ``pending`` → ``sending`` (claimed under a lease) → ``sent``; ``skipped`` (nobody wants it any
    more), ``failed`` (refused, out of retries, or its sender died while sending: never tried twice).
    """

    __tablename__ = "deliveries"
    __table_args__ = (
        UniqueConstraint("outbox_id", "channel", "target", name="uq_deliveries_outbox_channel_target"),
        # Each channel claims its own due deliveries (and finds its interrupted ones) by this index.
        Index("ix_deliveries_due", "channel", "status", "next_attempt_at"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    outbox_id: Mapped[int] = mapped_column(ForeignKey("outbox.id", ondelete="CASCADE"))
    channel: Mapped[str] = mapped_column(String(16))
    #: The channel's own target id (a push subscription, a webhook), 0 where a user has one.
    target: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(10), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class NoticePref(Base):
    """A user's choice for one kind of notice on one channel, stored only where it differs from the
    channel's default (`ludothek.services.notices.prefs`)."""

    __tablename__ = "notice_prefs"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    channel: Mapped[str] = mapped_column(String(16), primary_key=True)
    kind: Mapped[str] = mapped_column(String(24), primary_key=True)
    wanted: Mapped[bool] = mapped_column(Boolean)


class UsedLink(Base):
    """The nonce of a single-use mail link that was used (reset, verification): never again."""

    __tablename__ = "used_links"
    nonce: Mapped[str] = mapped_column(String(64), primary_key=True)
    used_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MailLease(Base):
    """Who may send mail now (SQLite has no row locks to skip: one sender holds the lease)."""

    __tablename__ = "mail_lease"
    name: Mapped[str] = mapped_column(String(16), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64))
    until: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# ----------------------------------------------------------------------------- friends, blocks, chat (issue 12)
class Friend(Base):
    """``user_id`` keeps ``friend_id`` on their friend list (one-way, like Yucata's buddy list)."""

    __tablename__ = "friends"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    friend_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Block(Base):
    """``user_id`` blocked ``blocked_id``: no invitations, no shared waiting games, no chat between them."""

    __tablename__ = "blocks"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class UserActivity(Base):
    """When a user last used the site (any page, API call, move or socket), written at most every few minutes."""

    __tablename__ = "user_activity"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ChatMessage(Base):
    """One message of a game's chat; ``seq`` is the game's move number when it was written."""

    __tablename__ = "chat_messages"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Read by game, in id order: the index covers it.
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    seq: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatReport(Base):
    """A player's report of a chat message, for the operators' queue (``ludothek admin reports``)."""

    __tablename__ = "chat_reports"
    __table_args__ = (UniqueConstraint("message_id", "reporter_id", name="uq_chat_reports_message_reporter"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_messages.id", ondelete="CASCADE"))
    reporter_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    #: ``abuse``, ``spam``, ``cheating`` or ``other``.
    reason: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: Set when an operator has dealt with it; open reports have none.
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)
class Rating(Base):
    """A user's rating in one game kind (openskill Plackett-Luce; see ``ludothek.services.community.ratings``)."""

    __tablename__ = "ratings"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    #: mu - 3 sigma: what the leaderboard sorts by (index ``ix_ratings_board`` on (game, conservative)).
    conservative: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlayerStats(Base):
    """A user's finished games of one kind: played, won (first place, ties included), the last one's end.

    Kept by the transaction that stores a game's end (``rating_update.finish_game``) and rebuilt by
    ``ludothek ratings --recompute``: a profile reads one row per game kind, however many games.
    """

    __tablename__ = "player_stats"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    played: Mapped[int] = mapped_column(Integer)
    won: Mapped[int] = mapped_column(Integer)
    last_finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class RatingChange(Base):
    """One rated player of one rated game: the rating before and after.  ``id`` orders the updates."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("game_id", "user_id", name="uq_rating_changes_game_user"),
        {"sqlite_autoincrement": True},
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(40))
    place: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ----------------------------------------------------------------------------- Web Push (issue 30)
class PushSubscriptionRow(Base):
    """One browser (device) of a user that accepts Web Push messages (``ludothek.services.push``).

    ``endpoint`` is the push service's address for this browser: a capability URL, so it is shown to
    nobody (not even its owner, who sees the ``label``) and never logged.  One endpoint belongs to one
    user: subscribing it again (the same browser, perhaps under another login) updates the row.
    """

    __tablename__ = "push_subscriptions"
    __table_args__ = (
        UniqueConstraint("endpoint", name="uq_push_subscriptions_endpoint"),
        {"sqlite_autoincrement": True},
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(String(2048))
    #: The browser's P-256 public key and auth secret (base64url), which the payload is encrypted to.
    p256dh: Mapped[str] = mapped_column(String(100))
    auth: Mapped[str] = mapped_column(String(50))
    label: Mapped[str] = mapped_column(String(80), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: The last push the push service accepted for this device.
    last_success_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class VapidKeyRow(Base):
    """The site's VAPID key pair (RFC 8292), made on the first start unless a setting gives one.

    At most one row (``id`` 1): two processes starting at once both try to insert it, one wins, and
    both then use the row that is there.
    """

    __tablename__ = "vapid_keys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    #: PKCS#8 PEM.  Whoever reads the database can sign push messages for this site (docs/operations.md).
    private_key: Mapped[str] = mapped_column(Text)
    #: The uncompressed public point, base64url: the browsers' ``applicationServerKey``.
    public_key: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ----------------------------------------------------------------------------- webhooks (issue 30)
class Webhook(Base):
    """A player's own HTTPS endpoint for their notifications (`ludothek.services.webhooks`).

    ``secret`` signs every body (HMAC-SHA256); it is kept in the clear because signing needs it,
    and only its owner sees it.  ``failures`` counts failed attempts in a row; at the site's limit
    the hook is switched off (``enabled`` false, ``disabled_at`` and ``disabled_reason`` set) until
    its owner switches it on again.
    """

    __tablename__ = "webhooks"
    __table_args__ = {"sqlite_autoincrement": True}
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(Text)
    #: ``generic`` (Ludothek's JSON), ``discord`` or ``slack`` (their incoming-webhook bodies).
    format: Mapped[str] = mapped_column(String(8), default="generic")
    label: Mapped[str] = mapped_column(String(80), default="")
    secret: Mapped[str] = mapped_column(String(64))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    failures: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The last attempt's status code when it was switched off (``http 500``, ``timeout`` ...).
    disabled_reason: Mapped[str | None] = mapped_column(String(80), nullable=True)
    last_delivery_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: How the last attempt went: ``ok 204``, ``http 404``, ``timeout``, ``address private`` ...
    last_status: Mapped[str | None] = mapped_column(String(80), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ----------------------------------------------------------------------------- bot accounts (issue 33)
class BotAccount(Base):
    """A user that is a program, run by a person (``owner_id``): shown as a bot wherever its name is.

    A bot account plays like anybody through the JSON API with a token (`ludothek.services.botaccounts`).
    Its games count for the people's ratings only where its owner opted in (``rated_with_people``);
    games between bot accounts are rated among bots in ``bot_ratings`` (`ludothek.storage.bot_ratings`).
    """

    __tablename__ = "bot_accounts"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    rated_with_people: Mapped[bool] = mapped_column(Boolean, default=False, server_default=sa_false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class BotRating(Base):
    """A bot account's rating among bots in one game kind (the bot leaderboard); same model as `Rating`."""

    __tablename__ = "bot_ratings"
    __table_args__ = (Index("ix_bot_ratings_board", "game", "conservative"),)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    conservative: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ----------------------------------------------------------------------------- state snapshots (issue 34)
class GameSnapshot(Base):
    """The newest snapshot of a game's state (`ludothek.engine.snapshots`): a cold game is restored
    from it plus the action rows stored after ``seq`` instead of replaying every row.

    Never the source of truth: the ``actions`` rows are.  A snapshot that does not load (damaged,
    another rules version or code) is ignored and written again after a replay
    (`ludothek.services.snapkeeper`).  One row per game, replaced by newer ones; gone with its game.
    """

    __tablename__ = "game_snapshots"
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    #: How many history entries (action rows) the snapshot holds: rows with ``seq >= this`` follow it.
    seq: Mapped[int] = mapped_column(Integer)
    rules_version: Mapped[str] = mapped_column(String(20))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ----------------------------------------------------------------------------- tournaments (issue 31)
class TournamentRow(Base):
    """A competition of many games of one kind, run by the site (`ludothek.services.tournaments.site`).

    ``state``: ``open`` (taking entries) → ``running`` (rounds being played; ``paused`` by its organiser
    stops new rounds) → ``finished``; or ``cancelled``.  ``current_round`` is the last round started:
    the round start claims the tournament by raising it with a conditional update, so two processes
    can never start the same round twice.
    """

    __tablename__ = "tournaments"
    __table_args__ = {"sqlite_autoincrement": True}
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(40))
    options_json: Mapped[str] = mapped_column(Text, default="{}")
    table_size: Mapped[int] = mapped_column(Integer)
    #: ``swiss``; ``round_robin`` and ``knockout`` once their pairing is registered (`FORMATS`).
    format: Mapped[str] = mapped_column(String(16), default="swiss")
    rounds: Mapped[int] = mapped_column(Integer)
    #: The time control every game gets (required: `ludothek.storage.timecontrol`, as JSON).
    clock_json: Mapped[str] = mapped_column(Text)
    #: Points for each place (JSON list, 1st place first); NULL: the default for the table size.
    points_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    entry_opens: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    entry_closes: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    min_entrants: Mapped[int] = mapped_column(Integer)
    max_entrants: Mapped[int] = mapped_column(Integer)
    #: Entrants need at least this rating (the leaderboard's conservative rating) in the game; NULL: anyone.
    min_rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    invite_only: Mapped[bool] = mapped_column(Boolean, default=False)
    #: ``time`` (starts at ``starts_at``) or ``full`` (starts once ``max_entrants`` have entered).
    start_rule: Mapped[str] = mapped_column(String(8))
    starts_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: A fixed schedule: round n+1 starts ``round_days`` after round n (and not before its games ended).
    round_days: Mapped[float | None] = mapped_column(Float, nullable=True)
    organiser_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True)
    state: Mapped[str] = mapped_column(String(12), default="open", index=True)
    current_round: Mapped[int] = mapped_column(Integer, default=0)
    #: The seed pairing draws with (so a round can be re-derived and checked).
    seed: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class TournamentEntrant(Base):
    """A person in a tournament: ``invited`` (invitation-only, not yet entered), ``entered``, ``withdrawn``
    (left by themselves) or ``removed`` (by the organiser).  One row per person and tournament."""

    __tablename__ = "tournament_entrants"
    __table_args__ = (
        UniqueConstraint("tournament_id", "user_id", name="uq_tournament_entrants_user"),
        {"sqlite_autoincrement": True},
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(10))
    #: The rating when they entered (the first round's seeding).
    rating: Mapped[float] = mapped_column(Float, default=0.0)
    entered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: When they withdrew or were removed, and the last round started then (their later games are forfeits).
    left_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    left_round: Mapped[int | None] = mapped_column(Integer, nullable=True)


class TournamentRound(Base):
    """A round that was started; ``(tournament_id, round_no)`` is unique: each round exists once."""

    __tablename__ = "tournament_rounds"
    __table_args__ = (UniqueConstraint("tournament_id", "round_no", name="uq_tournament_rounds_no"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round_no: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: When every game of the round had ended (seen by the round job).
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class TournamentTable(Base):
    """One table of a round: an ordinary game (``game_id``, unique: a game belongs to one table) with the
    entrants in seat order (``seats_json``, entrant ids; seat 0 moves first)."""

    __tablename__ = "tournament_tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("tournament_rounds.id", ondelete="CASCADE"), index=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    table_no: Mapped[int] = mapped_column(Integer)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), unique=True)
    seats_json: Mapped[str] = mapped_column(Text)


class TournamentBye(Base):
    """An entrant who sits a round out (the field did not divide into full tables)."""

    __tablename__ = "tournament_byes"
    round_id: Mapped[int] = mapped_column(ForeignKey("tournament_rounds.id", ondelete="CASCADE"), primary_key=True)
    entrant_id: Mapped[int] = mapped_column(ForeignKey("tournament_entrants.id", ondelete="CASCADE"),
                                            primary_key=True)


# ----------------------------------------------------------------------------- open data (issue 32)
class OpenDataExport(Base):
    """One month's export of finished, rated games (`ludothek.services.opendata`, docs/open_data.md).

    The row is the claim and the publication at once: the worker that inserts it (or takes over a
    claim whose lease ran out) writes the file; ``status`` becomes ``done`` only after the whole
    file is on disk under its final name.  Only ``done`` rows are listed and downloadable.
    """

    __tablename__ = "open_data_exports"
    #: ``YYYY-MM``: the month whose finished games the export holds (UTC).
    month: Mapped[str] = mapped_column(String(7), primary_key=True)
    #: ``running`` (claimed) or ``done`` (published).
    status: Mapped[str] = mapped_column(String(8), default="running")
    owner: Mapped[str] = mapped_column(String(80))
    lease_until: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: How many claims it took (more than 1: a worker died or stalled while writing).
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    #: The published file's name in the export folder, its size, SHA-256 and number of games.
    file: Mapped[str | None] = mapped_column(String(120), nullable=True)
    bytes: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    games: Mapped[int | None] = mapped_column(Integer, nullable=True)
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    done_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ExportPref(Base):
    """A player who wants a pseudonym instead of their name in the open-data exports (a row: opted out)."""

    __tablename__ = "export_prefs"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GameStatistics(Base):
    """The statistics of one game kind as last rebuilt (`ludothek.services.statistics`): every figure as JSON."""

    __tablename__ = "game_statistics"
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    built_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: Finished games counted (people's and bot games together).
    games: Mapped[int] = mapped_column(Integer, default=0)
    figures_json: Mapped[str] = mapped_column(Text, default="[]")


class StatisticsBuild(Base):
    """The claim of one night's rebuild (``day``: YYYY-MM-DD, UTC): one worker rebuilds, once a day."""

    __tablename__ = "statistics_builds"
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    status: Mapped[str] = mapped_column(String(8), default="running")
    owner: Mapped[str] = mapped_column(String(80))
    lease_until: Mapped[datetime] = mapped_column(DateTime(timezone=True))
