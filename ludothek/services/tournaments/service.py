"""Tournaments on the site (issue 31): creating, entering, withdrawing, the organiser's actions, the
views of standings and pairings, and the round job's work (`Tournaments.run_due`).

Every change runs in one transaction that first claims the tournament's row with a conditional
update (as the lobby claims a waiting game): on PostgreSQL that takes the row lock, on SQLite the
database's write lock, so entries, withdrawals, organiser actions and round starts of one tournament
never interleave.  A round starts in the same transaction that raises ``current_round`` from n to
n + 1 (``WHERE current_round = n``) and writes the round, its games, its byes and the notices; the
unique ``(tournament_id, round_no)`` refuses a second copy besides.  So two processes starting the
next round at once start it once, and a process killed mid-start leaves nothing: the next pass of
any process's round job starts the round again, once.

Round starts run only in the round job (`ludothek.workers.tournaments`), never on the web server's
event loop: a request records an entry, the job sees that the field is full.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from ludothek import engine as eng
from ludothek.engine import InvalidOptions
from ludothek.storage.blocks import share_users
from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, Conflict, Forbidden, NotFound
from ludothek.storage.games import Games
from ludothek.storage.info import GameEvent, UserInfo, aware
from ludothek.storage.models import (
    MAX_ID,
    GameRow,
    Rating,
    SeatRow,
    TournamentBye,
    TournamentEntrant,
    TournamentRound,
    TournamentRow,
    TournamentTable,
    User,
    utcnow,
)
from ludothek.storage.outbox import queue_notice
from ludothek.storage.text import check_text
from ludothek.storage.timecontrol import (
    DAY,
    TAKEOVER_BOT,
    TimeControl,
    absences,
    clock_json_of,
    parse_time_control,
    paused_deadline,
)

from ..runtime import GameLocks, Listeners, StateCache
from ..tracked import Tracked, resolve_chance
from .formats import (
    KNOWN_FORMATS,
    MAX_ROUND_ROBIN,
    ROUNDS_FROM_FIELD,
    knockout_fields,
    pairing_of,
    rounds_estimate,
    rounds_for,
)
from .pairing import Entrant, PastGame, Round
from .standings_adapter import StandingRow, site_standings

STATES = ("open", "running", "paused", "finished", "cancelled")
START_RULES = ("time", "full")
#: The most rounds, entrants and the longest name a tournament may have.
MAX_ROUNDS = 20
MAX_ENTRANTS = 256
MAX_NAME = 80
#: The longest an entry window or a start may lie ahead.
MAX_AHEAD = timedelta(days=366)
#: Games that are over for a tournament's purposes (the round waits for every other status).
ENDED = ("finished", "abandoned", "cancelled")


@dataclass(frozen=True)
class TournamentInfo:
    """A tournament as the pages and the API show it."""

    id: int
    name: str
    game: str
    options: dict[str, str]
    table_size: int
    format: str
    rounds: int
    clock: dict[str, Any]
    entry_opens: datetime | None
    entry_closes: datetime | None
    min_entrants: int
    max_entrants: int
    min_rating: float | None
    invite_only: bool
    start_rule: str
    starts_at: datetime | None
    round_days: float | None
    organiser_id: int | None
    organiser: str | None
    state: str
    current_round: int
    entrants: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    def as_json(self) -> dict[str, Any]:
        def iso(d: datetime | None) -> str | None:
            return d.isoformat() if d is not None else None

        return {
            "id": self.id, "name": self.name, "game": self.game, "options": self.options,
            "table_size": self.table_size, "format": self.format, "rounds": self.rounds,
            "time_control": self.clock, "entry_opens": iso(self.entry_opens), "entry_closes": iso(self.entry_closes),
            "min_entrants": self.min_entrants, "max_entrants": self.max_entrants, "min_rating": self.min_rating,
            "invite_only": self.invite_only, "start_rule": self.start_rule, "starts_at": iso(self.starts_at),
            "round_days": self.round_days, "organiser": self.organiser, "state": self.state,
            "current_round": self.current_round, "entrants": self.entrants, "created_at": iso(self.created_at),
            "started_at": iso(self.started_at), "finished_at": iso(self.finished_at),
        }


@dataclass(frozen=True)
class EntrantInfo:
    id: int
    user_id: int
    name: str
    status: str
    rating: float


def _when(value: Any, what: str) -> datetime | None:
    """An ISO time from the API or the form (None: not given); naive times are taken as UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return aware(value)
    if not isinstance(value, str):
        raise BadRequest(f"{what} must be an ISO date and time such as 2026-12-01T18:00:00Z",
                         code_key="tournament_bad_time", field=what)
    try:
        return aware(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        raise BadRequest(f"{what} must be an ISO date and time such as 2026-12-01T18:00:00Z",
                         code_key="tournament_bad_time", field=what) from None


def _int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{what} must be a whole number from {low} to {high}", code_key="tournament_bad_number",
                         field=what, low=low, high=high)
    return value


