"""Sessions, CSRF protection and the brake on repeated failed logins.

The session is a signed cookie (itsdangerous, HMAC-SHA1 over JSON), HttpOnly
and SameSite=Lax, holding only the user id, a CSRF secret and the language.
Every state-changing request made with the cookie must carry that CSRF value,
as a form field ``csrf`` or a header ``X-CSRF-Token``; requests with an API
token (``Authorization: Bearer``) carry no cookie and need none.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer

from ludothek.storage import TooManyAttempts

COOKIE = "ludothek_session"
SESSION_MAX_AGE = 30 * 24 * 3600


@dataclass
class Session:
    """The decoded session cookie; ``dirty`` means the response must set it again."""

    uid: int | None = None
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    lang: str | None = None
    dirty: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"uid": self.uid, "csrf": self.csrf, "lang": self.lang}


class SessionCodec:
    def __init__(self, secret: str) -> None:
        self._s = URLSafeTimedSerializer(secret, salt="ludothek-session")

    def load(self, cookie: str | None) -> Session:
        if cookie:
            try:
                data = self._s.loads(cookie, max_age=SESSION_MAX_AGE)
                if isinstance(data, dict) and isinstance(data.get("csrf"), str):
                    uid = data.get("uid")
                    lang = data.get("lang")
                    return Session(
                        uid=uid if isinstance(uid, int) else None,
                        csrf=data["csrf"],
                        lang=lang if lang in ("de", "en") else None,
                    )
            except BadSignature:
                pass
        return Session(dirty=True)

    def dump(self, session: Session) -> str:
        return self._s.dumps(session.to_json())


def csrf_ok(session: Session, token: str | None) -> bool:
    return bool(token) and hmac.compare_digest(session.csrf, str(token))


class LoginThrottle:
    """Slows down guessing: after a few failures for a name or an address, each try must wait longer.

    The wait doubles with every failure past ``free`` (1 s, 2 s, 4 s ... up to
    ``cap``) and a success for that name clears it.  Kept in memory: several
    server processes each keep their own count, which still bounds guessing.
    """

    def __init__(self, free: int = 3, cap: float = 300.0, window: float = 900.0) -> None:
        self.free = free
        self.cap = cap
        self.window = window
        self._fails: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    def _wait(self, key: str, now: float) -> float:
        count, last = self._fails.get(key, (0, 0.0))
        if now - last > self.window:
            return 0.0
        if count < self.free:
            return 0.0
        delay = min(self.cap, 2.0 ** (count - self.free))
        return max(0.0, last + delay - now)

    def check(self, keys: list[str]) -> None:
        """Raise `TooManyAttempts` if any key must still wait."""
        now = time.monotonic()
        with self._lock:
            wait = max((self._wait(k, now) for k in keys), default=0.0)
        if wait > 0:
            seconds = int(wait) + 1
            raise TooManyAttempts(f"too many failed logins; wait {seconds} seconds", retry_after=seconds)

    def failed(self, keys: list[str]) -> None:
        now = time.monotonic()
        with self._lock:
            for k in keys:
                count, last = self._fails.get(k, (0, 0.0))
                if now - last > self.window:
                    count = 0
                self._fails[k] = (count + 1, now)
            if len(self._fails) > 100_000:  # bound memory under a flood
                self._fails.clear()

    def succeeded(self, keys: list[str]) -> None:
        with self._lock:
            for k in keys:
                self._fails.pop(k, None)
