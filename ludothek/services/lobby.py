"""The lobby: creating games, joining, leaving, cancelling, starting, and listing games."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, delete, func, insert, or_, select, update

from ludothek import engine as eng
from ludothek.botlevels import BOT_NAMES
from ludothek.engine import InvalidOptions
from ludothek.storage.blocks import (
    block_partners,
    lock_users,
    refuse_blocked_invitations,
    refuse_blocked_seat,
    share_users,
)
from ludothek.storage.database import Database
from ludothek.storage.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    TooManyAttempts,
)
from ludothek.storage.games import Games
from ludothek.storage.info import GameEvent, GameInfo, UserInfo, seat_label
from ludothek.storage.models import GameRow, SeatRow, User, utcnow
from ludothek.storage.outbox import queue_mail
from ludothek.storage.timecontrol import (
    DAY,
    TimeControl,
    absences,
    clock_json_of,
    parse_time_control,
    paused_deadline,
)

from .accounts import Accounts
from .runtime import GameLocks, Listeners, StateCache
from .tracked import CHANCE_RNG, Tracked, resolve_chance

SEAT_KINDS = ("me", "open", "invite", "bot")
#: The bots a seat may have.  The new-game form offers the three strengths; ``random`` stays for the API
#: (benchmarks, tests).  `hard` thinks about 2 s per decision, in the bot worker processes
#: (`ludothek.workers.bots`), never in a server, so its thinking slows nobody's move.
PORTAL_BOTS = BOT_NAMES
#: The strengths a player chooses between in the new-game form, and the one chosen unless they pick another.
BOT_LEVELS = ("easy", "medium", "hard")
DEFAULT_FORM_BOT = "medium"


class Lobby:
    """Games before they start, and the lists players find them in."""

    def __init__(self, db: Database, games: Games, states: StateCache, locks: GameLocks, listeners: Listeners,
                 accounts: Accounts) -> None:
        self.db = db
        self.games = games
        self.states = states
        self.locks = locks
        self.listeners = listeners
        self.accounts = accounts
        #: Games one user may have waiting for players at once (more: refused with 429).
        self.max_open_games = 10
        #: How many waiting games of one creator the open-games list shows, so that nobody can push
        #: everyone else's invitations out of it.
        self.lobby_per_creator = 3
        #: Told the id of each game created with named invitations (after its commit): the bot stream wakes
        #: invited bot accounts (issue 33).
        self.created_listeners: list[Callable[[int], None]] = []

    # ------------------------------------------------------------------ lobby
    def create_game(
        self,
        creator: UserInfo,
        game_id: str,
        num_players: int,
        options: dict[str, Any] | None,
        seats: Sequence[dict[str, Any]] | None = None,
        time_control: Any = None,
    ) -> int:
        """Create a game; ``seats`` lists ``{"kind": "me"|"open"|"invite"|"bot", "user": name}``.

        Without ``seats``: the creator plus open invitations.  The game starts
        at once when no seat is left to fill (e.g. against bots only).
        """
        try:
            game = eng.load(game_id)
        except KeyError:
            raise NotFound(f"unknown game {game_id!r}; known games: {', '.join(eng.games())}") from None
        try:
            opts = game.validate_options(num_players, options or {})
        except InvalidOptions as exc:
            # The API keeps the message (option syntax included); pages word the reason (err_options_*).
            raise BadRequest(str(exc), code_key=f"options_{exc.reason}", **exc.params) from None
        clock = clock_json_of(parse_time_control(time_control))
        spec = list(seats) if seats is not None else [{"kind": "me"}] + [{"kind": "open"}] * (num_players - 1)
        if len(spec) != num_players:
            raise BadRequest(f"give exactly {num_players} seats, not {len(spec)}")
        rows: list[dict[str, Any]] = []
        me_count = 0
        invited: set[int] = set()
        for i, s in enumerate(spec):
            kind = s.get("kind") if isinstance(s, dict) else None
            if kind not in SEAT_KINDS:
                raise BadRequest(f"seat {i + 1}: kind must be one of {', '.join(SEAT_KINDS)}")
            if kind == "me":
                me_count += 1
                rows.append({"seat": i, "kind": "player", "user_id": creator.id, "bot": None})
            elif kind == "open":
                rows.append({"seat": i, "kind": "open", "user_id": None, "bot": None})
            elif kind == "bot":
                bot = str(s.get("bot") or "random")
                if bot not in PORTAL_BOTS:
                    raise BadRequest(f"seat {i + 1}: the bots offered here are {', '.join(PORTAL_BOTS)}",
                                     code_key="bad_bot")
                rows.append({"seat": i, "kind": "bot", "user_id": None, "bot": bot})
            else:
                other = self.accounts.user_by_name(str(s.get("user") or ""))
                if other is None:
                    raise NotFound(f"seat {i + 1}: no user called {s.get('user')!r}", code_key="no_user")
                if other.id == creator.id or other.id in invited:
                    raise BadRequest(f"seat {i + 1}: {other.name} already has a seat")
                invited.add(other.id)
                rows.append({"seat": i, "kind": "invited", "user_id": other.id, "bot": None})
        if me_count != 1:
            raise BadRequest("the creator takes exactly one seat ('me')")
        with self.db.engine.begin() as conn:
            waiting = conn.execute(
                select(func.count()).select_from(GameRow)
                .where(GameRow.creator_id == creator.id, GameRow.status == "open")
            ).scalar_one()
        if waiting >= self.max_open_games:
            raise TooManyAttempts(
                f"you already have {waiting} games waiting for players; cancel one or wait until one starts",
                retry_after=60,
            )
        with self.db.engine.begin() as conn:
            if invited:
                # Blocks are checked under the users' row locks, which `Social.block` takes too.
                lock_users(conn, [creator.id, *invited])
                refuse_blocked_invitations(conn, creator.id, invited)
            gid = conn.execute(
                insert(GameRow).values(
                    game=game.id, rules_version=game.rules_version, num_players=num_players,
                    options_json=json.dumps(opts, sort_keys=True), status="open", creator_id=creator.id,
                    created_at=utcnow(), seq=0, to_move=-2, turn_since=None, clock_json=clock,
                ).returning(GameRow.id)
            ).scalar_one()
            conn.execute(insert(SeatRow), [dict(r, game_id=gid) for r in rows])
            for uid in invited:
                queue_mail(conn, uid, "invite", {"by": creator.id}, game_id=gid)
        for listener in list(self.created_listeners) if invited else ():
            listener(gid)
        self._maybe_start(gid)
        return gid

    # Every change to a waiting game runs in one transaction that first claims the game row with a
    # conditional update (``... WHERE id = ? AND status = 'open'``).  On PostgreSQL that takes the row
    # lock, on SQLite the database's write lock, so two server processes can never interleave a join,
    # a leave, a cancel and the start of the same game; a change whose game is no longer open changes
    # nothing.  The per-process lock only spares the database some of that contention.
    @contextmanager
    def _open_game(self, game_id: int, *, creator_id: int | None = None) -> Iterator[Connection]:
        """A transaction holding the claim on the open game ``game_id``; refusals are raised before anything changes."""
        with self.locks.get(game_id), self.db.engine.begin() as conn:
            claim = update(GameRow).where(GameRow.id == game_id, GameRow.status == "open")
            if creator_id is not None:
                claim = claim.where(GameRow.creator_id == creator_id)
            if conn.execute(claim.values(status="open")).rowcount != 1:
                row = conn.execute(select(GameRow.status, GameRow.creator_id).where(GameRow.id == game_id)).first()
                if row is None:
                    raise NotFound(f"there is no game {game_id}", code_key="no_game")
                if row.status != "open":
                    raise Conflict("this game has already started or is over", code_key="not_open")
                raise Forbidden("only the creator can cancel this game", code_key="not_creator")
            yield conn

    @staticmethod
    def _creator(conn: Connection, game_id: int) -> int | None:
        return conn.execute(select(GameRow.creator_id).where(GameRow.id == game_id)).scalar()

    @staticmethod
    def _seat_rows(conn: Connection, game_id: int) -> list[Any]:
        return list(
            conn.execute(
                select(SeatRow.seat, SeatRow.kind, SeatRow.user_id, SeatRow.bot)
                .where(SeatRow.game_id == game_id)
                .order_by(SeatRow.seat)
            )
        )

    def join(self, game_id: int, user: UserInfo) -> GameInfo:
        """Take an open seat or accept a named invitation; starts the game when it is full."""
        with self._open_game(game_id) as conn:
            seats = self._seat_rows(conn, game_id)
            if any(s.kind == "player" and s.user_id == user.id for s in seats):
                raise Conflict("you already have a seat in this game", code_key="already_seated")
            # Before this join and the start it may bring write rows that refer to these users: in id order.
            share_users(conn, [user.id, self._creator(conn, game_id), *(s.user_id for s in seats)])
            # Under the game's claim, which `Social.block` takes too: a block committed first is seen here.
            refuse_blocked_seat(conn, user.id, [s.user_id for s in seats if s.kind == "player"])
            mine = [s for s in seats if s.kind == "invited" and s.user_id == user.id]
            free = mine or [s for s in seats if s.kind == "open"]
            if not free:
                raise Conflict("no seat is free for you in this game", code_key="full")
            res = conn.execute(
                update(SeatRow)
                .where(SeatRow.game_id == game_id, SeatRow.seat == free[0].seat, SeatRow.kind == free[0].kind)
                .values(kind="player", user_id=user.id)
            )
            if res.rowcount != 1:  # pragma: no cover - the claim above excludes it
                raise Conflict("someone else took that seat just now; try again")
            started = self._start_if_full(conn, game_id)
        self.after_change(game_id, started)
        return self.games.game(game_id)

    def leave(self, game_id: int, user: UserInfo) -> None:
        """Give back a seat (or decline an invitation) before the game starts; the creator cancels instead."""
        with self._open_game(game_id) as conn:
            creator = self._creator(conn, game_id)
            if creator == user.id:
                raise Conflict("you created this game: cancel it instead", code_key="creator_leaves")
            invited = conn.execute(
                select(SeatRow.seat).where(SeatRow.game_id == game_id, SeatRow.user_id == user.id,
                                           SeatRow.kind == "invited")
            ).first()
            res = conn.execute(
                update(SeatRow)
                .where(SeatRow.game_id == game_id, SeatRow.user_id == user.id,
                       SeatRow.kind.in_(("player", "invited")))
                .values(kind="open", user_id=None)
            )
            if res.rowcount != 1:
                raise Forbidden("you have no seat in this game", code_key="not_seated")
            if invited is not None and creator is not None:
                # The named seat is open now: the inviter hears of it (issue 30), with the change.
                queue_mail(conn, creator, "invite_declined", {"by": user.id, "seat": invited.seat}, game_id=game_id)
        self.after_change(game_id, None)

    def cancel(self, game_id: int, user: UserInfo) -> None:
        """Call off a game that has not started; only its creator may."""
        with self._open_game(game_id, creator_id=user.id) as conn:
            conn.execute(
                update(GameRow).where(GameRow.id == game_id, GameRow.status == "open").values(status="cancelled")
            )
        self.games.info_cache.pop(game_id, None)
        self.listeners.notify(GameEvent(game_id, 0, -2, "cancelled"))

    def _maybe_start(self, game_id: int) -> None:
        """Start the game if no seat is left to fill (a new game against bots only)."""
        try:
            with self._open_game(game_id) as conn:
                share_users(conn, [self._creator(conn, game_id), *(s.user_id for s in self._seat_rows(conn, game_id))])
                started = self._start_if_full(conn, game_id)
        except (Conflict, NotFound):
            return
        self.after_change(game_id, started)

    def _start_if_full(self, conn: Connection, game_id: int) -> tuple[Tracked, int] | None:
        """Inside a claimed transaction: start a full game, seats shuffled so the first player is drawn at random."""
        seats = self._seat_rows(conn, game_id)
        if any(s.kind in ("open", "invited") for s in seats):
            return None
        row = conn.execute(
            select(GameRow.game, GameRow.num_players, GameRow.options_json, GameRow.clock_json)
            .where(GameRow.id == game_id)
        ).one()
        occupants = [(s.kind, s.user_id, s.bot) for s in seats]
        CHANCE_RNG.shuffle(occupants)
        state = eng.load(row.game).new_state(row.num_players, json.loads(row.options_json))
        tracked = Tracked(state, self._names_after_shuffle(conn, occupants))
        actions = resolve_chance(tracked)
        now = utcnow()
        conn.execute(
            update(GameRow)
            .where(GameRow.id == game_id, GameRow.status == "open")
            .values(status="running", started_at=now, seq=len(actions), to_move=state.current_player(),
                    turn_since=now)
        )
        conn.execute(delete(SeatRow).where(SeatRow.game_id == game_id))
        tc = TimeControl.from_json(json.loads(row.clock_json)) if row.clock_json else None
        bank = tc.start_days * DAY if tc is not None and tc.kind == "bank" else None
        conn.execute(
            insert(SeatRow),
            [{"game_id": game_id, "seat": i, "kind": k, "user_id": u, "bot": b, "bank_seconds": bank}
             for i, (k, u, b) in enumerate(occupants)],
        )
        first = state.current_player()
        if tc is not None and 0 <= first < len(occupants) and occupants[first][0] == "player":
            seconds = tc.move_days * DAY if tc.kind == "move" else float(bank or 0)
            deadline = paused_deadline(now, seconds, absences(conn, occupants[first][1], now))
            conn.execute(update(GameRow).where(GameRow.id == game_id).values(deadline=deadline))
        self.db.insert_actions(conn, game_id, 0, actions, now)
        self.db.finish_if_over(conn, game_id, state, now)
        first = state.current_player()
        first_user = occupants[first][1] if 0 <= first < len(occupants) else None
        if first_user is not None and occupants[first][0] == "player":  # "your turn", in the same transaction
            queue_mail(conn, first_user, "turn", {"by": None}, game_id=game_id, seq=len(actions))
        return tracked, len(actions)

    @staticmethod
    def _names_after_shuffle(conn: Connection, occupants: Sequence[tuple[str, int | None, str | None]]) -> list[str]:
        """How the games' texts name each seat once the occupants sit where the shuffle put them."""
        ids = [u for _, u, _ in occupants if u is not None]
        users = dict(conn.execute(select(User.id, User.name).where(User.id.in_(ids))).all()) if ids else {}
        return [seat_label(k, i, users.get(u) if u is not None else None) or "?" for i, (k, u, _) in enumerate(occupants)]

    def after_change(self, game_id: int, started: tuple[Tracked, int] | None) -> None:
        """After the commit: forget the cached summary, and announce a game that started."""
        self.games.info_cache.pop(game_id, None)
        if started is None:
            return
        tracked, seq = started
        self.states.put(game_id, tracked)
        info = self.games.game(game_id)
        to_move = tracked.state.current_player()
        self.listeners.notify(GameEvent(game_id, seq, to_move, info.status, info.is_bot_seat(to_move)))

    def open_games(self, user: UserInfo | None = None, limit: int = 200) -> list[GameInfo]:
        """Games waiting for players: with an open seat, or with an invitation for ``user``.

        Newest first, but at most `lobby_per_creator` open invitations of any one
        creator, so a flood from one user cannot push everyone else's out of the
        list; the user's own games and invitations addressed to them always show.
        """
        me = user.id if user else -1
        waiting = select(SeatRow.game_id).where(or_(SeatRow.kind == "open", SeatRow.user_id == me))
        invited = select(SeatRow.game_id).where(SeatRow.user_id == me, SeatRow.kind == "invited")
        where = (GameRow.status == "open") & GameRow.id.in_(waiting)
        if user is not None:  # nor the games of someone with a block between us (either way)
            where &= or_(GameRow.creator_id.is_(None), GameRow.creator_id.not_in(block_partners(user.id)))
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(GameRow.id, GameRow.creator_id, GameRow.id.in_(invited).label("for_me"))
                .where(where)
                .order_by(GameRow.created_at.desc(), GameRow.id.desc())
                .limit(limit * 20)
            ).all()
        shown: list[int] = []
        per_creator: dict[int | None, int] = {}
        for gid, creator, for_me in rows:
            if not for_me and creator != me:
                per_creator[creator] = per_creator.get(creator, 0) + 1
                if per_creator[creator] > self.lobby_per_creator:
                    continue
            shown.append(gid)
            if len(shown) >= limit:
                break
        return self.games.infos(shown)  # two queries for the whole list, not two per game

    def user_games(self, user_id: int, statuses: Sequence[str] = ("open", "running", "finished")) -> list[GameInfo]:
        mine = select(SeatRow.game_id).where(SeatRow.user_id == user_id)
        games = self.games.query(GameRow.status.in_(list(statuses)) & GameRow.id.in_(mine), (GameRow.id.desc(),), 500)
        return games

    def my_games(self, user_id: int) -> dict[str, list[GameInfo]]:
        """Running games (mine to move first, longest waiting first), open and finished ones."""
        games = self.user_games(user_id)
        running = [g for g in games if g.status == "running"]
        far = datetime.max.replace(tzinfo=UTC)

        def order(g: GameInfo) -> tuple[int, datetime]:
            my_turn = g.seat_of(user_id) == g.to_move
            return (0 if my_turn else 1, g.turn_since or far)

        running.sort(key=order)
        return {
            "running": running,
            "open": [g for g in games if g.status == "open"],
            "finished": [g for g in games if g.status == "finished"],
        }

    def next_waiting(self, user_id: int) -> int | None:
        """The game where it is this user's turn that has waited longest."""
        with self.db.engine.begin() as conn:
            return conn.execute(
                select(GameRow.id)
                .join(SeatRow, (SeatRow.game_id == GameRow.id) & (SeatRow.seat == GameRow.to_move))
                .where(GameRow.status == "running", SeatRow.user_id == user_id, SeatRow.kind == "player")
                .order_by(GameRow.turn_since.asc(), GameRow.id.asc())
                .limit(1)
            ).scalar()

    def count_games(self) -> dict[str, int]:
        with self.db.engine.begin() as conn:
            rows = conn.execute(select(GameRow.status, func.count()).group_by(GameRow.status)).all()
        return {status: n for status, n in rows}

    def recent_games(self, kind: str, limit: int = 10) -> list[GameInfo]:
        """The newest running games of ``kind`` (open ones are in the lobby already, finished ones in
        `Profiles.finished_games_of_kind`: the game kind page lists each game once)."""
        with self.db.engine.begin() as conn:
            ids = conn.execute(
                select(GameRow.id)
                .where(GameRow.game == kind, GameRow.status == "running")
                .order_by(GameRow.created_at.desc(), GameRow.id.desc())
                .limit(max(1, min(limit, 50)))
            ).scalars().all()
        return [self.games.game(gid) for gid in ids]
