"""What the store hands out: plain, immutable descriptions of users, seats, games and events."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


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
    #: May use the admin page and the admin API.
    is_admin: bool = False


def seat_label(kind: str, seat: int, user_name: str | None) -> str | None:
    """The name a seat goes by in every text: the user's name, or "Bot N" for a bot.

    A bot that plays on for someone who timed out or resigned keeps their name: "anna (Bot)".
    """
    if kind == "bot":
        return f"{user_name} (Bot)" if user_name else f"Bot {seat + 1}"
    return user_name


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    kind: str  # open / invited / player / bot
    user_id: int | None
    name: str | None  # user name, or the bot's name
    bot: str | None = None
    #: ``timed_out`` or ``resigned``: a bot plays on for the person who sat here.
    left_as: str | None = None
    abandon_vote: bool = False
    #: The user here is a bot account (issue 33): every page and answer marks it as a bot.
    bot_account: bool = False


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
    #: The time control (``TimeControl.to_json()``), or None for a game without clocks.
    clock: dict[str, Any] | None = None
    #: When the seat to move runs out of time; None while no clock runs.
    deadline: datetime | None = None
    #: Changes whenever a seat of the running game changes hands.
    seats_rev: int = 0
    #: A pending hand-over (`ludothek.services.handover`): the seat whose turn ended and may still take
    #: it back, and when the turn passes on by itself; None: none pending.
    handover_seat: int | None = None
    handover_due: datetime | None = None
    #: A bot worker's claim (`ludothek.storage.botturns`): the move it was made for and when it runs out.
    bot_claim_seq: int | None = None
    bot_lease_until: datetime | None = None

    @property
    def over(self) -> bool:
        """The game has ended, with a result (finished) or without (abandoned): its record is public now.

        A cancelled game never started and has no record."""
        return self.status in ("finished", "abandoned")

    def seat_names(self) -> list[str]:
        """Each seat's name, in seat order, as the games' texts should name it (``"?"`` while unknown)."""
        return [s.name or "?" for s in self.seats]

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

    def thinking_seat(self, now: datetime) -> int | None:
        """The bot seat a bot worker is thinking for at ``now`` (its panel says so), else ``None``.

        Derived from the claim alone, so it needs no write of its own: it starts with the claim, ends
        when the move is stored (the game's move number passes the claim's), when the claim is given
        back (the columns are cleared) and when the lease runs out (a worker that died).
        """
        if (self.status != "running" or self.bot_claim_seq is None or self.bot_claim_seq != self.seq
                or self.bot_lease_until is None or self.bot_lease_until <= now or not self.is_bot_seat(self.to_move)):
            return None
        return self.to_move


@dataclass(frozen=True)
class GameEvent:
    """What listeners hear after a change: public facts only, never a view."""

    game_id: int
    seq: int
    to_move: int
    status: str
    #: A bot seat is to move: the bot runner should play.
    bot_to_move: bool = False
    #: The seat whose action (or leaving: a timeout, a resignation) caused the change, if one did:
    #: its person's wait may have ended, and all their open tabs re-count (`turn_listener`).
    mover: int | None = None
    #: The game's ``seats_rev`` after a change of its seats or votes that keeps the move number (a
    #: resignation, a timeout, an offer to abandon): open game pages refresh when it differs from theirs.
    seats_rev: int | None = None


def token_hash(token: str) -> str:
    """API tokens are stored only as their SHA-256 digest."""
    # surrogatepass: a malformed token must be "unknown", not an encoding error.
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()