class Tournaments:
    """Tournaments: the lobby's counterpart for competitions, and the round job's work."""

    def __init__(self, db: Database, games: Games, states: StateCache, locks: GameLocks,
                 listeners: Listeners) -> None:
        self.db = db
        self.games = games
        self.states = states
        self.locks = locks
        self.listeners = listeners
        #: Called inside a round start's transaction, just before it commits (tests kill a process there).
        self.before_round_commit: Callable[[int, int], None] | None = None

    # ------------------------------------------------------------------ creating
    def create(self, organiser: UserInfo, spec: dict[str, Any], now: datetime | None = None) -> int:
        """A new tournament from ``spec`` (the API's body); every refusal names what is wrong."""
        now = now or utcnow()
        if organiser.is_guest:
            raise Forbidden("guests cannot organise tournaments; register first", code_key="tournament_guest")
        if not isinstance(spec, dict):
            raise BadRequest("send the tournament as a JSON object")
        name = check_text(spec.get("name") or "", "name").strip()
        if not name or len(name) > MAX_NAME or not name.isprintable():
            raise BadRequest(f"a tournament needs a name of 1 to {MAX_NAME} characters", code_key="tournament_name")
        game_id = str(spec.get("game") or "")
        try:
            game = eng.load(game_id)
        except KeyError:
            raise NotFound(f"unknown game {game_id!r}; known games: {', '.join(eng.games())}",
                           code_key="tournament_game") from None
        table_size = _int(spec.get("table_size", game.usual_players()), "table_size", 2, 5)
        options = spec.get("options") or {}
        if not isinstance(options, dict):
            raise BadRequest("options must be an object of option names and values")
        try:
            opts = game.validate_options(table_size, options)
        except InvalidOptions as exc:
            raise BadRequest(str(exc), code_key=f"options_{exc.reason}", **exc.params) from None
        fmt = str(spec.get("format") or "swiss")
        if fmt not in KNOWN_FORMATS:
            raise BadRequest(f"format must be one of {', '.join(KNOWN_FORMATS)}", code_key="tournament_format")
        if pairing_of(fmt) is None:
            raise BadRequest(f"the {fmt} format is not available yet; choose swiss",
                             code_key="tournament_format_unavailable", format=fmt)
        rounds = _int(spec.get("rounds", 3), "rounds", 1, MAX_ROUNDS) if fmt not in ROUNDS_FROM_FIELD else 1
        if spec.get("time_control") in (None, "", "none"):
            raise BadRequest("a tournament needs a time control (move:D or bank:S+A/M), so no game waits forever",
                             code_key="tournament_clock")
        tc = parse_time_control(spec.get("time_control"))
        clock = clock_json_of(tc)
        assert clock is not None
        max_entrants = _int(spec.get("max_entrants", 16), "max_entrants", table_size, MAX_ENTRANTS)
        min_entrants = _int(spec.get("min_entrants", table_size), "min_entrants", table_size, max_entrants)
        if fmt == "round_robin" and max_entrants > MAX_ROUND_ROBIN:
            raise BadRequest(f"a round robin takes at most {MAX_ROUND_ROBIN} entrants (every pair meets)",
                             code_key="tournament_round_robin_size", most=MAX_ROUND_ROBIN)
        if fmt == "knockout" and not knockout_fields(min_entrants, max_entrants, table_size):
            raise BadRequest(f"no field of {min_entrants} to {max_entrants} entrants ends a knock-out with tables of "
                             f"{table_size} in one full final table; change the entry limits",
                             code_key="tournament_knockout_field", low=min_entrants, high=max_entrants,
                             size=table_size)
        if fmt in ROUNDS_FROM_FIELD:  # fixed at the start, from the field that plays (see formats.py)
            rounds = rounds_estimate(fmt, max_entrants, table_size)
        rule = str(spec.get("start_rule") or "time")
        if rule not in START_RULES:
            raise BadRequest("start_rule must be time (at starts_at) or full (once max_entrants entered)",
                             code_key="tournament_start_rule")
        entry_opens = _when(spec.get("entry_opens"), "entry_opens")
        entry_closes = _when(spec.get("entry_closes"), "entry_closes")
        starts_at = _when(spec.get("starts_at"), "starts_at")
        if rule == "time":
            if starts_at is None:
                raise BadRequest("a tournament that starts at a time needs starts_at", code_key="tournament_starts_at")
            if starts_at <= now or starts_at > now + MAX_AHEAD:
                raise BadRequest("starts_at must lie in the future, within a year", code_key="tournament_starts_at")
            entry_closes = entry_closes or starts_at
            if entry_closes > starts_at:
                raise BadRequest("entry must close no later than the start", code_key="tournament_window")
        elif starts_at is not None:
            raise BadRequest("starts_at is only for start_rule time", code_key="tournament_starts_at")
        if entry_closes is not None and (entry_closes <= now or entry_closes > now + MAX_AHEAD):
            raise BadRequest("entry_closes must lie in the future, within a year", code_key="tournament_window")
        if entry_opens is not None and entry_closes is not None and entry_opens >= entry_closes:
            raise BadRequest("entry must open before it closes", code_key="tournament_window")
        min_rating = spec.get("min_rating")
        if min_rating is not None and (isinstance(min_rating, bool) or not isinstance(min_rating, int | float)
                                       or not -1000 <= min_rating <= 1000):
            raise BadRequest("min_rating must be a number from -1000 to 1000 (or null)", code_key="tournament_rating")
        invite_only = spec.get("invite_only", False)
        if not isinstance(invite_only, bool):
            raise BadRequest("invite_only must be true or false")
        invite = spec.get("invite") or []
        if not isinstance(invite, list) or not all(isinstance(n, str) for n in invite) or len(invite) > max_entrants:
            raise BadRequest(f"invite must be a list of at most {max_entrants} user names")
        if invite and not invite_only:
            raise BadRequest("invitations are for invitation-only tournaments", code_key="tournament_invite")
        round_days = spec.get("round_days")
        if round_days is not None and (isinstance(round_days, bool) or not isinstance(round_days, int | float)
                                       or not 0.01 <= round_days <= 60):
            raise BadRequest("round_days must be a number of days from 0.01 to 60 (or null: rounds follow each other)",
                             code_key="tournament_round_days")
        with self.db.engine.begin() as conn:
            invitees: list[int] = []
            for who in invite:
                check_text(who, "invite", 40)
                uid = conn.execute(select(User.id).where(User.name_key == who.strip().lower())).scalar()
                if uid is None:
                    raise NotFound(f"no user called {who!r}", code_key="no_user")
                if uid not in invitees:
                    invitees.append(uid)
            tid = conn.execute(insert(TournamentRow).values(
                name=name, game=game.id, options_json=json.dumps(opts, sort_keys=True), table_size=table_size,
                format=fmt, rounds=rounds, clock_json=clock, points_json=None, entry_opens=entry_opens,
                entry_closes=entry_closes, min_entrants=min_entrants, max_entrants=max_entrants,
                min_rating=float(min_rating) if min_rating is not None else None, invite_only=invite_only,
                start_rule=rule, starts_at=starts_at, round_days=float(round_days) if round_days else None,
                organiser_id=organiser.id, state="open", current_round=0,
                seed=random.SystemRandom().randrange(1, 2**31 - 1), created_at=now,
            ).returning(TournamentRow.id)).scalar_one()
            if invitees:
                conn.execute(insert(TournamentEntrant), [
                    {"tournament_id": tid, "user_id": uid, "status": "invited", "rating": 0.0} for uid in invitees
                ])
        return int(tid)

    # ------------------------------------------------------------------ reading
    def get(self, tid: int) -> TournamentInfo:
        infos = self._infos(TournamentRow.id == tid) if 0 < tid <= MAX_ID else []
        if not infos:
            raise NotFound(f"there is no tournament {tid}", code_key="no_tournament")
        return infos[0]

    def listing(self, states: Sequence[str], limit: int = 100, game: str | None = None) -> list[TournamentInfo]:
        where: Any = TournamentRow.state.in_(list(states))
        if game is not None and game not in eng.games():
            return []  # (nor does a string no database can hold reach one)
        if game is not None:
            where = where & (TournamentRow.game == game)
        return self._infos(where, limit)

    def of_user(self, user_id: int, limit: int = 20) -> list[tuple[TournamentInfo, str]]:
        """The tournaments a person entered (or left), newest first, with their entrant status."""
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(TournamentEntrant.tournament_id, TournamentEntrant.status)
                .where(TournamentEntrant.user_id == user_id, TournamentEntrant.status != "invited")
                .order_by(TournamentEntrant.tournament_id.desc()).limit(limit)
            ).all()
        status = {r.tournament_id: r.status for r in rows}
        infos = self._infos(TournamentRow.id.in_(list(status)), limit) if status else []
        return [(i, status[i.id]) for i in infos]

    def _infos(self, where: Any, limit: int = 100) -> list[TournamentInfo]:
        counted = (select(func.count()).select_from(TournamentEntrant)
                   .where(TournamentEntrant.tournament_id == TournamentRow.id, TournamentEntrant.status == "entered")
                   .scalar_subquery())
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(*TournamentRow.__table__.c, User.name.label("organiser"), counted.label("entrants"))
                .outerjoin(User, User.id == TournamentRow.organiser_id)
                .where(where).order_by(TournamentRow.id.desc()).limit(max(1, min(limit, 500)))
            ).all()
        out = []
        for t in rows:
            out.append(TournamentInfo(
                id=t.id, name=t.name, game=t.game, options=json.loads(t.options_json), table_size=t.table_size,
                format=t.format, rounds=t.rounds, clock=json.loads(t.clock_json), entry_opens=aware(t.entry_opens),
                entry_closes=aware(t.entry_closes), min_entrants=t.min_entrants, max_entrants=t.max_entrants,
                min_rating=t.min_rating, invite_only=t.invite_only, start_rule=t.start_rule,
                starts_at=aware(t.starts_at), round_days=t.round_days, organiser_id=t.organiser_id,
                organiser=t.organiser, state=t.state, current_round=t.current_round, entrants=int(t.entrants),
                created_at=aware(t.created_at) or t.created_at, started_at=aware(t.started_at),
                finished_at=aware(t.finished_at),
            ))
        return out

    def entrants(self, tid: int) -> list[EntrantInfo]:
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(TournamentEntrant.id, TournamentEntrant.user_id, User.name, TournamentEntrant.status,
                       TournamentEntrant.rating)
                .join(User, User.id == TournamentEntrant.user_id)
                .where(TournamentEntrant.tournament_id == tid).order_by(TournamentEntrant.id)
            ).all()
        return [EntrantInfo(r.id, r.user_id, r.name, r.status, r.rating) for r in rows]

    def status_of(self, tid: int, user_id: int) -> str | None:
        """``invited``, ``entered``, ``withdrawn``, ``removed`` or None (not in it)."""
        with self.db.engine.begin() as conn:
            return conn.execute(select(TournamentEntrant.status).where(
                TournamentEntrant.tournament_id == tid, TournamentEntrant.user_id == user_id)).scalar()

    def tournament_of_game(self, game_id: int) -> int | None:
        with self.db.engine.begin() as conn:
            return conn.execute(select(TournamentTable.tournament_id)
                                .where(TournamentTable.game_id == game_id)).scalar()

    def table_of_game(self, game_id: int) -> dict[str, Any] | None:
        """The tournament and round a game is played in (its page links back), or None for other games."""
        with self.db.engine.begin() as conn:
            row = conn.execute(select(TournamentRow.id, TournamentRow.name, TournamentRound.round_no)
                               .join(TournamentTable, TournamentTable.tournament_id == TournamentRow.id)
                               .join(TournamentRound, TournamentRound.id == TournamentTable.round_id)
                               .where(TournamentTable.game_id == game_id)).first()
        return {"id": row.id, "name": row.name, "round": row.round_no} if row is not None else None

    # ------------------------------------------------------------------ entering and leaving
    def _claim(self, conn: Connection, tid: int, states: Sequence[str]) -> Any:
        """Inside a transaction: claim the tournament's row (a no-op update) and read it; refusals first."""
        if not 0 < tid <= MAX_ID:
            raise NotFound(f"there is no tournament {tid}", code_key="no_tournament")
        claimed = conn.execute(update(TournamentRow).where(TournamentRow.id == tid, TournamentRow.state.in_(list(states)))
                               .values(current_round=TournamentRow.current_round)).rowcount
        row = conn.execute(select(*TournamentRow.__table__.c).where(TournamentRow.id == tid)).first()
        if row is None:
            raise NotFound(f"there is no tournament {tid}", code_key="no_tournament")
        if claimed != 1:
            raise Conflict(f"this tournament is {row.state}", code_key="tournament_state", state=row.state)
        return row

    def enter(self, tid: int, user: UserInfo, now: datetime | None = None) -> None:
        now = now or utcnow()
        if user.is_guest:
            raise Forbidden("guests cannot enter tournaments; register first", code_key="tournament_guest")
        with self.db.engine.begin() as conn:
            t = self._claim(conn, tid, ("open",))
            opens, closes = aware(t.entry_opens), aware(t.entry_closes)
            if opens is not None and now < opens:
                raise Conflict("entry has not opened yet", code_key="tournament_not_yet")
            if closes is not None and now >= closes:
                raise Conflict("entry has closed", code_key="tournament_closed")
            mine = conn.execute(select(TournamentEntrant.id, TournamentEntrant.status).where(
                TournamentEntrant.tournament_id == tid, TournamentEntrant.user_id == user.id)).first()
            if mine is not None and mine.status == "entered":
                raise Conflict("you have already entered this tournament", code_key="tournament_entered")
            if mine is not None and mine.status == "removed":
                raise Forbidden("the organiser removed you from this tournament", code_key="tournament_removed")
            invited = mine is not None and mine.status in ("invited", "withdrawn")
            if t.invite_only and not invited:
                raise Forbidden("this tournament is by invitation only", code_key="tournament_invite_only")
            count = conn.execute(select(func.count()).select_from(TournamentEntrant).where(
                TournamentEntrant.tournament_id == tid, TournamentEntrant.status == "entered")).scalar_one()
            if count >= t.max_entrants:
                raise Conflict("this tournament is full", code_key="tournament_full")
            rating = conn.execute(select(Rating.conservative).where(
                Rating.user_id == user.id, Rating.game == t.game)).scalar()
            rating = float(rating) if rating is not None else 0.0
            if t.min_rating is not None and rating < t.min_rating:
                raise Forbidden(f"this tournament needs a rating of at least {t.min_rating:g}; yours is {rating:.1f}",
                                code_key="tournament_rating_low", need=f"{t.min_rating:g}", have=f"{rating:.1f}")
            share_users(conn, [user.id])
            if mine is None:
                conn.execute(insert(TournamentEntrant).values(
                    tournament_id=tid, user_id=user.id, status="entered", rating=rating, entered_at=now))
            else:
                conn.execute(update(TournamentEntrant).where(TournamentEntrant.id == mine.id).values(
                    status="entered", rating=rating, entered_at=now, left_at=None, left_round=None))
            queue_notice(conn, user.id, "tournament_entered", {"tournament": tid}, now=now)

    def withdraw(self, tid: int, user: UserInfo, now: datetime | None = None) -> None:
        """Leave: before the start simply out; once running, the remaining games are forfeited and a bot
        plays on for the person in their running games (placed last, as a resignation)."""
        self._leave(tid, user.id, "withdrawn", None, now or utcnow())

    def remove(self, tid: int, organiser: UserInfo, name: str, now: datetime | None = None) -> None:
        """The organiser takes a person out (as a withdrawal, marked ``removed``: they cannot enter again)."""
        check_text(name, "name", 40)
        with self.db.engine.begin() as conn:
            uid = conn.execute(select(User.id).where(User.name_key == str(name or "").strip().lower())).scalar()
        if uid is None:
            raise NotFound(f"no user called {name!r}", code_key="no_user")
        self._leave(tid, uid, "removed", organiser.id, now or utcnow())

    def _leave(self, tid: int, user_id: int, status: str, organiser_id: int | None, now: datetime) -> None:
        changed: list[tuple[int, int]] = []
        with self.db.engine.begin() as conn:
            t = self._claim(conn, tid, ("open", "running", "paused"))
            if organiser_id is not None and t.organiser_id != organiser_id:
                raise Forbidden("only the organiser can do that", code_key="tournament_not_organiser")
            mine = conn.execute(select(TournamentEntrant.id, TournamentEntrant.status).where(
                TournamentEntrant.tournament_id == tid, TournamentEntrant.user_id == user_id)).first()
            if mine is None or mine.status not in ("entered", "invited"):
                raise Conflict("that person is not in this tournament", code_key="tournament_not_entered")
            conn.execute(update(TournamentEntrant).where(TournamentEntrant.id == mine.id).values(
                status=status, left_at=now, left_round=t.current_round))
            if t.state != "open":
                changed = self._forfeit_running(conn, tid, user_id)
        for gid, seat in changed:
            self._seats_changed(gid, seat)

    def _forfeit_running(self, conn: Connection, tid: int, user_id: int) -> list[tuple[int, int]]:
        """Inside the leave's transaction: a bot takes the person's seat in each running tournament game
        (``left_as`` resigned, as `Clocks.resign`: placed last, the seat change checked by every move)."""
        rows = conn.execute(
            select(SeatRow.game_id, SeatRow.seat, GameRow.to_move)
            .join(TournamentTable, TournamentTable.game_id == SeatRow.game_id)
            .join(GameRow, GameRow.id == SeatRow.game_id)
            .where(TournamentTable.tournament_id == tid, GameRow.status == "running", SeatRow.user_id == user_id,
                   SeatRow.kind == "player")
        ).all()
        out = []
        for gid, seat, to_move in rows:
            values: dict[str, Any] = {"seats_rev": GameRow.seats_rev + 1}
            if to_move == seat:
                values["deadline"] = None
            conn.execute(update(GameRow).where(GameRow.id == gid).values(**values))
            conn.execute(update(SeatRow).where(SeatRow.game_id == gid, SeatRow.seat == seat, SeatRow.kind == "player")
                         .values(kind="bot", bot=TAKEOVER_BOT, left_as="resigned"))
            out.append((gid, seat))
        return out

    def _seats_changed(self, game_id: int, left: int | None) -> None:
        self.games.info_cache.pop(game_id, None)
        self.states.drop(game_id)
        info = self.games.game(game_id)
        self.listeners.notify(GameEvent(game_id, info.seq, info.to_move, info.status, info.is_bot_seat(info.to_move),
                                        left, info.seats_rev))

    # ------------------------------------------------------------------ the organiser
    def _organiser_change(self, tid: int, organiser: UserInfo, states: Sequence[str], values: dict[str, Any],
                          ended: bool = False) -> None:
        with self.db.engine.begin() as conn:
            t = self._claim(conn, tid, states)
            if t.organiser_id != organiser.id:
                raise Forbidden("only the organiser can do that", code_key="tournament_not_organiser")
            conn.execute(update(TournamentRow).where(TournamentRow.id == tid).values(**values))
            if ended:
                self._tell_entrants(conn, tid, "tournament_ended", {"tournament": tid, "cancelled": True})

    def pause(self, tid: int, organiser: UserInfo) -> None:
        """No new round starts until resumed; the games already running go on (their clocks too)."""
        self._organiser_change(tid, organiser, ("running",), {"state": "paused"})

    def resume(self, tid: int, organiser: UserInfo) -> None:
        self._organiser_change(tid, organiser, ("paused",), {"state": "running"})

    def cancel(self, tid: int, organiser: UserInfo, now: datetime | None = None) -> None:
        """Call the tournament off: no more rounds; games already running finish as ordinary (rated) games."""
        self._organiser_change(tid, organiser, ("open", "running", "paused"),
                               {"state": "cancelled", "finished_at": now or utcnow()}, ended=True)

    @staticmethod
    def _tell_entrants(conn: Connection, tid: int, kind: str, payload: dict[str, Any]) -> None:
        users = conn.execute(select(TournamentEntrant.user_id).where(
            TournamentEntrant.tournament_id == tid, TournamentEntrant.status == "entered")).scalars().all()
        for uid in users:
            queue_notice(conn, uid, kind, payload)

    # ------------------------------------------------------------------ results
    def _history(self, conn: Connection, tid: int) -> tuple[list[Entrant], list[PastGame], dict[int, int]]:
        """Entrants, the games of every round so far (ended ones with places), and the byes so far."""
        entrants = [Entrant(r.id, float(r.rating), r.status != "entered") for r in conn.execute(
            select(TournamentEntrant.id, TournamentEntrant.rating, TournamentEntrant.status)
            .where(TournamentEntrant.tournament_id == tid, TournamentEntrant.status != "invited")
            .order_by(TournamentEntrant.id))]
        tables = conn.execute(
            select(TournamentTable.game_id, TournamentTable.seats_json, TournamentRound.round_no, GameRow.status,
                   GameRow.result_json)
            .join(TournamentRound, TournamentRound.id == TournamentTable.round_id)
            .join(GameRow, GameRow.id == TournamentTable.game_id)
            .where(TournamentTable.tournament_id == tid).order_by(TournamentRound.round_no, TournamentTable.table_no)
        ).all()
        places: dict[int, dict[int, int | None]] = {}
        if tables:
            for gid, seat, place in conn.execute(select(SeatRow.game_id, SeatRow.seat, SeatRow.place).where(
                    SeatRow.game_id.in_([t.game_id for t in tables]))):
                places.setdefault(gid, {})[seat] = place
        history = []
        for t in tables:
            if t.status not in ENDED:
                continue
            seats = tuple(json.loads(t.seats_json))
            got = places.get(t.game_id, {})
            if t.status == "finished":
                table_places = tuple(got.get(i) or len(seats) for i in range(len(seats)))
            else:  # abandoned or ended by an operator: nobody won, everyone placed last
                table_places = tuple(len(seats) for _ in seats)
            scores: tuple[float, ...] = ()
            if t.status == "finished" and t.result_json:
                by_seat = {r.get("seat"): r.get("score") for r in json.loads(t.result_json) if isinstance(r, dict)}
                if all(isinstance(by_seat.get(i), int | float) for i in range(len(seats))):
                    scores = tuple(float(by_seat[i] or 0) for i in range(len(seats)))
            history.append(PastGame(t.round_no, seats, table_places, scores))
        byes: dict[int, int] = {}
        for (eid,) in conn.execute(select(TournamentBye.entrant_id).join(
                TournamentRound, TournamentRound.id == TournamentBye.round_id)
                .where(TournamentRound.tournament_id == tid)):
            byes[eid] = byes.get(eid, 0) + 1
        return entrants, history, byes

    def standings(self, tid: int) -> list[dict[str, Any]]:
        """The standings, best first: rank, name, points, tie-breaks, games and byes."""
        t = self.get(tid)
        with self.db.engine.begin() as conn:
            entrants, history, byes = self._history(conn, tid)
        names = {e.id: e.name for e in self.entrants(tid)}
        rows: list[StandingRow] = site_standings(entrants, history, byes, t.table_size)
        return [{"rank": r.rank, "entrant": r.entrant, "name": names.get(r.entrant, "?"), "points": r.points,
                 "tiebreaks": r.tiebreaks, "games": r.games, "byes": r.byes, "withdrawn": r.withdrawn}
                for r in rows]

    def pairings(self, tid: int) -> list[dict[str, Any]]:
        """Every round started so far: its tables (names in seat order, the game, its status and places) and byes."""
        self.get(tid)
        names = {e.id: e.name for e in self.entrants(tid)}
        with self.db.engine.begin() as conn:
            rounds = conn.execute(select(TournamentRound.id, TournamentRound.round_no, TournamentRound.started_at,
                                         TournamentRound.ended_at)
                                  .where(TournamentRound.tournament_id == tid).order_by(TournamentRound.round_no)).all()
            tables = conn.execute(
                select(TournamentTable.round_id, TournamentTable.table_no, TournamentTable.game_id,
                       TournamentTable.seats_json, GameRow.status)
                .join(GameRow, GameRow.id == TournamentTable.game_id)
                .where(TournamentTable.tournament_id == tid).order_by(TournamentTable.table_no)).all()
            places: dict[int, dict[int, int | None]] = {}
            if tables:
                for gid, seat, place in conn.execute(select(SeatRow.game_id, SeatRow.seat, SeatRow.place).where(
                        SeatRow.game_id.in_([t.game_id for t in tables]))):
                    places.setdefault(gid, {})[seat] = place
            byes = conn.execute(select(TournamentBye.round_id, TournamentBye.entrant_id)
                                .join(TournamentRound, TournamentRound.id == TournamentBye.round_id)
                                .where(TournamentRound.tournament_id == tid)).all()
        out = []
        for r in rounds:
            out.append({
                "round": r.round_no,
                "started_at": (aware(r.started_at) or r.started_at).isoformat(),
                "ended_at": aware(r.ended_at).isoformat() if r.ended_at is not None else None,  # type: ignore[union-attr]
                "tables": [{
                    "table": t.table_no, "game_id": t.game_id, "status": t.status,
                    "seats": [{"seat": i, "entrant": e, "name": names.get(e, "?"),
                               "place": places.get(t.game_id, {}).get(i) if t.status == "finished" else None}
                              for i, e in enumerate(json.loads(t.seats_json))],
                } for t in tables if t.round_id == r.id],
                "byes": [names.get(b.entrant_id, "?") for b in byes if b.round_id == r.id],
            })
        return out

    # ------------------------------------------------------------------ the round job
    def run_due(self, now: datetime | None = None, limit: int = 20) -> int:
        """Start, advance or end every tournament that is due; how many changed.  Called by the round job
        in any number of processes at once: each change happens once (see the module's docstring)."""
        now = now or utcnow()
        full = (select(func.count()).select_from(TournamentEntrant)
                .where(TournamentEntrant.tournament_id == TournamentRow.id, TournamentEntrant.status == "entered")
                .scalar_subquery() >= TournamentRow.max_entrants)
        with self.db.engine.begin() as conn:
            opening = conn.execute(select(TournamentRow.id).where(
                TournamentRow.state == "open",
                ((TournamentRow.start_rule == "full") & full) | (TournamentRow.starts_at <= now)
                | (TournamentRow.entry_closes <= now)).order_by(TournamentRow.id).limit(limit)).scalars().all()
            busy = (select(TournamentTable.id)
                    .join(TournamentRound, TournamentRound.id == TournamentTable.round_id)
                    .join(GameRow, GameRow.id == TournamentTable.game_id)
                    .where(TournamentTable.tournament_id == TournamentRow.id,
                           TournamentRound.round_no == TournamentRow.current_round,
                           GameRow.status.not_in(ENDED)))
            running = conn.execute(select(TournamentRow.id).where(
                TournamentRow.state == "running", ~busy.exists()).order_by(TournamentRow.id).limit(limit)
            ).scalars().all()
        done = 0
        for tid in [*opening, *running]:
            try:
                done += self.advance(tid, now)
            except (Conflict, NotFound):
                continue  # another process got there first, or it was cancelled meanwhile
        return done

    def advance(self, tid: int, now: datetime | None = None) -> int:
        """Do what is due for one tournament: start it, start its next round, or end it (1), or nothing (0)."""
        now = now or utcnow()
        if not self._schedule_due(tid, now):
            return 0  # read first, without a claim: a waiting schedule costs no write per pass
        started: list[tuple[int, Tracked, int]] = []
        with self.db.engine.begin() as conn:
            t = self._claim(conn, tid, ("open", "running"))
            n = t.current_round
            if t.state == "open":
                entered = conn.execute(select(func.count()).select_from(TournamentEntrant).where(
                    TournamentEntrant.tournament_id == tid, TournamentEntrant.status == "entered")).scalar_one()
                starts, closes = aware(t.starts_at), aware(t.entry_closes)
                due = (t.start_rule == "full" and entered >= t.max_entrants) or (
                    starts is not None and starts <= now) or (closes is not None and closes <= now)
                if not due:
                    return 0
                if entered < t.min_entrants:
                    conn.execute(update(TournamentRow).where(TournamentRow.id == tid).values(
                        state="cancelled", finished_at=now))
                    self._tell_entrants(conn, tid, "tournament_ended",
                                        {"tournament": tid, "cancelled": True, "too_few": True})
                    return 1
                values: dict[str, Any] = {"state": "running", "started_at": now}
                if t.format in ROUNDS_FROM_FIELD:
                    field = [e.id for e in self._pairing_field(conn, tid) if not e.withdrawn]
                    try:
                        values["rounds"] = rounds_for(t.format, field, t.table_size, t.seed)
                    except ValueError:  # a knock-out field without a full final table: called off
                        conn.execute(update(TournamentRow).where(TournamentRow.id == tid).values(
                            state="cancelled", finished_at=now))
                        self._tell_entrants(conn, tid, "tournament_ended",
                                            {"tournament": tid, "cancelled": True, "no_final": True})
                        return 1
                conn.execute(update(TournamentRow).where(TournamentRow.id == tid).values(**values))
                t = self._claim(conn, tid, ("running",))
            else:
                busy = conn.execute(select(func.count()).select_from(TournamentTable)
                                    .join(TournamentRound, TournamentRound.id == TournamentTable.round_id)
                                    .join(GameRow, GameRow.id == TournamentTable.game_id)
                                    .where(TournamentTable.tournament_id == tid, TournamentRound.round_no == n,
                                           GameRow.status.not_in(ENDED))).scalar_one()
                if busy:
                    return 0
                conn.execute(update(TournamentRound).where(TournamentRound.tournament_id == tid,
                                                           TournamentRound.round_no == n,
                                                           TournamentRound.ended_at.is_(None)).values(ended_at=now))
                if t.round_days is not None and n >= 1:
                    last = conn.execute(select(TournamentRound.started_at).where(
                        TournamentRound.tournament_id == tid, TournamentRound.round_no == n)).scalar()
                    if last is not None and (aware(last) or now) + timedelta(days=t.round_days) > now:
                        return 0
            pairing = pairing_of(t.format)
            _, history, byes = self._history(conn, tid)
            entrants = self._pairing_field(conn, tid)
            planned: Round | None = None
            if n < t.rounds and pairing is not None:
                planned = pairing(entrants, history, byes, t.table_size, n + 1, t.seed)
            if planned is None or not planned.tables:
                conn.execute(update(TournamentRow).where(TournamentRow.id == tid, TournamentRow.current_round == n)
                             .values(state="finished", finished_at=now))
                self._tell_entrants(conn, tid, "tournament_ended", {"tournament": tid})
                return 1
            claimed = conn.execute(update(TournamentRow).where(TournamentRow.id == tid,
                                                               TournamentRow.current_round == n)
                                   .values(current_round=n + 1)).rowcount
            if claimed != 1:  # pragma: no cover - the claim above holds the row
                return 0
            started = self._write_round(conn, t, n + 1, planned, now)
            if self.before_round_commit is not None:
                self.before_round_commit(tid, n + 1)
        for gid, tracked, seq in started:
            self.states.put(gid, tracked)
            to_move = tracked.state.current_player()
            info = self.games.game(gid)
            self.listeners.notify(GameEvent(gid, seq, to_move, info.status, info.is_bot_seat(to_move)))
        return 1

    @staticmethod
    def _pairing_field(conn: Connection, tid: int) -> list[Entrant]:
        """The entrants a pairing sees: everyone who was in at the start (those who left later marked
        withdrawn, so a round robin's schedule stays the same); who left before the start never played."""
        return [Entrant(r.id, float(r.rating), r.status != "entered") for r in conn.execute(
            select(TournamentEntrant.id, TournamentEntrant.rating, TournamentEntrant.status)
            .where(TournamentEntrant.tournament_id == tid, TournamentEntrant.status != "invited",
                   (TournamentEntrant.status == "entered") | (TournamentEntrant.left_round > 0))
            .order_by(TournamentEntrant.id))]

    def _schedule_due(self, tid: int, now: datetime) -> bool:
        """False while a tournament on a fixed schedule waits for its next round's time (checked again,
        under the claim, by `advance`)."""
        with self.db.engine.begin() as conn:
            row = conn.execute(select(TournamentRow.round_days, TournamentRow.current_round, TournamentRow.state)
                               .where(TournamentRow.id == tid)).first()
            if row is None or row.round_days is None or row.state != "running" or row.current_round < 1:
                return True
            last = conn.execute(select(TournamentRound.started_at).where(
                TournamentRound.tournament_id == tid, TournamentRound.round_no == row.current_round)).scalar()
        return last is None or (aware(last) or now) + timedelta(days=row.round_days) <= now

    def _write_round(self, conn: Connection, t: Any, round_no: int, planned: Round,
                     now: datetime) -> list[tuple[int, Tracked, int]]:
        """Inside the round start's transaction: the round, a game per table, the byes and the notices."""
        rid = conn.execute(insert(TournamentRound).values(tournament_id=t.id, round_no=round_no, started_at=now)
                           .returning(TournamentRound.id)).scalar_one()
        users = dict(conn.execute(select(TournamentEntrant.id, TournamentEntrant.user_id)
                                  .where(TournamentEntrant.tournament_id == t.id)).all())
        names = dict(conn.execute(select(User.id, User.name).where(User.id.in_(list(users.values())))).all())
        share_users(conn, [*users.values(), t.organiser_id])
        game = eng.load(t.game)
        opts = json.loads(t.options_json)
        tc = TimeControl.from_json(json.loads(t.clock_json))
        started = []
        for no, table in enumerate(planned.tables, start=1):
            seat_users = [users[e] for e in table.seats]
            state = game.new_state(len(seat_users), opts)
            tracked = Tracked(state, [names.get(u, "?") for u in seat_users])
            actions = resolve_chance(tracked)
            gid = conn.execute(insert(GameRow).values(
                game=game.id, rules_version=game.rules_version, num_players=len(seat_users),
                options_json=t.options_json, status="running", creator_id=seat_users[0], created_at=now,
                started_at=now, seq=len(actions), to_move=state.current_player(), turn_since=now,
                clock_json=t.clock_json,
            ).returning(GameRow.id)).scalar_one()
            bank = tc.start_days * DAY if tc.kind == "bank" else None
            conn.execute(insert(SeatRow), [
                {"game_id": gid, "seat": i, "kind": "player", "user_id": u, "bot": None, "bank_seconds": bank}
                for i, u in enumerate(seat_users)])
            first = state.current_player()
            if 0 <= first < len(seat_users):
                seconds = tc.move_days * DAY if tc.kind == "move" else float(bank or 0)
                deadline = paused_deadline(now, seconds, absences(conn, seat_users[first], now))
                conn.execute(update(GameRow).where(GameRow.id == gid).values(deadline=deadline))
            self.db.insert_actions(conn, gid, 0, actions, now)
            self.db.finish_if_over(conn, gid, state, now)
            conn.execute(insert(TournamentTable).values(round_id=rid, tournament_id=t.id, table_no=no, game_id=gid,
                                                        seats_json=json.dumps(list(table.seats))))
            first = state.current_player()
            if 0 <= first < len(seat_users):
                queue_notice(conn, seat_users[first], "turn", {"by": None}, game_id=gid, seq=len(actions), now=now)
            for u in seat_users:
                queue_notice(conn, u, "tournament_round", {"tournament": t.id, "round": round_no, "game": gid},
                             now=now)
            started.append((gid, tracked, len(actions)))
        if planned.byes:
            conn.execute(insert(TournamentBye), [{"round_id": rid, "entrant_id": e} for e in planned.byes])
            for e in planned.byes:
                queue_notice(conn, users[e], "tournament_round", {"tournament": t.id, "round": round_no, "bye": True},
                             now=now)
        return started
