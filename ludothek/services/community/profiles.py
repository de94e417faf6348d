"""Profiles: what ``/users/{name}`` shows of a player, and the two things a player writes there.

"About me" is plain text: at most `ABOUT_MAX` characters, line breaks allowed, every other control
character (and the bidirectional overrides that make text read differently than it is stored)
refused with a clear 400.  It is stored as written and escaped wherever it is shown.  The
languages a player speaks are codes from `LANGUAGE_CODES`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update

from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, NotFound
from ludothek.storage.games import Games
from ludothek.storage.info import GameInfo, aware
from ludothek.storage.models import GameRow, PlayerStats, SeatRow, User
from ludothek.storage.text import check_text

ABOUT_MAX = 500
#: The languages a profile can name (ISO 639-1); their names come from Babel in the reader's language.
LANGUAGE_CODES = ("de", "en", "fr", "es", "it", "nl", "pl", "pt", "cs", "da", "sv", "nb", "fi", "hu", "ro", "ru",
                  "uk", "tr", "el", "he", "ar", "ja", "zh", "ko")
MAX_LANGUAGES = 8
#: Characters that change how text around them reads (bidirectional embeddings, overrides, isolates).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def check_about(text: object) -> str:
    """The "about me" text as stored: line breaks normalised, trailing space trimmed; `BadRequest` if not allowed."""
    value = check_text(text, "the text about you")
    value = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    for ch in value:
        if ch in BIDI_CONTROLS or (unicodedata.category(ch) == "Cc" and ch not in "\n\t"):
            raise BadRequest(f"the text about you must not contain control characters (U+{ord(ch):04X})",
                             code_key="about_control", char=f"U+{ord(ch):04X}")
    if len(value) > ABOUT_MAX:
        raise BadRequest(f"the text about you has {len(value)} characters; at most {ABOUT_MAX} fit",
                         code_key="about_long", n=len(value), max=ABOUT_MAX)
    return value


def check_languages(codes: Sequence[object]) -> list[str]:
    """Known language codes, each once, at most `MAX_LANGUAGES`; `BadRequest` otherwise."""
    out: list[str] = []
    for code in codes:
        if not isinstance(code, str) or code not in LANGUAGE_CODES:
            raise BadRequest(f"unknown language {code!r}; known: {', '.join(LANGUAGE_CODES)}",
                             code_key="bad_language", code=str(code)[:10])
        if code not in out:
            out.append(code)
    if len(out) > MAX_LANGUAGES:
        raise BadRequest(f"name at most {MAX_LANGUAGES} languages", code_key="too_many_languages", max=MAX_LANGUAGES)
    return out


@dataclass(frozen=True)
class GameStats:
    """A player's finished games of one kind: how many, how many won (first place, ties included)."""

    game: str
    played: int
    won: int


@dataclass(frozen=True)
class Profile:
    user_id: int
    name: str
    is_guest: bool
    member_since: datetime
    languages: tuple[str, ...]
    about: str
    stats: tuple[GameStats, ...]


class Profiles:
    """Profiles: looked up by name, "about me" and languages, and a player's games."""

    def __init__(self, db: Database, games: Games) -> None:
        self.db = db
        self.games = games


    def profile(self, name: str) -> Profile:
        """The profile of the user called ``name`` (any case); `NotFound` if there is none."""
        check_text(name, "the user name", 40)
        with self.db.engine.begin() as conn:
            user = conn.execute(
                select(User.id, User.name, User.is_guest, User.created_at, User.lang, User.languages, User.about)
                .where(User.name_key == name.lower())
            ).first()
            if user is None:
                raise NotFound(f"there is no user called {name!r}", code_key="no_user")
            # One row per game kind (kept when each game ends), however many games the player has.
            stats = conn.execute(
                select(PlayerStats.game, PlayerStats.played, PlayerStats.won)
                .where(PlayerStats.user_id == user.id).order_by(PlayerStats.game)
            ).all()
        languages = tuple(c for c in (user.languages or user.lang or "").split(",") if c)
        return Profile(user.id, user.name, bool(user.is_guest), aware(user.created_at) or user.created_at,
                       languages, user.about or "", tuple(GameStats(g, int(n), int(w or 0)) for g, n, w in stats))

    def update_profile(self, user_id: int, about: str | None = None, languages: Sequence[object] | None = None) -> None:
        """Change "about me" and/or the languages at once: both are checked before anything is stored."""
        values: dict[str, str | None] = {}
        if about is not None:
            values["about"] = check_about(about) or None
        if languages is not None:
            values["languages"] = ",".join(check_languages(languages)) or None
        if values:
            with self.db.engine.begin() as conn:
                conn.execute(update(User).where(User.id == user_id).values(**values))

    def set_about(self, user_id: int, text: str) -> str:
        """Store the user's "about me" (checked by `check_about`); the text as stored."""
        value = check_about(text)
        with self.db.engine.begin() as conn:
            conn.execute(update(User).where(User.id == user_id).values(about=value or None))
        return value

    def set_languages(self, user_id: int, codes: Sequence[object]) -> list[str]:
        """Store the languages the user speaks (checked by `check_languages`)."""
        value = check_languages(codes)
        with self.db.engine.begin() as conn:
            conn.execute(update(User).where(User.id == user_id).values(languages=",".join(value) or None))
        return value

    def finished_games_of(self, user_id: int, limit: int = 10, kind: str | None = None) -> list[GameInfo]:
        """The user's last ended games (finished or abandoned), newest first; of one kind if ``kind`` is given.

        Read from the index ``ix_seats_user_ended`` (user_id, ended_at, game_id): the first rows of
        the user's range, whatever the number of their games.  Of one kind, the user's games are
        walked newest first until enough are found.
        """
        limit = max(1, min(limit, 100))
        query = (
            select(SeatRow.game_id)
            .where(SeatRow.user_id == user_id, SeatRow.ended_at.is_not(None))
            .order_by(SeatRow.ended_at.desc(), SeatRow.game_id.desc()).limit(limit)
        )
        if kind is not None:
            query = query.join(GameRow, GameRow.id == SeatRow.game_id).where(GameRow.game == kind)
        with self.db.engine.begin() as conn:
            ids = list(dict.fromkeys(conn.execute(query).scalars()))
        return self.games.infos(ids)

    def running_games_of(self, user_id: int, limit: int = 50) -> list[GameInfo]:
        """The user's running games, which anyone may watch (the longest waiting first)."""
        with self.db.engine.begin() as conn:
            ids = list(conn.execute(
                select(GameRow.id).join(SeatRow, SeatRow.game_id == GameRow.id)
                .where(SeatRow.user_id == user_id, SeatRow.kind == "player", GameRow.status == "running")
                .order_by(GameRow.id.desc()).limit(max(1, min(limit, 200)))
            ).scalars())
        return self.games.infos(ids)

    def finished_games_of_kind(self, kind: str, limit: int = 20) -> list[GameInfo]:
        """The newest finished games of ``kind`` (index ``ix_games_kind_finished``)."""
        query = (select(GameRow.id).where(GameRow.game == kind, GameRow.status == "finished")
                 .order_by(GameRow.finished_at.desc(), GameRow.id.desc()).limit(max(1, min(limit, 100))))
        with self.db.engine.begin() as conn:
            ids = list(conn.execute(query).scalars())
        return self.games.infos(ids)
