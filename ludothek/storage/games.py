"""Reading games: summaries (`GameInfo`) with the seats, and the cache that makes the hottest query small."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, select

from .database import Database, when
from .errors import NotFound, StoreError
from .info import GameInfo, SeatInfo, aware, seat_label
from .models import BotAccount, GameRow, SeatRow, User, utcnow


class Games:
    """Game summaries read from the database; the seats of running games are remembered (`info_cache`)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        #: Running games' summaries by id: their seats no longer change (unless ``seats_rev`` does).
        self.info_cache: dict[int, GameInfo] = {}
        self.live_sql = (f"SELECT seq, status, to_move, turn_since, deadline, seats_rev, handover_seat, "
                         f"handover_due, bot_claim_seq, bot_lease_until FROM games "
                         f"WHERE id = {db.mark}")
        # Built once (issue 34): building a statement cost more than running it, and every cold game
        # (after a restart, or beyond the cache) is read whole.
        self._full_sql = select(GameRow).where(GameRow.id == bindparam("game_id"))
        self._seats_sql = (select(SeatRow.seat, SeatRow.kind, SeatRow.user_id, SeatRow.bot, SeatRow.left_as,
                                  SeatRow.abandon_vote, User.name, BotAccount.user_id.label("bot_account"))
                           .outerjoin(User, User.id == SeatRow.user_id)
                           .outerjoin(BotAccount, BotAccount.user_id == SeatRow.user_id)
                           .where(SeatRow.game_id == bindparam("game_id"))
                           .order_by(SeatRow.seat))

    def game(self, game_id: int) -> GameInfo:
        """The game's setup and summary; `NotFound` if there is none.

        Always read from the database (another server may have moved), but for
        a running game whose setup and seats are known only the few columns
        that change are read, with a plain SQL statement: this is the hottest
        query of the portal.
        """
        cached = self.info_cache.get(game_id)
        if cached is not None:
            row = self.db.read_one(self.live_sql, (game_id,))  # plain DB-API: no statement or result objects
            if row is not None and row[1] == "running" and row[5] == cached.seats_rev:
                return dataclasses.replace(cached, seq=row[0], to_move=row[2], turn_since=when(row[3]),
                                           deadline=when(row[4]), handover_seat=row[6], handover_due=when(row[7]),
                                           bot_claim_seq=row[8], bot_lease_until=when(row[9]))
            # A seat changed hands (another server's timeout or resignation): read the seats again.
            self.info_cache.pop(game_id, None)
        return self.full(game_id)

    def seats_of(self, game_id: int) -> GameInfo | None:
        """The game's setup and seats as last known, for a listener told of a change: the cached summary
        (its seats are current; its turn may not be), else read; None for a game that is gone."""
        info = self.info_cache.get(game_id)
        if info is not None:
            return info
        try:
            return self.game(game_id)
        except StoreError:
            return None

    def full(self, game_id: int) -> GameInfo:
        """`game` read whole (the row, and the seats unless the cache knows them)."""
        with self.db.engine.begin() as conn:
            row = conn.execute(self._full_sql, {"game_id": game_id}).first()
            if row is None:
                raise NotFound(f"there is no game {game_id}", code_key="no_game")
            cached = self.info_cache.get(game_id)
            if cached is not None and row.status == "running" and cached.seats_rev == row.seats_rev:
                seats = cached.seats
            else:
                seat_rows = conn.execute(self._seats_sql, {"game_id": game_id}).all()
                seats = tuple(
                    SeatInfo(r.seat, r.kind, r.user_id, seat_label(r.kind, r.seat, r.name), r.bot, r.left_as,
                             bool(r.abandon_vote), r.bot_account is not None)
                    for r in seat_rows
                )
        info = self.info_from_row(row, seats)
        if row.status == "running":
            # Seats no longer change once a game runs: remember them.
            self.info_cache[game_id] = info
        return info

    @staticmethod
    def info_from_row(row: Any, seats: tuple[SeatInfo, ...]) -> GameInfo:
        return GameInfo(
            id=row.id, game=row.game, num_players=row.num_players, options=json.loads(row.options_json),
            status=row.status, creator_id=row.creator_id, seq=row.seq, to_move=row.to_move,
            created_at=aware(row.created_at) or utcnow(), turn_since=aware(row.turn_since),
            result=json.loads(row.result_json) if row.result_json else None, seats=seats,
            clock=json.loads(row.clock_json) if row.clock_json else None, deadline=aware(row.deadline),
            seats_rev=row.seats_rev or 0, handover_seat=row.handover_seat, handover_due=aware(row.handover_due),
            bot_claim_seq=row.bot_claim_seq, bot_lease_until=aware(row.bot_lease_until),
        )

    def infos(self, ids: Sequence[int]) -> list[GameInfo]:
        """Several games at once (in the order of ``ids``), with two queries instead of two per game.

        For lists of games (the lobby, profiles, game pages, my games): the summaries of running
        games are not put into the cache here; `game` reads them fresh when one is opened.
        """
        if not ids:
            return []
        with self.db.engine.begin() as conn:
            rows = {r.id: r for r in conn.execute(select(GameRow).where(GameRow.id.in_(list(ids)))).all()}
            seat_rows = conn.execute(
                select(SeatRow.game_id, SeatRow.seat, SeatRow.kind, SeatRow.user_id, SeatRow.bot, SeatRow.left_as,
                       SeatRow.abandon_vote, User.name, BotAccount.user_id.label("bot_account"))
                .outerjoin(User, User.id == SeatRow.user_id)
                .outerjoin(BotAccount, BotAccount.user_id == SeatRow.user_id)
                .where(SeatRow.game_id.in_(list(ids)))
                .order_by(SeatRow.game_id, SeatRow.seat)
            ).all()
        seats: dict[int, list[SeatInfo]] = {}
        for r in seat_rows:
            seats.setdefault(r.game_id, []).append(
                SeatInfo(r.seat, r.kind, r.user_id, seat_label(r.kind, r.seat, r.name), r.bot, r.left_as,
                         bool(r.abandon_vote), r.bot_account is not None))
        return [self.info_from_row(rows[gid], tuple(seats.get(gid, ()))) for gid in ids if gid in rows]

    def query(self, where: Any, order: Any = None, limit: int = 200) -> list[GameInfo]:
        """The games matching ``where`` (a SQLAlchemy condition on `GameRow`), as `infos`."""
        query = select(GameRow.id).where(where).limit(limit)
        if order is not None:
            query = query.order_by(*order)
        with self.db.engine.begin() as conn:
            ids = list(conn.execute(query).scalars())
        return self.infos(ids)
