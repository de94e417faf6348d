"""What each player wants to be told on which channel (issue 30): per user, channel and kind.

Only choices that differ from the channel's default (`kinds.CHANNELS`) are stored (``notice_prefs``).
The mail settings from before channels keep working and stay the one place for what they cover
(``notify_prefs``, `ludothek.services.notify.Prefs`):

- mail ``turn`` is on exactly when turn mails are ``each`` (``digest`` and ``off`` mean no mail per
  turn; switching it on chooses ``each``, off chooses ``off`` unless the digest is chosen);
- mail ``reminder`` is off whenever turn mails are ``off`` (else its own choice);
- mail ``invited`` and ``ended`` are the ``invites`` and ``ended`` settings.

The digest hour and time zone stay where they are; the time zone is also the one every channel's
message is written in.  The account kinds (`kinds.ACCOUNT_KINDS`) go by mail whatever is chosen.

Choices are read by the notice worker for every notice, so they are remembered for
`CACHE_SECONDS` per process (a change made in this process is seen at once).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select

from ludothek.storage.database import Database
from ludothek.storage.errors import BadRequest, NotFound
from ludothek.storage.models import NoticePref, NotifyPrefs, User, UserEmail

from ..notify import Notify
from .kinds import ACCOUNT_KINDS, CHANNELS, canonical

CACHE_SECONDS = 2.0
#: The mail choices that live in the mail settings (`notify_prefs`), not in `notice_prefs`.
MAIL_MAPPED = ("turn", "invited", "ended")


@dataclass(frozen=True)
class Recipient:
    """One user as the channels need them for a notice: who they are and what they want."""

    user_id: int
    is_guest: bool
    lang: str
    timezone: str
    has_address: bool
    #: channel -> kind -> wanted
    table: Mapping[str, Mapping[str, bool]]

    def wants(self, channel: str, kind: str) -> bool:
        kind = canonical(kind)
        if kind in ACCOUNT_KINDS:
            return channel == "mail"
        return bool(self.table.get(channel, {}).get(kind, False))


class NoticePrefs:
    """Reading and changing the choices; every change is checked first, and nothing changes if one is wrong."""

    def __init__(self, db: Database, notify: Notify) -> None:
        self.db = db
        self.notify = notify
        self._cache: dict[int, tuple[float, Recipient | None]] = {}
        self._lock = threading.Lock()
        notify.prefs_listeners.append(self.forget)

    def forget(self, user_id: int) -> None:
        with self._lock:
            self._cache.pop(user_id, None)

    def recipient(self, user_id: int) -> Recipient | None:
        """The user and their choices (None: no such user); remembered briefly."""
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(user_id)
        if hit is not None and hit[0] > now:
            return hit[1]
        found = self._load(user_id)
        with self._lock:
            if len(self._cache) > 50_000:
                self._cache.clear()
            self._cache[user_id] = (now + CACHE_SECONDS, found)
        return found

    def wants(self, user_id: int, channel: str, kind: str) -> bool:
        who = self.recipient(user_id)
        return who is not None and who.wants(channel, kind)

    def table(self, user_id: int) -> dict[str, dict[str, bool]]:
        """Every channel's kinds with the user's choice (a fresh read)."""
        self.forget(user_id)
        who = self.recipient(user_id)
        if who is None:
            raise NotFound("no such user")
        return {channel: dict(kinds) for channel, kinds in who.table.items()}

    def _load(self, user_id: int) -> Recipient | None:
        with self.db.engine.begin() as conn:
            user = conn.execute(select(User.is_guest, User.lang).where(User.id == user_id)).first()
            if user is None:
                return None
            legacy = conn.execute(select(NotifyPrefs).where(NotifyPrefs.user_id == user_id)).first()
            address = conn.execute(select(UserEmail.address).where(UserEmail.user_id == user_id)).scalar()
            stored = conn.execute(select(NoticePref.channel, NoticePref.kind, NoticePref.wanted)
                                  .where(NoticePref.user_id == user_id)).all()
        chosen = {(r.channel, r.kind): bool(r.wanted) for r in stored}
        turns = legacy.turns if legacy is not None else "each"
        mapped = {"turn": turns == "each", "invited": bool(legacy.invites) if legacy is not None else True,
                  "ended": bool(legacy.ended) if legacy is not None else True}
        table: dict[str, dict[str, bool]] = {}
        for name, info in CHANNELS.items():
            row = {kind: chosen.get((name, kind), kind in info.defaults) for kind in info.kinds}
            if name == "mail":
                row.update({k: v for k, v in mapped.items() if k in row})
                if "reminder" in row and turns == "off":
                    row["reminder"] = False
            table[name] = row
        return Recipient(user_id, bool(user.is_guest), str(user.lang or "en"),
                         legacy.timezone if legacy is not None else "UTC", address is not None, table)

    def set(self, user_id: int, changes: Any) -> dict[str, dict[str, bool]]:
        """Apply ``{"<channel>": {"<kind>": true|false, ...}, ...}``; returns the whole table afterwards.

        Every choice is checked before anything is written: one wrong choice changes nothing.
        """
        return self.apply(user_id, self.check(changes))

    @staticmethod
    def check(changes: Any) -> list[tuple[str, str, bool]]:
        """``changes`` as ``(channel, kind, wanted)`` triples, or `BadRequest` naming what is wrong."""
        if not isinstance(changes, Mapping):
            raise BadRequest('channels is an object such as {"push": {"turn": true}}', code_key="bad_channels")
        checked: list[tuple[str, str, bool]] = []
        for channel, kinds in changes.items():
            info = CHANNELS.get(channel) if isinstance(channel, str) else None
            if info is None:
                raise BadRequest(f"unknown channel {channel!r}; the channels are {', '.join(CHANNELS)}",
                                 code_key="bad_channels")
            if not isinstance(kinds, Mapping):
                raise BadRequest(f"channels.{channel} is an object of kinds, each true or false",
                                 code_key="bad_channels")
            for kind, wanted in kinds.items():
                if not isinstance(kind, str) or kind not in info.kinds:
                    raise BadRequest(f"the {channel} channel carries no kind {kind!r}; it carries "
                                     f"{', '.join(info.kinds)}", code_key="bad_channels")
                if not isinstance(wanted, bool):
                    raise BadRequest(f"channels.{channel}.{kind} is true or false", code_key="bad_channels")
                checked.append((channel, kind, wanted))
        return checked

    def apply(self, user_id: int, checked: list[tuple[str, str, bool]]) -> dict[str, dict[str, bool]]:
        """Write choices that `check` passed; returns the whole table afterwards."""
        if not checked:
            return self.table(user_id)
        with self.db.engine.begin() as conn:
            if conn.execute(select(User.id).where(User.id == user_id)).first() is None:
                raise NotFound("no such user")
        legacy: dict[str, Any] = {}
        current = self.notify.prefs(user_id)
        for channel, kind, wanted in checked:
            if channel == "mail" and kind in MAIL_MAPPED:
                if kind == "turn":
                    legacy["turns"] = "each" if wanted else ("digest" if current.turns == "digest" else "off")
                else:
                    legacy["invites" if kind == "invited" else "ended"] = wanted
        rest = [(c, k, w) for c, k, w in checked if not (c == "mail" and k in MAIL_MAPPED)]
        with self.db.engine.begin() as conn:
            for channel, kind, wanted in rest:
                key = (NoticePref.user_id == user_id, NoticePref.channel == channel, NoticePref.kind == kind)
                if wanted == (kind in CHANNELS[channel].defaults):
                    conn.execute(delete(NoticePref).where(*key))
                else:
                    conn.execute(self.db.upsert(NoticePref, [NoticePref.user_id, NoticePref.channel, NoticePref.kind],
                                              {"user_id": user_id, "channel": channel, "kind": kind, "wanted": wanted},
                                              {"wanted": wanted}))
        if legacy:
            self.notify.set_prefs(user_id, **legacy)
        self.forget(user_id)
        return self.table(user_id)
