"""The ratings the site hands out: leaderboards, a player's ratings and history, and recomputing them.

How a game is rated, and the rules, are in `ludothek.storage.rating_update`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, text

from ludothek.storage.database import Database
from ludothek.storage.info import aware
from ludothek.storage.models import BotAccount, GameRow, PlayerStats, Rating, RatingChange, SeatRow, User
from ludothek.storage.rating_update import (
    LEADERBOARD_MIN_GAMES,
    conservative,
    initial,
    new_ratings,
    rated_placings,
)


# ----------------------------------------------------------------------------- what the service hands out
@dataclass(frozen=True)
class RatingInfo:
    """A player's rating in one game kind."""

    user_id: int
    name: str
    game: str
    mu: float
    sigma: float
    games: int
    wins: int
    is_guest: bool = False
    #: The place on the leaderboard (1 = best); ``None`` with fewer than `LEADERBOARD_MIN_GAMES` games.
    rank: int | None = None

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)


@dataclass(frozen=True)
class RatingPoint:
    """One step of a rating history: after game ``game_id`` (finished ``at``, place ``place``)."""

    game_id: int
    at: datetime
    place: int
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)


@dataclass(frozen=True)
class Leaderboard:
    game: str
    total: int
    rows: tuple[RatingInfo, ...]


class Ratings:
    """Leaderboards, players' ratings and their histories, and recomputing them all."""

    def __init__(self, db: Database) -> None:
        self.db = db


    def leaderboard(self, kind: str, limit: int = 50, offset: int = 0) -> Leaderboard:
        """The players of ``kind`` with at least `LEADERBOARD_MIN_GAMES` rated games, best conservative rating first."""
        limit = max(1, min(int(limit), 200))
        offset = max(0, int(offset))
        eligible = (Rating.game == kind) & (Rating.games >= LEADERBOARD_MIN_GAMES)
        with self.db.engine.begin() as conn:
            total = conn.execute(select(func.count()).select_from(Rating).where(eligible)).scalar_one()
            rows = conn.execute(
                select(Rating.user_id, User.name, User.is_guest, Rating.mu, Rating.sigma, Rating.games, Rating.wins)
                .join(User, User.id == Rating.user_id)
                .where(eligible)
                .order_by(Rating.conservative.desc(), Rating.user_id)
                .limit(limit).offset(offset)
            ).all()
        return Leaderboard(kind, int(total), tuple(
            RatingInfo(r.user_id, r.name, kind, r.mu, r.sigma, r.games, r.wins, bool(r.is_guest), offset + i + 1)
            for i, r in enumerate(rows)
        ))

    def ratings_of(self, user_id: int) -> dict[str, RatingInfo]:
        """The user's rating in every game kind they have one in, with their leaderboard places."""
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(Rating.game, User.name, User.is_guest, Rating.mu, Rating.sigma, Rating.games, Rating.wins,
                       Rating.conservative)
                .join(User, User.id == Rating.user_id)
                .where(Rating.user_id == user_id)
            ).all()
            out = {}
            for r in rows:
                rank = None
                if r.games >= LEADERBOARD_MIN_GAMES:
                    # Two index range counts (ix_ratings_board): those above, and equals listed before.
                    board = (Rating.game == r.game) & (Rating.games >= LEADERBOARD_MIN_GAMES)
                    above = conn.execute(select(func.count()).select_from(Rating).where(
                        board, Rating.conservative > r.conservative)).scalar_one()
                    tied = conn.execute(select(func.count()).select_from(Rating).where(
                        board, Rating.conservative == r.conservative, Rating.user_id < user_id)).scalar_one()
                    rank = int(above) + int(tied) + 1
                out[r.game] = RatingInfo(user_id, r.name, r.game, r.mu, r.sigma, r.games, r.wins, bool(r.is_guest), rank)
        return out

    def rating_history(self, user_id: int, kind: str, limit: int = 100) -> list[RatingPoint]:
        """The user's last ``limit`` rating updates in ``kind``, oldest first."""
        limit = max(1, min(int(limit), 1000))
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(RatingChange.game_id, RatingChange.at, RatingChange.place, RatingChange.mu, RatingChange.sigma)
                .where(RatingChange.user_id == user_id, RatingChange.game == kind)
                .order_by(RatingChange.id.desc())
                .limit(limit)
            ).all()
        return [RatingPoint(r.game_id, aware(r.at) or r.at, r.place, r.mu, r.sigma) for r in reversed(rows)]

    def game_rating_changes(self, game_id: int) -> dict[int, tuple[float, float]]:
        """``{user_id: (conservative before, conservative after)}`` for a rated game (empty if it was not rated)."""
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(RatingChange.user_id, RatingChange.mu_before, RatingChange.sigma_before, RatingChange.mu,
                       RatingChange.sigma).where(RatingChange.game_id == game_id)
            ).all()
        return {r.user_id: (conservative(r.mu_before, r.sigma_before), conservative(r.mu, r.sigma)) for r in rows}

    def recompute_ratings(self) -> tuple[int, int]:
        """Rebuild every rating and the rating history from the stored results; ``(games rated, players)``.

        The games are replayed in the order they were rated (the ``rating_changes`` ids), games never
        rated before (finished before ratings existed) first, by finishing time.  Everything happens
        in one transaction: a crash leaves the old numbers.
        """
        with self.db.engine.begin() as conn:
            first_change = (
                select(RatingChange.game_id, func.min(RatingChange.id).label("first"))
                .group_by(RatingChange.game_id).subquery()
            )
            games = conn.execute(
                select(GameRow.id, GameRow.game, GameRow.finished_at, first_change.c.first)
                .outerjoin(first_change, first_change.c.game_id == GameRow.id)
                .where(GameRow.status == "finished")
            ).all()
            seats = conn.execute(
                select(SeatRow.game_id, SeatRow.user_id, SeatRow.place)
                .join(GameRow, GameRow.id == SeatRow.game_id)
                .where(GameRow.status == "finished", SeatRow.user_id.is_not(None), SeatRow.place.is_not(None))
            ).all()
            by_game: dict[int, list[tuple[int | None, int | None]]] = {}
            # Bot accounts whose owners did not opt in are not people here (issue 33, `storage.bot_ratings`).
            not_people = set(conn.execute(select(BotAccount.user_id).where(BotAccount.rated_with_people.is_(False))
                                          ).scalars())
            for s in seats:
                by_game.setdefault(s.game_id, []).append((None if s.user_id in not_people else s.user_id, s.place))

            def order(g: Any) -> tuple[Any, ...]:
                if g.first is None:  # never rated yet: finished before ratings existed
                    return (0, aware(g.finished_at) or datetime.min.replace(tzinfo=UTC), g.id)
                return (1, g.first, g.id)

            games = sorted(games, key=order)
            current: dict[tuple[str, int], tuple[float, float, int, int, Any]] = {}
            changes = []
            start = initial()
            rated = 0
            for g in games:
                placings = rated_placings(by_game.get(g.id, []))
                if not placings:
                    continue
                rated += 1
                before = {uid: current[(g.game, uid)][:2] if (g.game, uid) in current else start for uid in placings}
                after = new_ratings(before, placings)
                for uid in sorted(placings):
                    _, _, n, wins, _ = current.get((g.game, uid), (0.0, 0.0, 0, 0, None))
                    mu, sigma = after[uid]
                    current[(g.game, uid)] = (mu, sigma, n + 1, wins + (placings[uid] == 1), g.finished_at)
                    changes.append({"game_id": g.id, "user_id": uid, "game": g.game, "place": placings[uid],
                                    "mu_before": before[uid][0], "sigma_before": before[uid][1], "mu": mu,
                                    "sigma": sigma, "at": g.finished_at})
            conn.execute(delete(RatingChange))
            conn.execute(delete(Rating))
            for chunk in _chunks(changes, 5000):
                conn.execute(insert(RatingChange), chunk)
            rows = [{"user_id": uid, "game": kind, "mu": mu, "sigma": sigma, "conservative": conservative(mu, sigma),
                     "games": n, "wins": wins, "updated_at": at}
                    for (kind, uid), (mu, sigma, n, wins, at) in current.items()]
            for chunk in _chunks(rows, 5000):
                conn.execute(insert(Rating), chunk)
            rebuild_player_stats(conn)
        return rated, len({uid for _, uid in current})


