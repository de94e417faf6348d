"""Game chat and its reports (issue 12, part 4).

Each game has a chat for the people at its table: the users who took a seat
(and keep it, or whose seat a bot took over when they timed out or resigned).
Only they may write.  While the game waits or runs only they may read it; once
it has ended (finished, abandoned or cancelled) anyone may.  Each message is
stored with the game's move number ``seq`` at the moment it was written, so a
replay can show it at that moment.

Messages are plain text: control characters are taken out when a message is
stored (tabs and line breaks become spaces), a lone surrogate is refused, and
what remains is at most `MAX_CHAT_LENGTH` characters.  Pages escape it, the API
hands it out as a JSON string, the browser inserts it as text.

A user never reads the messages of someone they blocked (`ludothek.services.community.social`),
in pages, API or live messages; the count of hidden messages is shown instead.

Any reader (not the author) may report a message once; the reports wait for the
operators (``ludothek admin reports``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.orm import aliased

from ludothek.storage.blocks import blocked_by, blockers_of
from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, Conflict, Forbidden, NotFound
from ludothek.storage.games import Games
from ludothek.storage.info import GameInfo, UserInfo, aware
from ludothek.storage.models import MAX_ID, ChatMessage, ChatReport, GameRow, User, utcnow
from ludothek.storage.text import check_text

#: The longest message, in characters (after control characters are taken out).
MAX_CHAT_LENGTH = 500
#: The most messages one game's chat keeps (more are refused): bounds what one table can store.
MAX_CHAT_PER_GAME = 2000
#: Why a message may be reported.
REPORT_REASONS = ("abuse", "spam", "cheating", "other")
#: How many of the latest messages up to a step a replay step shows.
REPLAY_MESSAGES = 100
#: Statuses after which anyone may read a game's chat.
ENDED = ("finished", "abandoned", "cancelled")

_LINE_BREAKS = re.compile(r"[\t\n\r\v\f\x85\u2028\u2029]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def clean_chat_text(text: Any) -> str:
    """The message as it is stored: plain single-line text; `BadRequest` if empty or too long."""
    if not isinstance(text, str):
        raise BadRequest("a chat message is text", code_key="bad_text", what="the message")
    text = _CONTROLS.sub("", _LINE_BREAKS.sub(" ", text)).strip()
    check_text(text, "the message")  # a lone surrogate
    if not text:
        raise BadRequest("the message is empty", code_key="chat_empty")
    if len(text) > MAX_CHAT_LENGTH:
        raise BadRequest(f"a chat message has at most {MAX_CHAT_LENGTH} characters, not {len(text)}",
                         code_key="chat_too_long", n=MAX_CHAT_LENGTH, length=len(text))
    return text


def at_table(info: GameInfo, user_id: int | None) -> bool:
    """Whether ``user_id`` sits at the game's table: seated, or left it to a bot (timed out, resigned)."""
    if user_id is None:
        return False
    return any(s.user_id == user_id and (s.kind == "player" or (s.kind == "bot" and s.left_as)) for s in info.seats)


def table_users(info: GameInfo) -> list[int]:
    return sorted({s.user_id for s in info.seats if s.user_id is not None and at_table(info, s.user_id)})


@dataclass(frozen=True)
class ChatLine:
    """One message as a reader gets it."""

    id: int
    game_id: int
    user_id: int | None
    author: str
    seq: int
    text: str
    created_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game_id, "author": self.author, "seq": self.seq, "text": self.text,
                "at": self.created_at.isoformat()}


@dataclass(frozen=True)
class ChatView:
    """What one reader may see of a game's chat."""

    messages: list[ChatLine]
    #: Messages left out because the reader blocked their authors.
    hidden: int
    #: Messages before the first one given (paging: ``before`` / the page shows only the latest).
    earlier: int
    can_write: bool


@dataclass(frozen=True)
class Posted:
    """A stored message and who may hear of it live: ``to`` (None: every watcher) minus ``skip``."""

    line: ChatLine
    to: list[int] | None
    skip: list[int]


@dataclass(frozen=True)
class ReportInfo:
    """A report as the operators' queue lists it."""

    id: int
    created_at: datetime
    reason: str
    reporter: str
    message_id: int
    game_id: int
    game: str
    author: str
    text: str
    seq: int
    written_at: datetime
    reports: int
    resolved_at: datetime | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "created_at": self.created_at.isoformat(), "reason": self.reason,
            "reporter": self.reporter, "message": self.message_id, "game_id": self.game_id, "game": self.game,
            "author": self.author, "text": self.text, "seq": self.seq, "written_at": self.written_at.isoformat(),
            "reports": self.reports, "resolved_at": self.resolved_at.isoformat() if self.resolved_at else None,
        }


