"""``ludothek.storage``: the database (SQLAlchemy 2 + Alembic): tables, queries and transactions.

What the site does with it, by concern, is `ludothek.services` (built together as `ludothek.services.Site`).
"""

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
from .info import GameEvent, GameInfo, SeatInfo, UserInfo

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
