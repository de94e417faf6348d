"""`Statistics`: the figures rebuilt from the stored games, kept per game kind, read by the page and the API.

The rebuild reads every finished game (its actions, seats and the ratings its people had before it:
``rating_changes.mu_before``), turns each into `GameFacts` and stores the figures of each game kind as
one JSON row (``game_statistics``).  It runs in the workers once a night (`ludothek.workers.statistics`):
the day's row in ``statistics_builds`` is the claim, so one worker rebuilds per day however many run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ludothek.engine import UNDO
from ludothek.storage.database import Database
from ludothek.storage.info import aware
from ludothek.storage.models import ActionRow, GameRow, GameStatistics, RatingChange, SeatRow, StatisticsBuild

from .compute import PURCHASE_PREFIXES, Figure, GameFacts, facts_of, figures, sparse_purchases

BATCH = 1000
#: How long a rebuild's claim holds (a worker that died leaves the day to another after it).
LEASE = timedelta(minutes=30)


@dataclass(frozen=True)
class GameTable:
    """One game kind's statistics as last rebuilt."""

    game: str
    built_at: datetime
    games: int
    figures: list[dict[str, Any]]


class Statistics:
    def __init__(self, db: Database) -> None:
        self.db = db

    def facts(self) -> Iterator[GameFacts]:
        """Every finished game's facts, in id order."""
        after = 0
        while True:
            with self.db.engine.begin() as conn:
                games = conn.execute(select(GameRow.id, GameRow.game, GameRow.num_players, GameRow.options_json,
                                            GameRow.result_json, GameRow.seq)
                                     .where(GameRow.status == "finished", GameRow.id > after)
                                     .order_by(GameRow.id).limit(BATCH)).all()
                if not games:
                    return
                ids = [g.id for g in games]
                seats = conn.execute(select(SeatRow.game_id, SeatRow.seat, SeatRow.kind, SeatRow.user_id)
                                     .where(SeatRow.game_id.in_(ids))).all()
                ratings = conn.execute(select(RatingChange.game_id, RatingChange.user_id, RatingChange.mu_before)
                                       .where(RatingChange.game_id.in_(ids))).all()
                # Only purchases and undo entries are read: most entries are neither.  The entries not read are
                # plain actions at the missing move numbers (an undo takes back whatever came last; the move
                # numbers are contiguous): `sparse_purchases` counts them as such without building them.
                wanted = or_(ActionRow.action == UNDO, *(ActionRow.action.like(p + "%") for p in PURCHASE_PREFIXES))
                actions = conn.execute(select(ActionRow.game_id, ActionRow.seq, ActionRow.seat, ActionRow.action)
                                       .where(ActionRow.game_id.in_(ids), wanted)
                                       .order_by(ActionRow.game_id, ActionRow.seq)).all()
            by_game: dict[int, list[tuple[int, int, str]]] = {}
            for gid, seq, seat, action in actions:
                by_game.setdefault(gid, []).append((seq, seat, action))
            mu = {(r.game_id, r.user_id): r.mu_before for r in ratings}
            bots: dict[int, list[int]] = {}
            users: dict[int, dict[int, int | None]] = {}
            for s in seats:
                users.setdefault(s.game_id, {})[s.seat] = s.user_id
                if s.kind == "bot" and s.user_id is None:  # a bot from the start (a leaver's seat stays theirs)
                    bots.setdefault(s.game_id, []).append(s.seat)
            for g in games:
                record = {"game": g.game, "players": g.num_players, "options": json.loads(g.options_json or "{}"),
                          "result": json.loads(g.result_json or "[]"), "meta": {"bots": bots.get(g.id, [])}}
                seat_users = users.get(g.id, {})
                rated = [mu.get((g.id, uid)) if (uid := seat_users.get(s)) is not None else None
                         for s in range(g.num_players)]
                yield facts_of(record, rated, sparse_purchases(g.game, by_game.get(g.id, []), g.num_players))
            after = games[-1].id

    def rebuild(self, now: datetime) -> int:
        """Compute every figure and store each game kind's table; the number of games counted."""
        counts: dict[str, int] = {}
        facts = []
        for f in self.facts():
            counts[f.kind] = counts.get(f.kind, 0) + 1
            facts.append(f)
        by_kind: dict[str, list[Figure]] = {}
        for fig in figures(facts):
            by_kind.setdefault(fig.kind, []).append(fig)
        with self.db.engine.begin() as conn:
            conn.execute(delete(GameStatistics))
            for kind, figs in by_kind.items():
                conn.execute(insert(GameStatistics).values(
                    game=kind, built_at=now, games=counts.get(kind, 0),
                    figures_json=json.dumps([f.to_json() for f in figs], separators=(",", ":"))))
        return len(facts)

    def table(self, game: str) -> GameTable | None:
        """The game kind's statistics as last rebuilt (None: not built yet, or no finished game)."""
        with self.db.engine.begin() as conn:
            row = conn.execute(select(GameStatistics.__table__).where(GameStatistics.game == game)).first()
        if row is None:
            return None
        built = aware(row.built_at)
        assert built is not None
        return GameTable(row.game, built, row.games, json.loads(row.figures_json))

    # ------------------------------------------------------------------ the nightly claim
    def claim_night(self, now: datetime, owner: str) -> bool:
        """Claim today's rebuild (UTC day): once a day, by one worker; a claim past its lease is taken over."""
        day = now.astimezone(UTC).strftime("%Y-%m-%d")
        try:
            with self.db.engine.begin() as conn:
                conn.execute(insert(StatisticsBuild).values(day=day, status="running", owner=owner,
                                                            lease_until=now + LEASE))
            return True
        except IntegrityError:
            pass
        with self.db.engine.begin() as conn:
            taken = conn.execute(update(StatisticsBuild)
                                 .where(StatisticsBuild.day == day, StatisticsBuild.status == "running",
                                        StatisticsBuild.lease_until < now)
                                 .values(owner=owner, lease_until=now + LEASE))
        return taken.rowcount == 1

    def finish_night(self, now: datetime, owner: str) -> None:
        day = now.astimezone(UTC).strftime("%Y-%m-%d")
        with self.db.engine.begin() as conn:
            conn.execute(update(StatisticsBuild).where(StatisticsBuild.day == day, StatisticsBuild.owner == owner)
                         .values(status="done"))
