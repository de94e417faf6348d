"""The request bodies of the accounts, lobby, play and clocks API (`ludothek.portal.routes`).

Input models refuse a value of another JSON type with 422; response models are in `apimodels`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from ludothek import engine as eng
from ludothek.services.accounts import MIN_PASSWORD, NAME_RE
from ludothek.services.play import MAX_ACTION
from ludothek.services.sessions import MAX_TOKEN_DAYS
from ludothek.storage.models import MAX_ID

from .contract import WHOLE

#: Input models refuse a value of another JSON type (``"1"`` for a number, ``0`` for false) with 422.
STRICT = ConfigDict(strict=True)


#: Sequence numbers and counts are bounded like the database's integers.
MAX_SEQ = MAX_ID


Seq = Annotated[int, Field(ge=0, le=MAX_SEQ), WHOLE]
#: A number in a time control (days): the clock's own rules bound it (400); the schema only keeps it
#: within the database's integers, like every integer a client sends.
Days = Annotated[int, Field(ge=-MAX_ID, le=MAX_ID)]


class Credentials(BaseModel):
    model_config = STRICT

    name: str = Field(max_length=40)
    password: str = Field(max_length=200)
    label: str = Field(default="", max_length=80, description="a name for the token")
    expires_in_days: Annotated[int, Field(ge=1, le=MAX_TOKEN_DAYS), WHOLE] | None = Field(
        default=None, description="the token stops working after this many days"
    )


class Registration(BaseModel):
    model_config = STRICT

    name: str = Field(pattern=NAME_RE.pattern, description="3 to 20 letters, digits, '.', '_' or '-'; "
                      "not beginning with 'guest-' (kept for guests: 400)")
    password: str = Field(min_length=MIN_PASSWORD, max_length=200)
    lang: Literal["de", "en"] = "en"


class PasswordChange(BaseModel):
    model_config = STRICT

    current: str = Field(max_length=200, description="the password now")
    new: str = Field(min_length=MIN_PASSWORD, max_length=200, description="the new password")


class PasswordConfirm(BaseModel):
    """The current password, which sensitive changes ask for (a stolen session alone is not enough)."""

    model_config = STRICT

    password: str = Field(max_length=200, description="my current password (guests have none: leave it out)")


class SeatSpec(BaseModel):
    model_config = STRICT

    kind: Literal["me", "open", "invite", "bot"]
    user: str | None = Field(default=None, max_length=40, description="the invited user's name (kind 'invite')")
    bot: str | None = Field(default=None, max_length=40, description="the bot's name (kind 'bot'; default 'random')")


def _known_games(schema: dict[str, Any]) -> None:
    """The schema lists the games this server offers (when the schema is made: every game is registered)."""
    schema["enum"] = list(eng.games())


class NewGame(BaseModel):
    model_config = STRICT

    game: str = Field(max_length=40, json_schema_extra=_known_games,
                      description="game id, e.g. 'machikoro' (GET /catalog lists them)")
    players: Annotated[int, Field(ge=1, le=16), WHOLE] = Field(description="number of players (the game's own range applies: 400 beyond)")
    options: dict[Annotated[str, Field(max_length=40)], str | Annotated[int, Field(ge=-MAX_ID, le=MAX_ID), WHOLE]] = Field(
        default_factory=dict, max_length=32)
    seats: list[SeatSpec] | None = Field(
        default=None, max_length=16, description="one entry per seat; default: me plus open invitations"
    )
    time_control: (Annotated[str, Field(max_length=40)]
                   | dict[Annotated[str, Field(max_length=20)],
                          Annotated[str, Field(max_length=40)] | Days | Annotated[float, Field(ge=-MAX_ID, le=MAX_ID)]]
                   | None) = Field(
        default=None,
        description="none (default); a fixed time per move {'kind': 'move', 'days': 1|2|3|5|7|14} or 'move:3'; "
        "a time bank {'kind': 'bank', 'start_days': 3, 'add_days': 1, 'max_days': 14} or 'bank:3+1/14'",
    )


class Move(BaseModel):
    model_config = STRICT

    action: str = Field(min_length=1, max_length=MAX_ACTION, description="one engine action, e.g. 'roll:1' (or 'undo')")
    seq: Seq = Field(description="the sequence number of the state the move was made against")


class UndoRequest(BaseModel):
    model_config = STRICT

    seq: Seq = Field(description="the sequence number of the state the undo was asked against")


class ConfirmRequest(BaseModel):
    model_config = STRICT

    seq: Seq = Field(description="the sequence number of the state the confirmation was made against")


def _seconds_not_bool(value: Any) -> Any:
    """``true``/``false`` are no number of seconds (a choice list would take them for 1 and 0): 422; ``5.0``
    is 5, as JSON Schema counts it (see `WHOLE`)."""
    if isinstance(value, bool):
        raise ValueError("a number of seconds, not true or false")
    return int(value) if isinstance(value, float) and value.is_integer() else value


class PlaySettingsIn(BaseModel):
    model_config = STRICT

    handover_seconds: Annotated[
        Literal[0, 5, 10, 30] | None, BeforeValidator(_seconds_not_bool),
        # The choices, bounded like every integer of the schema (tests/portal/test_integer_bounds.py).
        WithJsonSchema({"anyOf": [{"type": "integer", "enum": [0, 5, 10, 30], "minimum": 0, "maximum": 30},
                                  {"type": "null"}]}),
    ] = Field(
        description="seconds my ended turn waits for my confirmation before it is handed on (0: at once; "
                    "null: the site's default)")


class AbandonVote(BaseModel):
    model_config = STRICT

    agree: bool = Field(default=True, description="true: offer (creator) or agree; false: decline the offer")


class VacationIn(BaseModel):
    days: float = Field(gt=0, strict=True, le=30, description="how long, in days (at most 30 per calendar year)")
    starts: datetime | None = Field(default=None, description="when it starts (default: now)")