#: When each seat's game ended (finished or abandoned), from the games themselves.
SEATS_ENDED_SQL = (
    "UPDATE seats SET ended_at = (SELECT finished_at FROM games WHERE games.id = seats.game_id) "
    "WHERE game_id IN (SELECT id FROM games WHERE status IN ('finished', 'abandoned'))"
)
#: Every player's finished games per kind: played, won, the last one's end (rated or not).
PLAYER_STATS_SQL = (
    "INSERT INTO player_stats (user_id, game, played, won, last_finished_at) "
    "SELECT seats.user_id, games.game, COUNT(*), SUM(CASE WHEN seats.place = 1 THEN 1 ELSE 0 END), "
    "MAX(games.finished_at) FROM seats JOIN games ON games.id = seats.game_id "
    "WHERE games.status = 'finished' AND seats.user_id IS NOT NULL AND seats.place IS NOT NULL "
    "GROUP BY seats.user_id, games.game"
)


def rebuild_player_stats(conn: Any) -> None:
    """``player_stats`` and ``seats.ended_at`` from the stored games, inside the caller's transaction.

    What the move path keeps up game by game (``rating_update.finish_game``), rebuilt from scratch:
    ``ludothek ratings --recompute`` repairs them, and fills them for games written around the store.
    """
    conn.execute(text(SEATS_ENDED_SQL))
    conn.execute(delete(PlayerStats))
    conn.execute(text(PLAYER_STATS_SQL))


def _chunks(items: list[dict[str, Any]], size: int) -> Iterable[list[dict[str, Any]]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
