"""``ludothek.storage``: the database (SQLAlchemy 2 + Alembic) and the game store."""

from .db import head_revision, make_engine, migrate, normalize_url, schema_revision
from .errors import (
    BadRequest,
    Conflict,
    Forbidden,
    IllegalMove,
    NotFound,
    NotYourTurn,
    StaleMove,
    StoreError,
    TooManyAttempts,
    Unauthorized,
)
from .store import GameEvent, GameInfo, SeatInfo, Store, UserInfo

__all__ = [
    "BadRequest",
    "Conflict",
    "Forbidden",
    "GameEvent",
    "GameInfo",
    "IllegalMove",
    "NotFound",
    "NotYourTurn",
    "SeatInfo",
    "StaleMove",
    "Store",
    "StoreError",
    "TooManyAttempts",
    "Unauthorized",
    "UserInfo",
    "head_revision",
    "make_engine",
    "migrate",
    "normalize_url",
    "schema_revision",
]
