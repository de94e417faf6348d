"""The portal's settings: everything has a default, so ``ludothek serve`` needs no configuration."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from argon2 import PasswordHasher

DEFAULT_DB_DIR = Path("var")
DEFAULT_DB_URL = f"sqlite:///{DEFAULT_DB_DIR / 'ludothek.sqlite3'}"


@dataclass
class Settings:
    #: SQLAlchemy URL; ``postgresql://...`` works as well as SQLite.
    db_url: str = DEFAULT_DB_URL
    #: Key that signs session cookies; by default a random key kept in the database.
    secret_key: str | None = None
    #: Optional Redis URL for live-update fan-out across several server processes.
    redis_url: str | None = None
    #: Seconds between two bot moves, so a person can follow them.
    bot_delay: float = 0.4
    #: Mark cookies ``Secure`` (behind HTTPS).
    secure_cookies: bool = False
    #: How many game states the in-memory cache keeps.
    cache_size: int = 4096
    #: Password hashing; tests pass a cheaper one.
    hasher: PasswordHasher = field(default_factory=PasswordHasher)

    @classmethod
    def from_env(cls, db_url: str | None = None) -> Settings:
        """Defaults, overridden by ``LUDOTHEK_*`` environment variables."""
        return cls(
            db_url=db_url or os.environ.get("LUDOTHEK_DB", DEFAULT_DB_URL),
            secret_key=os.environ.get("LUDOTHEK_SECRET") or None,
            redis_url=os.environ.get("LUDOTHEK_REDIS") or None,
            bot_delay=float(os.environ.get("LUDOTHEK_BOT_DELAY", "0.4")),
            secure_cookies=os.environ.get("LUDOTHEK_SECURE_COOKIES") == "1",
        )
