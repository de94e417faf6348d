"""Bot turns as database jobs: found, claimed with a lease, played once, by any number of bot workers.

A *pending bot turn* is a running game whose seat to move is a bot and that no
bot worker holds a live claim on (`pending_where`: the one definition the
workers claim by and the ``ludothek_bot_queue`` gauge counts by).  A worker
claims one by writing its name, the move number and a lease end into the game
row with a conditional ``UPDATE`` that only matches while the turn is still
pending; on PostgreSQL the candidates are first picked with ``FOR UPDATE SKIP
LOCKED`` so workers do not queue behind each other's rows.  Of several workers
(on several machines) exactly one gets each turn.

A claim names the move it was made for (``bot_claim_seq``), so it ends by
itself when the bot's move is stored: the move path needs no extra write.  A
worker that dies mid-thought leaves its claim to run out (`LEASE`), after which
another worker plays the turn.  Even if two workers ever thought about the same
turn (a lease overrun by a stopped process), the move is stored by the
optimistic ``UPDATE games ... WHERE seq = n``: only one of them can store it.

The short pause people need to follow a bot (``delay``) is part of the claim:
a turn is taken only ``delay`` seconds after the seat started waiting
(``games.turn_since``), measured in the database's own terms, so it holds
whichever worker plays.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, update

from .database import Database, db_time
from .models import GameRow, utcnow

#: How long a claim holds.  `hard` thinks 2 s, and gives way to `medium` after 5× that (10 s), which
#: gives way to `random` after 1 s more: a worker alive finishes well within it; a dead one's turn is
#: played by another worker once it runs out.
LEASE = timedelta(seconds=30)


#: The pending bot turns are rows of this join: each running game with the seat row of its seat to move.
PENDING_FROM = "games g JOIN seats s ON s.game_id = g.id AND s.seat = g.to_move"


def pending_where(mark: str) -> str:
    """A running game whose seat to move is a bot nobody holds a live claim for at the parameter ``mark``
    (now), over `PENDING_FROM`.

    The one definition the workers claim by (`BotTurnQueue.claim_bot_turn`), the idle workers wait by
    (`BotTurnQueue.next_bot_turn_due`) and the ``ludothek_bot_queue`` gauge counts by (`count_pending`).
    Plain SQL: a worker asks several times a second, and building the same SQLAlchemy expression
    each time cost the worker more CPU than running the query.
    """
    return ("g.status = 'running' AND s.kind = 'bot' AND (g.bot_lease_until IS NULL OR g.bot_lease_until <= "
            f"{mark} OR g.bot_claim_seq IS NULL OR g.bot_claim_seq <> g.seq)")


def db_mark(conn: Connection) -> str:
    """The driver's parameter mark for plain SQL on ``conn`` (``?`` on SQLite, ``%s`` on PostgreSQL)."""
    return "?" if conn.dialect.paramstyle == "qmark" else "%s"


def count_pending(conn: Connection, now: datetime) -> int:
    """How many bot turns wait for a worker at ``now`` (`pending_where`)."""
    sql = f"SELECT count(*) FROM {PENDING_FROM} WHERE {pending_where(db_mark(conn))}"
    return int(conn.exec_driver_sql(sql, (db_time(now, conn.dialect.name == "sqlite"),)).scalar_one())


@dataclass(frozen=True)
class BotTurn:
    """A claimed bot turn: the game and the move number it is claimed for.

    ``seat`` (the bot seat to move) and ``until`` (the lease's end) say who is thinking and for how
    long at most: what the pages show on the bot's panel (`GameInfo.thinking_seat`).  ``until`` is
    ``None`` when the claim was given back.
    """

    game_id: int
    seq: int
    seat: int = -1
    until: datetime | None = None