class Chat:
    """Game chats and the reports queue; every replay step carries the messages written up to it
    (`replay_extras`, called by `History.replay_step`)."""

    def __init__(self, db: Database, games: Games) -> None:
        self.db = db
        self.games = games


    @staticmethod
    def chat_access(info: GameInfo, user: UserInfo | None) -> str | None:
        """``"write"`` for the table, ``"read"`` for anyone once the game has ended, else None."""
        if at_table(info, user.id if user else None):
            return "write"
        return "read" if info.status in ENDED else None

    def _readable(self, game_id: int, user: UserInfo | None) -> tuple[GameInfo, str]:
        info = self.games.game(game_id)
        access = self.chat_access(info, user)
        if access is None:
            raise Forbidden("the chat of a game that has not ended is for its players only", code_key="chat_players")
        return info, access

    def post_chat(self, game_id: int, user: UserInfo, text: Any, admit: Callable[[], None] | None = None) -> Posted:
        """Store a message of ``user`` in the game's chat.

        Refusals, each before anything is stored: `Forbidden` (not at the table),
        `BadRequest` (empty, too long, not text), `Conflict` (cancelled game, chat
        full).  ``admit()`` is called once the message passed every check and
        before it is stored: the caller's rate limit, so a refused message costs
        nothing of it.
        """
        info = self.games.game(game_id)
        if not at_table(info, user.id):
            raise Forbidden("only the players of this game can write in its chat", code_key="chat_not_seated")
        body = clean_chat_text(text)
        if info.status == "cancelled":
            raise Conflict("this game was cancelled", code_key="chat_cancelled")
        with self.db.engine.begin() as conn:
            count = conn.execute(
                select(func.count()).select_from(ChatMessage).where(ChatMessage.game_id == game_id)
            ).scalar_one()
        if count >= MAX_CHAT_PER_GAME:
            raise Conflict(f"this game's chat is full ({MAX_CHAT_PER_GAME} messages)", code_key="chat_full",
                           n=MAX_CHAT_PER_GAME)
        if admit is not None:
            admit()
        now = utcnow()
        with self.db.engine.begin() as conn:
            # The move number as it is when the message is stored.
            row = conn.execute(select(GameRow.seq, GameRow.status).where(GameRow.id == game_id)).one()
            mid = conn.execute(
                insert(ChatMessage).values(game_id=game_id, user_id=user.id, seq=row.seq, body=body, created_at=now)
                .returning(ChatMessage.id)
            ).scalar_one()
            skip = sorted(blockers_of(conn, user.id))
        line = ChatLine(mid, game_id, user.id, user.name, row.seq, body, now)
        to = None if row.status in ENDED else [u for u in table_users(info) if u not in skip]
        return Posted(line, to, skip)

    def chat(self, game_id: int, viewer: UserInfo | None, *, after: int = 0, before: int | None = None,
             upto_seq: int | None = None, limit: int = 200) -> ChatView:
        """The messages ``viewer`` may read: the latest ``limit`` (with ids after ``after`` and before
        ``before``, written at or before move ``upto_seq``), oldest first.  `Forbidden` while the game
        runs and the viewer is not at its table; `NotFound` for no game."""
        info, access = self._readable(game_id, viewer)
        return self._chat_view(info, access, viewer.id if viewer else None, after, before, upto_seq, limit)

    def _chat_view(self, info: GameInfo, access: str, viewer_id: int | None, after: int = 0,
                   before: int | None = None, upto_seq: int | None = None, limit: int = 200) -> ChatView:
        limit = max(1, min(int(limit), MAX_CHAT_PER_GAME))
        # Bounds a column can compare with (int4 on PostgreSQL: a larger number is a driver's error, not
        # an empty answer); the routes' schema refuses them already, this keeps every caller safe.
        after = max(0, min(after, MAX_ID))  # no id is larger than MAX_ID
        before = None if before is not None and before > MAX_ID else before  # every id is smaller
        upto_seq = None if upto_seq is not None and upto_seq > MAX_ID else upto_seq  # every move is earlier
        with self.db.engine.begin() as conn:
            hidden_authors = blocked_by(conn, viewer_id) if viewer_id is not None else set()
            where = (ChatMessage.game_id == info.id) & (ChatMessage.id > after)
            if before is not None:
                where &= ChatMessage.id < before
            if upto_seq is not None:
                where &= ChatMessage.seq <= upto_seq
            hidden = 0
            if hidden_authors:
                hidden = self._count(conn, where & ChatMessage.user_id.in_(hidden_authors))
                where &= (ChatMessage.user_id.is_(None) | ChatMessage.user_id.not_in(hidden_authors))
            rows = conn.execute(
                select(ChatMessage.id, ChatMessage.user_id, ChatMessage.seq, ChatMessage.body,
                       ChatMessage.created_at, User.name)
                .outerjoin(User, User.id == ChatMessage.user_id)
                .where(where)
                .order_by(ChatMessage.id.desc())
                .limit(limit)
            ).all()
            earlier = 0
            if len(rows) == limit:
                earlier = self._count(conn, where & (ChatMessage.id < rows[-1].id))
        lines = [ChatLine(r.id, info.id, r.user_id, r.name or "?", r.seq, r.body, aware(r.created_at) or utcnow())
                 for r in reversed(rows)]
        return ChatView(lines, hidden, earlier, access == "write" and info.status != "cancelled")

    def replay_extras(self, info: GameInfo, step: int, seat: int | None, user_id: int | None) -> list[dict[str, Any]]:
        """The replay's step ``step`` shows the latest `REPLAY_MESSAGES` chat messages written up to it,
        where ``user_id`` may read the chat at all (the table while the game runs, anyone after),
        without those of authors ``user_id`` blocked."""
        items: list[dict[str, Any]] = []
        access = "write" if at_table(info, user_id) else "read" if info.status in ENDED else None
        if access is None:
            return items
        view = self._chat_view(info, access, user_id, upto_seq=step, limit=REPLAY_MESSAGES)
        return [*items, *({"kind": "chat", "seq": m.seq, "at": m.created_at.isoformat(), "author": m.author,
                           "text": m.text} for m in view.messages)]

    @staticmethod
    def _count(conn: Connection, where: Any) -> int:
        return int(conn.execute(select(func.count()).select_from(ChatMessage).where(where)).scalar_one())

    # ------------------------------------------------------------------ reports
    def report_chat(self, message_id: int, user: UserInfo, reason: str) -> int:
        """Report a message ``user`` can read (not their own), once; the report's id."""
        if reason not in REPORT_REASONS:
            raise BadRequest(f"a report's reason is one of {', '.join(REPORT_REASONS)}", code_key="report_reason")
        unseen = NotFound("there is no message you could report with this id", code_key="no_message")
        with self.db.engine.begin() as conn:
            msg = conn.execute(
                select(ChatMessage.game_id, ChatMessage.user_id).where(ChatMessage.id == message_id)
            ).first()
            if msg is None:
                raise unseen
            hidden_authors = blocked_by(conn, user.id)
        info = self.games.game(msg.game_id)
        if self.chat_access(info, user) is None or msg.user_id in hidden_authors:
            raise unseen
        if msg.user_id == user.id:
            raise BadRequest("you cannot report your own message", code_key="report_own")
        twice = Conflict("you have reported this message already", code_key="already_reported")
        try:
            with self.db.engine.begin() as conn:
                done = conn.execute(
                    select(ChatReport.id).where(ChatReport.message_id == message_id, ChatReport.reporter_id == user.id)
                ).first()
                if done is not None:
                    raise twice
                return int(conn.execute(
                    insert(ChatReport).values(message_id=message_id, reporter_id=user.id, reason=reason,
                                              created_at=utcnow()).returning(ChatReport.id)
                ).scalar_one())
        except self.db.integrity_errors:  # the same report, sent twice at once
            raise twice from None

    def chat_reports(self, include_resolved: bool = False, limit: int = 500) -> list[ReportInfo]:
        """The reports queue, oldest first: open reports only unless ``include_resolved``."""
        reporter = aliased(User)
        author = aliased(User)
        per_message = (select(ChatReport.message_id, func.count().label("n"))
                       .group_by(ChatReport.message_id).subquery())
        query = (
            select(ChatReport.id, ChatReport.created_at, ChatReport.reason, ChatReport.resolved_at,
                   reporter.name.label("reporter"), ChatMessage.id.label("message_id"), ChatMessage.game_id,
                   GameRow.game, author.name.label("author"), ChatMessage.body, ChatMessage.seq,
                   ChatMessage.created_at.label("written_at"), per_message.c.n)
            .join(ChatMessage, ChatMessage.id == ChatReport.message_id)
            .join(GameRow, GameRow.id == ChatMessage.game_id)
            .join(reporter, reporter.id == ChatReport.reporter_id)
            .outerjoin(author, author.id == ChatMessage.user_id)
            .join(per_message, per_message.c.message_id == ChatReport.message_id)
            .order_by(ChatReport.id)
            .limit(limit)
        )
        if not include_resolved:
            query = query.where(ChatReport.resolved_at.is_(None))
        with self.db.engine.begin() as conn:
            rows = conn.execute(query).all()
        return [ReportInfo(r.id, aware(r.created_at) or utcnow(), r.reason, r.reporter, r.message_id, r.game_id,
                           r.game, r.author or "?", r.body, r.seq, aware(r.written_at) or utcnow(), int(r.n),
                           aware(r.resolved_at)) for r in rows]

    def resolve_report(self, report_id: int) -> None:
        """Mark a report as dealt with; `NotFound` if there is no open report with this id."""
        with self.db.engine.begin() as conn:
            done = conn.execute(
                update(ChatReport).where(ChatReport.id == report_id, ChatReport.resolved_at.is_(None))
                .values(resolved_at=utcnow())
            ).rowcount
        if not done:
            raise NotFound(f"there is no open report {report_id}", code_key="no_report")
