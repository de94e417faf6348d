"""Bot accounts (issue 33, "Bot API"): users that are programs, run by a person.

A person (not a guest, not a bot) registers a bot account by name; the bot has no password, its
owner makes API tokens for it, and it plays like anybody through the JSON API and the one move path
(`Play.submit`).  People invite it by name (the lobby's named invitations: a *challenge*), and it
accepts or declines them here.  `snapshot` is what the event stream (`ludothek.portal.routes.botapi`)
compares before and after each live message, so a bot hears of challenges, starts, turns and ends
without polling.  Rulings: ``docs/research.md``, "Bot API".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ludothek.storage.database import Database
from ludothek.storage.errors import Conflict, Forbidden, NotFound, TooManyAttempts
from ludothek.storage.info import UserInfo, aware
from ludothek.storage.models import BotAccount, BotRating, GameRow, SeatRow, User, utcnow
from ludothek.storage.rating_update import LEADERBOARD_MIN_GAMES

from .accounts import Accounts, check_name
from .lobby import Lobby
from .sessions import Sessions

#: Bot accounts one person may run.
MAX_BOTS_PER_OWNER = 5


@dataclass(frozen=True)
class BotInfo:
    id: int
    name: str
    owner: str
    rated_with_people: bool
    created_at: datetime


@dataclass(frozen=True)
class Challenge:
    """A named invitation of a bot account to a game that waits for players."""

    id: int  # the game's id: one invitation per user and game
    game: str
    players: int
    options: dict[str, Any]
    by: str | None
    created_at: datetime


@dataclass(frozen=True)
class RunningGame:
    id: int
    game: str
    seq: int
    seat: int
    my_turn: bool


@dataclass(frozen=True)
class EndedGame:
    """A game the stream knew that no longer runs or invites (its status now, and the bot's place)."""

    id: int
    game: str
    status: str
    place: int | None
    #: The bot holds a seat in it (accepted and waiting for players, or played it).
    seated: bool


@dataclass
class Snapshot:
    """What a bot's stream compares: its open challenges, running games, and games that ended."""

    challenges: dict[int, Challenge] = field(default_factory=dict)
    running: dict[int, RunningGame] = field(default_factory=dict)
    ended: dict[int, EndedGame] = field(default_factory=dict)


@dataclass(frozen=True)
class BotBoardRow:
    rank: int
    name: str
    owner: str
    conservative: float
    games: int
    wins: int


class BotAccounts:
    """Registering bot accounts, their tokens and settings, challenges, and the bot leaderboard."""

    def __init__(self, db: Database, accounts: Accounts, sessions: Sessions, lobby: Lobby) -> None:
        self.db = db
        self.accounts = accounts
        self.sessions = sessions
        self.lobby = lobby
        self.max_per_owner = MAX_BOTS_PER_OWNER

    # ------------------------------------------------------------------ accounts
    def register(self, owner: UserInfo, name: str, rated_with_people: bool = False) -> BotInfo:
        """A new bot account run by ``owner``; its turns are handed on at once (no confirmation wait)."""
        if owner.is_guest:
            raise Forbidden("guests cannot run bot accounts; register first", code_key="bot_guest_owner")
        if self.is_bot(owner.id):
            raise Forbidden("a bot account cannot run bot accounts", code_key="bot_owns_bot")
        check_name(name)
        now = utcnow()
        try:
            with self.db.engine.begin() as conn:
                # One owner's registrations one after the other: the limit holds with several servers.
                conn.execute(update(User).where(User.id == owner.id).values(cred_gen=User.cred_gen))
                count = conn.execute(select(func.count()).select_from(BotAccount)
                                     .where(BotAccount.owner_id == owner.id)).scalar_one()
                if count >= self.max_per_owner:
                    raise TooManyAttempts(f"you run {count} bot accounts already, the most one person may",
                                          retry_after=3600)
                uid = conn.execute(
                    insert(User).values(name=name, name_key=name.lower(), password_hash=None, is_guest=False,
                                        lang=owner.lang, created_at=now, handover_seconds=0).returning(User.id)
                ).scalar_one()
                conn.execute(insert(BotAccount).values(user_id=uid, owner_id=owner.id,
                                                       rated_with_people=bool(rated_with_people), created_at=now))
        except IntegrityError:
            raise Conflict(f"the name {name!r} is taken", code_key="name_taken") from None
        return BotInfo(uid, name, owner.name, bool(rated_with_people), now)

    def _bots_where(self, where: Any) -> list[BotInfo]:
        owner = User.__table__.alias("owner")
        with self.db.engine.begin() as conn:
            rows = conn.execute(
                select(User.id, User.name, owner.c.name.label("owner"), BotAccount.rated_with_people,
                       BotAccount.created_at)
                .join(BotAccount, BotAccount.user_id == User.id)
                .join(owner, owner.c.id == BotAccount.owner_id)
                .where(where).order_by(User.id)
            ).all()
        return [BotInfo(r.id, r.name, r.owner, bool(r.rated_with_people), aware(r.created_at) or utcnow())
                for r in rows]

    def owned(self, owner_id: int) -> list[BotInfo]:
        return self._bots_where(BotAccount.owner_id == owner_id)

    def bot(self, name: str) -> BotInfo:
        """The bot account called ``name`` (any case); `NotFound` for a person or nobody."""
        found = self._bots_where(User.name_key == str(name).lower())
        if not found:
            raise NotFound(f"there is no bot account called {name!r}", code_key="no_bot")
        return found[0]

    def is_bot(self, user_id: int) -> bool:
        with self.db.engine.begin() as conn:
            return conn.execute(select(BotAccount.user_id).where(BotAccount.user_id == user_id)).first() is not None

    def owner_of(self, name: str) -> str | None:
        """The owner's name if ``name`` is a bot account, else None (pages mark bots by it)."""
        try:
            return self.bot(name).owner
        except NotFound:
            return None

    def among(self, names: list[str]) -> set[str]:
        """Which of ``names`` are bot accounts (one query for a leaderboard page)."""
        if not names:
            return set()
        with self.db.engine.begin() as conn:
            return set(conn.execute(select(User.name).join(BotAccount, BotAccount.user_id == User.id)
                                    .where(User.name.in_(list(names)))).scalars())

    def mine(self, owner: UserInfo, name: str) -> BotInfo:
        """Owner's bot ``name``; another person's bot is "not found", as an unknown one."""
        bot = next((b for b in self.owned(owner.id) if b.name.lower() == str(name).lower()), None)
        if bot is None:
            raise NotFound(f"you run no bot account called {name!r}", code_key="no_bot")
        return bot

    def new_token(self, owner: UserInfo, name: str, label: str = "", expires_in_days: int | None = None) -> str:
        """A new API token for the owner's bot (shown once, like every token)."""
        bot = self.mine(owner, name)
        return self.sessions.create_token(bot.id, label, expires_in_days)

    def tokens(self, owner: UserInfo, name: str) -> list[Any]:
        """The live tokens of the owner's bot, newest first (never the tokens themselves)."""
        return list(self.sessions.tokens(self.mine(owner, name).id))

    def revoke_token(self, owner: UserInfo, name: str, token_id: int) -> None:
        """End one token of the owner's bot at once; another bot's token is "not found"."""
        self.sessions.revoke_token(self.mine(owner, name).id, token_id)

    def set_rated_with_people(self, owner: UserInfo, name: str, value: bool) -> BotInfo:
        """Opt the owner's bot into (or out of) the people's ratings, from the next finished game on."""
        bot = self.mine(owner, name)
        with self.db.engine.begin() as conn:
            conn.execute(update(BotAccount).where(BotAccount.user_id == bot.id).values(rated_with_people=bool(value)))
        return self.mine(owner, name)

    def need_bot(self, user: UserInfo) -> None:
        if not self.is_bot(user.id):
            raise Forbidden("this is for bot accounts; register one with POST /api/v1/bots", code_key="not_a_bot")

    # ------------------------------------------------------------------ challenges
    def _answer(self, bot: UserInfo, game_id: int) -> None:
        """Refuse an answer to challenge ``game_id`` unless it is ``bot``'s and still open."""
        self.need_bot(bot)
        with self.db.engine.begin() as conn:
            status = conn.execute(select(GameRow.status).where(GameRow.id == game_id)).scalar()
            mine = conn.execute(select(SeatRow.kind).where(SeatRow.game_id == game_id,
                                                           SeatRow.user_id == bot.id)).scalars().all()
        if status is None:
            raise NotFound(f"there is no challenge {game_id}", code_key="no_challenge")
        if "invited" in mine and status == "open":
            return
        if mine:  # it was for this bot: accepted (a seat), or the game started or was called off since
            raise Conflict(f"challenge {game_id} is answered already, or no longer open", code_key="challenge_answered")
        raise Forbidden(f"challenge {game_id} is not addressed to you", code_key="not_your_challenge")

    def accept(self, bot: UserInfo, game_id: int) -> int:
        """Take the invited seat (the lobby's join: the game starts when it is full)."""
        self._answer(bot, game_id)
        self.lobby.join(game_id, bot)
        return game_id

    def decline(self, bot: UserInfo, game_id: int) -> int:
        """Give the invited seat back (the lobby's leave: it becomes an open seat, the creator is told)."""
        self._answer(bot, game_id)
        self.lobby.leave(game_id, bot)
        return game_id

    # ------------------------------------------------------------------ the stream's view
    def snapshot(self, bot_id: int, known: set[int] = frozenset()) -> Snapshot:  # type: ignore[assignment]
        """The bot's open challenges and running games, and how the games in ``known`` that no
        longer run ended (finished, abandoned, cancelled).  Three small indexed queries."""
        creator = User.__table__.alias("creator")
        snap = Snapshot()
        with self.db.engine.begin() as conn:
            for r in conn.execute(
                select(GameRow.id, GameRow.game, GameRow.num_players, GameRow.options_json, GameRow.created_at,
                       creator.c.name.label("by"))
                .join(SeatRow, SeatRow.game_id == GameRow.id)
                .outerjoin(creator, creator.c.id == GameRow.creator_id)
                .where(SeatRow.user_id == bot_id, SeatRow.kind == "invited", GameRow.status == "open")
            ):
                snap.challenges[r.id] = Challenge(r.id, r.game, r.num_players, json.loads(r.options_json), r.by,
                                                  aware(r.created_at) or utcnow())
            for r in conn.execute(
                select(GameRow.id, GameRow.game, GameRow.seq, GameRow.to_move, SeatRow.seat)
                .join(SeatRow, SeatRow.game_id == GameRow.id)
                .where(SeatRow.user_id == bot_id, SeatRow.kind == "player", GameRow.status == "running")
            ):
                snap.running[r.id] = RunningGame(r.id, r.game, r.seq, r.seat, r.to_move == r.seat)
            gone = sorted(set(known) - set(snap.running) - set(snap.challenges))
            if gone:
                for r in conn.execute(
                    select(GameRow.id, GameRow.game, GameRow.status, SeatRow.place, SeatRow.kind)
                    .outerjoin(SeatRow, (SeatRow.game_id == GameRow.id) & (SeatRow.user_id == bot_id))
                    .where(GameRow.id.in_(gone))
                ):
                    snap.ended[r.id] = EndedGame(r.id, r.game, r.status, r.place, r.kind in ("player", "bot"))
        return snap

    # ------------------------------------------------------------------ the bot leaderboard
    def leaderboard(self, kind: str, limit: int = 50, offset: int = 0) -> tuple[list[BotBoardRow], int]:
        """Bot accounts ranked among bots in ``kind`` (at least `LEADERBOARD_MIN_GAMES` rated games),
        by μ − 3σ, then by id; and how many there are."""
        owner = User.__table__.alias("owner")
        where = (BotRating.game == kind) & (BotRating.games >= LEADERBOARD_MIN_GAMES)
        with self.db.engine.begin() as conn:
            total = conn.execute(select(func.count()).select_from(BotRating).where(where)).scalar_one()
            rows = conn.execute(
                select(User.name, owner.c.name.label("owner"), BotRating.conservative, BotRating.games,
                       BotRating.wins)
                .join(User, User.id == BotRating.user_id)
                .join(BotAccount, BotAccount.user_id == BotRating.user_id)
                .join(owner, owner.c.id == BotAccount.owner_id)
                .where(where)
                .order_by(BotRating.conservative.desc(), BotRating.user_id)
                .limit(limit).offset(offset)
            ).all()
        return [BotBoardRow(offset + i + 1, r.name, r.owner, float(r.conservative), int(r.games), int(r.wins))
                for i, r in enumerate(rows)], int(total)

    def bot_rating(self, user_id: int, kind: str) -> tuple[float, int, int] | None:
        with self.db.engine.begin() as conn:
            r = conn.execute(select(BotRating.conservative, BotRating.games, BotRating.wins)
                             .where(BotRating.user_id == user_id, BotRating.game == kind)).first()
        return None if r is None else (float(r[0]), int(r[1]), int(r[2]))


