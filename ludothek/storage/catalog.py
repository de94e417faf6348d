"""Queries for the per-game pages (``/games/<kind>``): the latest games of one kind."""

from __future__ import annotations

from sqlalchemy import select

from .base import StoreBase
from .info import GameInfo
from .models import GameRow


class CatalogStore(StoreBase):
    """Read-only look-ups by game kind, mixed into `Store`."""

    def recent_games(self, kind: str, limit: int = 10) -> list[GameInfo]:
        """The newest running or finished games of ``kind`` (open ones are in the lobby already)."""
        with self.engine.begin() as conn:
            ids = conn.execute(
                select(GameRow.id)
                .where(GameRow.game == kind, GameRow.status.in_(("running", "finished")))
                .order_by(GameRow.created_at.desc(), GameRow.id.desc())
                .limit(max(1, min(limit, 50)))
            ).scalars().all()
        return [self.game(gid) for gid in ids]
