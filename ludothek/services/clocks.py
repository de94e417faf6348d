"""Correspondence clocks, leavers and vacations: no game waits forever for someone who left.

A game may have a time control, chosen when it is created:

- none (the default, as on Yucata);
- a fixed time per move: 1, 2, 3, 5, 7 or 14 days for each turn;
- a time bank in the style of Board Game Arena's turn-based games: a start
  balance (e.g. 3 days), a bonus added after every turn (1 day) and a cap
  (14 days); what a player does not use stays in their bank.

The deadline of the seat to move is stored on the game row, so it survives
restarts, and it is what the clock job (`ludothek.workers.clocks`) looks for.
The job claims an expired deadline with a conditional update, so with several
servers or workers each timeout fires exactly once.  When a player runs out of
time, a bot takes over the seat for the rest of the game; the player is placed
last and marked ``timed_out``.  Resigning does the same at once (``resigned``).
Every such change bumps ``games.seats_rev``, which every move's optimistic write
checks: no server can store a move for a seat a bot has taken over.

Vacations pause a user's clocks: a deadline that would fall into or after an
absence moves on by the length of the absence.  At most 30 days per calendar
year.  The creator of a game may offer to abandon it; if every human player
agrees, it ends without a result (status ``abandoned``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, delete, insert, or_, select, update

from ludothek.storage.blocks import lock_users
from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, Conflict, Forbidden
from ludothek.storage.games import Games
from ludothek.storage.info import GameEvent, GameInfo, UserInfo, aware
from ludothek.storage.models import GameRow, SeatRow, Vacation, utcnow
from ludothek.storage.outbox import queue_mail
from ludothek.storage.timecontrol import (
    DAY,
    TAKEOVER_BOT,
    VACATION_DAYS_PER_YEAR,
    TimeControl,
    _aware,
    absences,
)

from .runtime import GameLocks, Listeners, StateCache

# ----------------------------------------------------------------------------- the service
#: The longest a reminder goes out before a deadline.
REMINDER_AHEAD = timedelta(hours=24)
#: The share of a turn's time left when the reminder goes out (capped at `REMINDER_AHEAD`).
REMINDER_SHARE = 0.25


def reminder_lead(clock_json: str | None, bank_seconds: float | None) -> timedelta:
    """How long before the deadline the reminder of a turn goes out: a quarter of the turn's time.

    The turn's time is the fixed time per move, or for a time bank the balance the turn started
    with (the seat's stored bank, or the start balance before its first turn).  A quarter keeps the
    reminder well apart from the turn notice even for the shortest control (1 day: 6 hours ahead);
    the caller caps it at `REMINDER_AHEAD`.  Without a known control: `REMINDER_AHEAD`.
    """
    if not clock_json:
        return REMINDER_AHEAD
    tc = TimeControl.from_json(json.loads(clock_json))
    if tc.kind == "move":
        seconds = tc.move_days * DAY
    else:
        seconds = float(bank_seconds) if bank_seconds is not None else tc.start_days * DAY
    return min(REMINDER_AHEAD, timedelta(seconds=seconds * REMINDER_SHARE))


class Clocks:
    """Timeouts, resignations, abandoning and vacations."""

    def __init__(self, db: Database, games: Games, states: StateCache, locks: GameLocks, listeners: Listeners) -> None:
        self.db = db
        self.games = games
        self.states = states
        self.locks = locks
        self.listeners = listeners


    def expire_due(self, now: datetime | None = None, limit: int = 100) -> list[int]:
        """Hand every seat whose time ran out to a bot; the games that changed.

        Each deadline is claimed with a conditional update, so several servers or
        workers running this at once fire each timeout exactly once.
        """
        now = now or utcnow()
        with self.db.engine.begin() as conn:
            due = conn.execute(
                select(GameRow.id, GameRow.seq, GameRow.to_move, GameRow.deadline)
                .where(GameRow.status == "running", GameRow.deadline.is_not(None), GameRow.deadline <= now)
                .order_by(GameRow.deadline)
                .limit(limit)
            ).all()
        fired = []
        for gid, seq, to_move, deadline in due:
            with self.locks.get(gid), self.db.engine.begin() as conn:
                claimed = conn.execute(
                    update(GameRow)
                    .where(GameRow.id == gid, GameRow.seq == seq, GameRow.deadline == deadline,
                           GameRow.status == "running")
                    .values(deadline=None, seats_rev=GameRow.seats_rev + 1)
                ).rowcount
                if claimed != 1:
                    continue
                person = conn.execute(
                    select(SeatRow.user_id)
                    .where(SeatRow.game_id == gid, SeatRow.seat == to_move, SeatRow.kind == "player")
                ).scalar()
                conn.execute(
                    update(SeatRow)
                    .where(SeatRow.game_id == gid, SeatRow.seat == to_move, SeatRow.kind == "player")
                    .values(kind="bot", bot=TAKEOVER_BOT, left_as="timed_out")
                )
                if person is not None:  # they are told, with the takeover (issue 30)
                    when = aware(deadline)
                    assert when is not None
                    queue_mail(conn, person, "timed_out", {"deadline": when.isoformat(), "seat": to_move},
                               game_id=gid, seq=seq)
            fired.append(gid)
            self._seats_changed(gid, to_move)
        return fired

    def queue_reminders(self, now: datetime | None = None, ahead: timedelta = REMINDER_AHEAD,
                        limit: int = 200) -> list[int]:
        """Queue a reminder for every player whose time is nearly up (`reminder_lead`, at most ``ahead``).

        One per deadline: the game row remembers the deadline it was reminded for,
        claimed with a conditional update in the same transaction as the outbox row,
        so several servers queue it once.  Whether the player wants the mail is
        decided when it is sent (their mail settings).  The candidates (deadlines
        within ``ahead``) are read page by page in deadline order, so games whose
        reminder is not due yet (a short turn with hours left) never crowd out
        those that are.
        """
        now = now or utcnow()
        queued: list[int] = []
        after: tuple[datetime, int] | None = None
        while len(queued) < limit:
            with self.db.engine.begin() as conn:
                query = (
                    select(GameRow.id, GameRow.seq, GameRow.deadline, GameRow.clock_json, SeatRow.user_id,
                           SeatRow.bank_seconds)
                    .join(SeatRow, and_(SeatRow.game_id == GameRow.id, SeatRow.seat == GameRow.to_move))
                    .where(GameRow.status == "running", GameRow.deadline.is_not(None), GameRow.deadline > now,
                           GameRow.deadline <= now + ahead, SeatRow.kind == "player",
                           or_(GameRow.reminded_for.is_(None), GameRow.reminded_for != GameRow.deadline))
                    .order_by(GameRow.deadline, GameRow.id)
                    .limit(limit)
                )
                if after is not None:
                    query = query.where(or_(GameRow.deadline > after[0],
                                            and_(GameRow.deadline == after[0], GameRow.id > after[1])))
                page = conn.execute(query).all()
            for gid, seq, deadline, clock_json, user_id, bank in page:
                when = aware(deadline)
                assert when is not None
                if user_id is None or when - now > min(ahead, reminder_lead(clock_json, bank)):
                    continue
                with self.db.engine.begin() as conn:
                    claimed = conn.execute(
                        update(GameRow).where(GameRow.id == gid, GameRow.deadline == deadline, GameRow.seq == seq)
                        .values(reminded_for=deadline)
                    ).rowcount
                    if claimed != 1:
                        continue
                    queue_mail(conn, user_id, "reminder", {"deadline": when.isoformat()}, game_id=gid, seq=seq)
                queued.append(gid)
                if len(queued) >= limit:
                    break
            if len(page) < limit:
                break
            after = (page[-1].deadline, page[-1].id)
        return queued

    def _seats_changed(self, game_id: int, left: int | None = None) -> None:
        """After a seat changed hands (``left``: the seat whose person left): forget the cached summary,
        wake the bots if one is to move, and let the people's open tabs re-count their waiting games."""
        self.games.info_cache.pop(game_id, None)
        info = self.games.game(game_id)
        self.listeners.notify(GameEvent(game_id, info.seq, info.to_move, info.status, info.is_bot_seat(info.to_move),
                                        left, info.seats_rev))

    def resign(self, game_id: int, user: UserInfo) -> GameInfo:
        """Give up: a bot plays on for the seat, and the player is placed last as ``resigned``."""
        with self.locks.get(game_id), self.db.engine.begin() as conn:
            row = conn.execute(select(GameRow.status).where(GameRow.id == game_id)).first()
            if row is None:
                self._refuse_missing(game_id)
            if row is not None and row.status != "running":
                raise Conflict("only a running game can be resigned", code_key="not_running")
            seat = conn.execute(
                select(SeatRow.seat, SeatRow.kind, SeatRow.left_as)
                .where(SeatRow.game_id == game_id, SeatRow.user_id == user.id)
            ).first()
            if seat is None:
                raise Forbidden("you do not play in this game", code_key="not_seated")
            if seat.kind != "player":
                raise Conflict(f"a bot already plays your seat ({seat.left_as or 'left'})", code_key="already_left")
            conn.execute(update(GameRow).where(GameRow.id == game_id).values(seats_rev=GameRow.seats_rev + 1))
            to_move = conn.execute(select(GameRow.to_move).where(GameRow.id == game_id)).scalar()
            if to_move == seat.seat:
                conn.execute(update(GameRow).where(GameRow.id == game_id).values(deadline=None))
            conn.execute(
                update(SeatRow)
                .where(SeatRow.game_id == game_id, SeatRow.seat == seat.seat, SeatRow.kind == "player")
                .values(kind="bot", bot=TAKEOVER_BOT, left_as="resigned")
            )
        self._seats_changed(game_id, seat.seat)
        return self.games.game(game_id)

    def _refuse_missing(self, game_id: int) -> None:
        self.games.full(game_id)  # raises NotFound

    def vote_abandon(self, game_id: int, user: UserInfo, agree: bool = True) -> GameInfo:
        """The creator offers to abandon (their vote); the others agree or decline.

        When every human player has agreed, the game ends without a result.  A
        decline withdraws the offer (every vote is cleared).
        """
        with self.locks.get(game_id), self.db.engine.begin() as conn:
            game = conn.execute(select(GameRow.status, GameRow.creator_id).where(GameRow.id == game_id)).first()
            if game is None:
                self._refuse_missing(game_id)
            assert game is not None
            if game.status != "running":
                raise Conflict("only a running game can be abandoned", code_key="not_running")
            seats = conn.execute(
                select(SeatRow.seat, SeatRow.kind, SeatRow.user_id, SeatRow.abandon_vote)
                .where(SeatRow.game_id == game_id)
            ).all()
            mine = next((s for s in seats if s.user_id == user.id and s.kind == "player"), None)
            if mine is None:
                raise Forbidden("only the game's players can abandon it", code_key="not_seated")
            offered = any(s.abandon_vote and s.user_id == game.creator_id for s in seats)
            others = sorted({s.user_id for s in seats
                             if s.kind == "player" and s.user_id is not None and s.user_id != user.id})
            if not agree:
                conn.execute(update(SeatRow).where(SeatRow.game_id == game_id).values(abandon_vote=False))
                if offered:  # the others hear that the offer is off: declined, or withdrawn by the creator
                    for other in others:
                        queue_mail(conn, other, "abandon_declined",
                                   {"by": user.id, "withdrawn": user.id == game.creator_id}, game_id=game_id)
            else:
                if user.id == game.creator_id and not offered:
                    # The offer (issue 30): every other person at the table is told, with the vote.
                    for other in others:
                        queue_mail(conn, other, "abandon_offered", {"by": user.id}, game_id=game_id)
                if user.id != game.creator_id and not offered:
                    raise Conflict("only the creator can offer to abandon the game", code_key="not_offered")
                conn.execute(
                    update(SeatRow).where(SeatRow.game_id == game_id, SeatRow.seat == mine.seat)
                    .values(abandon_vote=True)
                )
                humans = [s for s in seats if s.kind == "player"]
                if all(s.abandon_vote or s.seat == mine.seat for s in humans):
                    now = utcnow()
                    ended = conn.execute(
                        update(GameRow).where(GameRow.id == game_id, GameRow.status == "running")
                        .values(status="abandoned", deadline=None, finished_at=now)
                    ).rowcount
                    if ended:  # over for profiles and replays too; no places, no ratings, no counts
                        conn.execute(update(SeatRow).where(SeatRow.game_id == game_id).values(ended_at=now))
            conn.execute(update(GameRow).where(GameRow.id == game_id).values(seats_rev=GameRow.seats_rev + 1))
        self.states.drop(game_id)
        self._seats_changed(game_id)
        return self.games.game(game_id)

    # ------------------------------------------------------------------ vacations
    def vacation_days_used(self, user_id: int, year: int) -> float:
        with self.db.engine.begin() as conn:
            return _days_used(conn, user_id, year)

    def vacations(self, user_id: int, now: datetime | None = None) -> list[tuple[datetime, datetime]]:
        """The user's current and coming absences."""
        now = now or utcnow()
        with self.db.engine.begin() as conn:
            return sorted(absences(conn, user_id, now))

    def away_until(self, user_ids: list[int], now: datetime | None = None) -> dict[int, datetime]:
        """Of these users, those away right now, with when they return."""
        now = now or utcnow()
        if not user_ids:
            return {}
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(Vacation.user_id, Vacation.ends)
                .where(Vacation.user_id.in_(user_ids), Vacation.starts <= now, Vacation.ends > now)
            ).all()
        out: dict[int, datetime] = {}
        for uid, ends in rows:
            out[uid] = max(out.get(uid, _aware(ends)), _aware(ends))
        return out

    def declare_vacation(self, user: UserInfo, days: float, starts: datetime | None = None,
                         now: datetime | None = None) -> tuple[datetime, datetime]:
        """An absence of ``days`` from ``starts`` (default now); the deadlines it touches move on."""
        now = now or utcnow()
        starts = _aware(starts) if starts is not None else now
        if isinstance(days, bool) or not isinstance(days, int | float) or not 0 < days <= VACATION_DAYS_PER_YEAR:
            raise BadRequest(f"a vacation lasts more than 0 and at most {VACATION_DAYS_PER_YEAR} days",
                             code_key="bad_vacation")
        if starts < now - timedelta(minutes=5) or starts > now + timedelta(days=366):
            raise BadRequest("a vacation starts now or within the next year", code_key="bad_vacation")
        ends = starts + timedelta(days=days)
        with self.db.engine.begin() as conn:
            # The checks and the insert under the user's row lock: two requests at once (a double
            # click) are taken one after the other, so the second sees the first's vacation.
            lock_users(conn, [user.id])
            for year in range(starts.year, ends.year + 1):
                y0, y1 = datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
                new = max(0.0, (min(ends, y1) - max(starts, y0)).total_seconds() / DAY)
                used = _days_used(conn, user.id, year)
                if used + new > VACATION_DAYS_PER_YEAR + 1e-9:
                    left = max(0.0, VACATION_DAYS_PER_YEAR - used)
                    raise Conflict(f"that would be {used + new:.1f} vacation days in {year}; "
                                   f"{left:.1f} of {VACATION_DAYS_PER_YEAR} are left", code_key="vacation_used_up")
            overlapping = conn.execute(
                select(Vacation.id).where(Vacation.user_id == user.id, Vacation.starts < ends, Vacation.ends > starts)
            ).first()
            if overlapping is not None:
                raise Conflict("you already have a vacation at that time", code_key="vacation_overlaps")
            conn.execute(insert(Vacation).values(user_id=user.id, starts=starts, ends=ends))
            # Pause the clocks that run for this user right now.
            waiting = conn.execute(
                select(GameRow.id, GameRow.deadline)
                .join(SeatRow, and_(SeatRow.game_id == GameRow.id, SeatRow.seat == GameRow.to_move))
                .where(GameRow.status == "running", GameRow.deadline.is_not(None), SeatRow.user_id == user.id,
                       SeatRow.kind == "player", or_(GameRow.deadline > starts))
            ).all()
            for gid, deadline in waiting:
                deadline = aware(deadline)
                assert deadline is not None
                begin = max(starts, now)
                conn.execute(
                    update(GameRow).where(GameRow.id == gid, GameRow.deadline == deadline)
                    .values(deadline=deadline + (ends - begin))
                )
        return starts, ends

    def end_vacation(self, user: UserInfo, now: datetime | None = None) -> tuple[datetime, datetime]:
        """End the user's vacation now (or call off the next coming one); ``(starts, new end)``.

        The clocks it paused get back only what was not taken: a deadline it pushed on (every such
        deadline lies at or after the vacation's end, see `paused_deadline`) moves back by the part
        of the absence that no longer happens.  The days not taken count as never declared.
        `Conflict` (``no_vacation``) when there is none to end; nothing changes then.
        """
        now = now or utcnow()
        with self.db.engine.begin() as conn:
            lock_users(conn, [user.id])  # as `declare_vacation`: one change of the user's absences at a time
            row = conn.execute(
                select(Vacation.id, Vacation.starts, Vacation.ends)
                .where(Vacation.user_id == user.id, Vacation.ends > now).order_by(Vacation.starts).limit(1)
            ).first()
            if row is None:
                raise Conflict("you are not on vacation and have none coming", code_key="no_vacation")
            starts, old_end = _aware(row.starts), _aware(row.ends)
            new_end = max(now, starts)
            if new_end <= starts:
                conn.execute(delete(Vacation).where(Vacation.id == row.id))
            else:
                conn.execute(update(Vacation).where(Vacation.id == row.id).values(ends=new_end))
            cut = old_end - new_end
            waiting = conn.execute(
                select(GameRow.id, GameRow.deadline)
                .join(SeatRow, and_(SeatRow.game_id == GameRow.id, SeatRow.seat == GameRow.to_move))
                .where(GameRow.status == "running", GameRow.deadline.is_not(None), SeatRow.user_id == user.id,
                       SeatRow.kind == "player", GameRow.deadline >= old_end)
            ).all()
            for gid, deadline in waiting:
                deadline = aware(deadline)
                assert deadline is not None  # the query asks for one
                conn.execute(update(GameRow).where(GameRow.id == gid, GameRow.deadline == deadline)
                             .values(deadline=deadline - cut))
        return starts, new_end

    def clock_view(self, info: GameInfo, now: datetime | None = None) -> dict[str, Any] | None:
        """What the board and the API show of the clocks: public to everyone at the table."""
        if info.clock is None and not any(s.left_as for s in info.seats):
            return None
        now = now or utcnow()
        banks: dict[int, float | None] = {}
        if info.clock is not None and info.clock["kind"] == "bank":
            with self.db.engine.begin() as conn:
                banks = dict(conn.execute(
                    select(SeatRow.seat, SeatRow.bank_seconds).where(SeatRow.game_id == info.id)
                ).all())
        # A vacation pauses clocks: a game without one has nothing to pause, so nobody is shown away there.
        away = self.away_until([s.user_id for s in info.seats if s.user_id is not None and s.kind == "player"],
                               now) if info.clock is not None else {}
        seats = []
        for s in info.seats:
            remaining: float | None = None
            if info.status == "running" and s.seat == info.to_move and info.deadline is not None:
                remaining = max(0.0, (info.deadline - now).total_seconds())
            elif s.seat in banks and s.kind == "player":
                remaining = banks[s.seat]
            seats.append({
                "seat": s.seat, "remaining_seconds": remaining, "left": s.left_as,
                "away_until": away[s.user_id].isoformat() if s.user_id in away else None,
            })
        return {
            "control": info.clock,
            "deadline": info.deadline.isoformat() if info.deadline else None,
            "seats": seats,
        }


def _days_used(conn: Connection, user_id: int, year: int) -> float:
    """Vacation days ``user_id`` has declared in ``year`` (UTC), inside the caller's transaction."""
    start = datetime(year, 1, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC)
    rows = conn.execute(
        select(Vacation.starts, Vacation.ends)
        .where(Vacation.user_id == user_id, Vacation.ends > start, Vacation.starts < end)
    ).all()
    used = sum((min(_aware(r.ends), end) - max(_aware(r.starts), start)).total_seconds() for r in rows)
    return used / DAY
