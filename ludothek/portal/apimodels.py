"""The answers of the JSON API as pydantic models: what the OpenAPI schema promises, field by field.

The handlers of the hot paths (a game's state, a move) build plain dicts and hand them out
as they are; their models here are what those dicts must be, and `tests/portal/test_schemathesis.py`
checks every answer against the schema.  Only a game's ``view`` stays an open object: its shape
is the game's own (see ``docs/games/<game>.md``), not the portal's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from .contract import Page

Language = Literal["de", "en"]
GameStatus = Literal["open", "running", "finished", "cancelled", "abandoned"]
SeatKind = Literal["player", "bot", "open", "invited"]


# ----------------------------------------------------------------------------- accounts
class UserOut(BaseModel):
    id: int
    name: str
    guest: bool = Field(description="a guest account: it ends at `guest_expires_at` unless registered")
    lang: Language
    guest_expires_at: datetime | None


class TokenOut(BaseModel):
    token: str = Field(description="the API token (shown once): send it as `Authorization: Bearer <token>`")
    user: UserOut


class TokenInfoOut(BaseModel):
    id: int
    label: str
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None = Field(description="null: never")


# ----------------------------------------------------------------------------- the catalogue
class OptionOut(BaseModel):
    name: str
    values: list[str]
    default: str
    label: dict[str, str] = Field(description="by language code")
    value_labels: dict[str, dict[str, str]] = Field(description="value → language code → label")


class GameKindOut(BaseModel):
    id: str
    title: dict[str, str] = Field(description="by language code")
    min_players: int
    max_players: int
    rules_version: str
    options: list[OptionOut]


# ----------------------------------------------------------------------------- games
class SeatOut(BaseModel):
    seat: int = Field(description="0-based")
    kind: SeatKind
    name: str | None = Field(description="the player's user name or the bot's label; null for an open seat")
    bot: str | None = Field(description="the bot's name (kind 'bot')")
    bot_account: bool = Field(default=False, description="the user in this seat is a bot account: a program "
                              "run by a person (docs/research.md, \"Bot API\")")


class SeatResultOut(BaseModel):
    seat: int
    rank: int = Field(description="1 is first; equal ranks are ties")
    score: int | float
    left: Literal["timed_out", "resigned"] | None = Field(
        default=None, description="present when this player left the game (placed last)")


class HandoverOut(BaseModel):
    """A turn that waits for its player's confirmation before it is handed on (docs/portal.md, "Undo")."""

    seat: int = Field(description="the seat whose turn ended; only it may move now (undo or confirm)")
    name: str | None = Field(description="that seat's name")
    due: datetime | None = Field(description="when the turn is handed on by itself")
    seconds_left: float | None = Field(description="seconds until then, when the answer was made")


class GameOut(BaseModel):
    """The public facts of a game: lobby lists, lists of my games, the answer of lobby actions."""

    id: int
    game: str = Field(description="the game kind, e.g. 'machikoro'")
    title: str
    num_players: int
    options: dict[str, str]
    status: GameStatus
    creator_id: int | None
    seq: int = Field(description="entries so far: a move is made against this number")
    to_move: int | None = Field(description="the seat whose turn it is; null while nobody is to move")
    my_seat: int | None
    my_turn: bool
    seats: list[SeatOut]
    result: list[SeatResultOut] | None
    created_at: datetime
    turn_since: datetime | None
    handover: HandoverOut | None = Field(
        default=None, description="a turn that waits for its player's confirmation (nobody else may move)")
    thinking: int | None = Field(None, description="the bot seat whose bot is thinking about its move right "
                                 "now (a bot worker holds its turn); null otherwise")


class ClockSeatOut(BaseModel):
    seat: int
    remaining_seconds: float | None
    left: Literal["timed_out", "resigned"] | None
    away_until: datetime | None = Field(description="on vacation until then")


class ClockOut(BaseModel):
    control: dict[str, str | int | float] | None = Field(description="the time control as chosen")
    deadline: datetime | None
    seats: list[ClockSeatOut]


class LegalAction(BaseModel):
    action: str = Field(description="send this as `action` to /games/{id}/actions")
    text: str = Field(description="what it does, in words")


class LogEntryOut(BaseModel):
    n: int = Field(description="the entry's number (1 = the first of the game)")
    seat: int | Literal["chance"]
    action: str = Field(description="the action, or '?' for a chance outcome this viewer may not see")
    text: str
    undone: bool


class GameStateOut(GameOut):
    """A game as I may see it.  Before the game starts only the summary and ``clock`` are there."""

    clock: ClockOut | None = Field(
        default=None, description="the clocks (null: no time control); left out of a move's answer")
    seat: int | None = Field(default=None, description="my seat; null: I watch")
    view: dict[str, Any] | None = Field(
        default=None, description="the game's view for my seat (its shape is the game's: docs/games/<game>.md)")
    legal: list[LegalAction] = Field(default_factory=list, description="my legal actions (empty unless my turn)")
    can_undo: bool = Field(default=False, description="I may take back my last action now (POST .../undo)")
    can_confirm: bool = Field(default=False, description="my turn waits for my confirmation (POST .../confirm)")
    log: list[LogEntryOut] | None = Field(default=None, description="the log (null when not asked for)")
    finished: bool = False


class NextGameOut(BaseModel):
    game: int | None = Field(description="the game where it is my turn that has waited longest; null: none")


class WaitingOut(BaseModel):
    count: int
    games: list[GameOut]


class RecordActionOut(BaseModel):
    seat: int | Literal["chance"]
    action: str


class RecordMetaOut(BaseModel):
    id: int
    players: list[str | None]


class RecordOut(BaseModel):
    format: str = Field(description="ludothek-record/1")
    game: str
    rules_version: str
    players: int
    options: dict[str, str]
    actions: list[RecordActionOut]
    result: list[SeatResultOut] | None = None
    meta: RecordMetaOut | None = None
    redacted: bool | None = Field(default=None, description="true: some chance outcomes are hidden ('?')")


# ----------------------------------------------------------------------------- absences
class AbsenceOut(BaseModel):
    starts: datetime
    ends: datetime


class VacationOut(BaseModel):
    year: int
    used_days: float
    left_days: float
    absences: list[AbsenceOut]


# ----------------------------------------------------------------------------- notifications
class EmailOut(BaseModel):
    address: str | None = Field(description="verified: mails go here (only I see it)")
    pending: str | None = Field(description="waiting for its verification link")


class PrefsOut(BaseModel):
    turns: Literal["each", "digest", "off"]
    digest_hour: int
    timezone: str
    invites: bool
    ended: bool


class PlaySettingsOut(BaseModel):
    handover_seconds: int | None = Field(description="the grace period I chose (null: the site's default)")
    in_force: int = Field(description="the seconds my ended turns wait for my confirmation now")
    choices: list[int] = Field(description="the grace periods one may choose")


class NotificationsOut(PrefsOut):
    email: EmailOut
    channels: dict[str, dict[str, bool]] = Field(
        description="per notification channel (mail, tab, push, webhook), every kind of notice it carries and "
                    "whether I want it there; mail's turn, invited and ended follow turns, invites and ended")


class VerifiedOut(BaseModel):
    verified: bool


class UndoOut(BaseModel):
    address: str = Field(description="the address that is the account's again; a reset link is on its way to it")


class AcceptedOut(BaseModel):
    detail: str


GamePage = Page[GameOut]
TokenPage = Page[TokenInfoOut]
CatalogPage = Page[GameKindOut]
LogEntryPage = Page[LogEntryOut]