class BotTurnQueue:
    """Finding and claiming bot turns (playing them is `ludothek.services.bots`, thinking `ludothek.workers.bots`)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def count_pending_bot_turns(self, now: datetime | None = None) -> int:
        """How many bot turns wait for a worker (the ``ludothek_bot_queue`` gauge)."""
        with self.db.engine.begin() as conn:
            return count_pending(conn, now or utcnow())

    @functools.cached_property
    def _bot_sql(self) -> dict[str, str]:
        """The plain SQL of the bot workers' queries, in this database's parameter marks."""
        m = self.db.mark
        pending = pending_where(m)
        candidates = (f"FROM {PENDING_FROM} WHERE {pending} AND (g.turn_since IS NULL OR g.turn_since <= {m}) "
                      "ORDER BY g.turn_since ASC NULLS FIRST, g.id ASC")
        return {
            "due": f"SELECT count(*), min(coalesce(g.turn_since, g.started_at)) FROM {PENDING_FROM} WHERE {pending}",
            # PostgreSQL: pick, lock and claim in one statement (its own transaction on an autocommit
            # connection); the row picked is locked, so other workers skip it and pick another.
            "claim_one": (f"UPDATE games SET bot_claimed_by = {m}, bot_claim_seq = seq, bot_lease_until = {m} "
                          f"WHERE id = (SELECT g.id {candidates} LIMIT 1 FOR UPDATE OF g SKIP LOCKED) RETURNING id, seq, to_move"),
            "candidates": f"SELECT g.id, g.seq, g.to_move {candidates} LIMIT 8",
            "claim": (f"UPDATE games SET bot_claimed_by = {m}, bot_claim_seq = {m}, bot_lease_until = {m} "
                      f"WHERE id = {m} AND seq = {m} AND status = 'running' AND (bot_lease_until IS NULL OR "
                      f"bot_lease_until <= {m} OR bot_claim_seq IS NULL OR bot_claim_seq <> {m})"),
        }

    def next_bot_turn_due(self, now: datetime, delay: float) -> float | None:
        """Seconds until the earliest pending bot turn may be played (0: now); ``None``: none pending.

        One statement: an idle worker asks this a few times a second.
        """
        pending, since = self.db.single(self._bot_sql["due"], (self.db.db_time(now),))
        if not pending:
            return None
        if since is None:
            return 0.0
        if isinstance(since, str):  # SQLite hands back min() of its text form
            since = datetime.fromisoformat(since)
        if since.tzinfo is None:
            since = since.replace(tzinfo=now.tzinfo)
        return max(0.0, (since + timedelta(seconds=delay) - now).total_seconds())

    def claim_bot_turn(self, owner: str, now: datetime, delay: float = 0.0,
                       lease: timedelta = LEASE) -> BotTurn | None:
        """Claim the pending bot turn that has waited longest (at least ``delay`` seconds), for ``owner``.

        ``None`` when there is none.  The claim holds until ``now + lease`` or
        until the game moves on, whichever comes first.
        """
        due = self.db.db_time(now - timedelta(seconds=delay))
        if not self.db.sqlite:
            row = self.db.single(self._bot_sql["claim_one"],
                               (owner, self.db.db_time(now + lease), self.db.db_time(now), due))
            return None if row is None else BotTurn(row[0], row[1], row[2], now + lease)
        # SQLite: one writer at a time anyway; the conditional update decides between workers.
        with self.db.engine.begin() as conn:
            rows = conn.exec_driver_sql(self._bot_sql["candidates"], (self.db.db_time(now), due)).all()
        for game_id, seq, seat in rows:
            with self.db.engine.begin() as conn:
                if self.claim(conn, owner, game_id, seq, now, lease):
                    return BotTurn(game_id, seq, seat, now + lease)
        return None

    def claim(self, conn: Connection, owner: str, game_id: int, seq: int, now: datetime, lease: timedelta) -> bool:
        """The conditional update that takes a turn only while it is still pending at move ``seq``."""
        result = conn.exec_driver_sql(self._bot_sql["claim"], (
            owner, seq, self.db.db_time(now + lease), game_id, seq, self.db.db_time(now), seq))
        return bool(result.rowcount == 1)

    def release_bot_turn(self, owner: str, turn: BotTurn) -> None:
        """Give a claim back unplayed (a worker stopping): another worker may take the turn at once."""
        with self.db.engine.begin() as conn:
            conn.execute(
                update(GameRow)
                .where(GameRow.id == turn.game_id, GameRow.bot_claimed_by == owner,
                       GameRow.bot_claim_seq == turn.seq)
                .values(bot_lease_until=None, bot_claimed_by=None, bot_claim_seq=None)
            )

    def claim_game(self, owner: str, game_id: int, seq: int, now: datetime, lease: timedelta = LEASE) -> bool:
        """Claim the bot turn of game ``game_id`` at move ``seq`` (one named game, e.g. `bot_step`'s)."""
        with self.db.engine.begin() as conn:
            return self.claim(conn, owner, game_id, seq, now, lease)
