"""The session cookie and CSRF protection.

The cookie is signed (itsdangerous, HMAC over JSON), HttpOnly and
SameSite=Lax.  It holds a CSRF secret, the language and, once logged in, the
secret of a server-side session (``ludothek.storage.sessions``): the user is
whoever that session row names, so a session ended on the server (logout,
password change, "log out everywhere", a deleted account) stops working at
once, wherever the cookie was copied to.

Every state-changing request made with the cookie must carry the CSRF value,
as a form field ``csrf`` or a header ``X-CSRF-Token``; requests with an API
token (``Authorization: Bearer``) carry no cookie and need none.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer

from ludothek.services.sessions import SESSION_LIFETIME

COOKIE = "ludothek_session"
SESSION_MAX_AGE = int(SESSION_LIFETIME.total_seconds())


def new_csrf() -> str:
    return secrets.token_urlsafe(24)


@dataclass
class Session:
    """The decoded session cookie; ``dirty`` means the response must set it again.

    ``sid`` is the secret of the server-side session (``None``: not logged in).
    """

    sid: str | None = None
    csrf: str = field(default_factory=new_csrf)
    lang: str | None = None
    dirty: bool = False
    #: A message for the next page (POST-redirect-GET): a text key and its parameters, shown once.
    flash: tuple[str, dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"sid": self.sid, "csrf": self.csrf, "lang": self.lang}
        if self.flash is not None:
            data["flash"] = [self.flash[0], self.flash[1]]
        return data


class SessionCodec:
    def __init__(self, secret: str) -> None:
        self._s = URLSafeTimedSerializer(secret, salt="ludothek-session")

    def load(self, cookie: str | None) -> Session:
        """The cookie's session; a fresh anonymous one if it is missing, forged or too old.

        Cookies of the old form (a bare user id, before server-side sessions) carry no
        ``sid`` and therefore name nobody.
        """
        if cookie:
            try:
                data = self._s.loads(cookie, max_age=SESSION_MAX_AGE)
                if isinstance(data, dict) and isinstance(data.get("csrf"), str):
                    sid = data.get("sid")
                    lang = data.get("lang")
                    flash = data.get("flash")
                    return Session(
                        sid=sid if isinstance(sid, str) and sid else None,
                        csrf=data["csrf"],
                        lang=lang if lang in ("de", "en") else None,
                        flash=(flash[0], flash[1]) if isinstance(flash, list) and len(flash) == 2
                        and isinstance(flash[0], str) and isinstance(flash[1], dict) else None,
                    )
            except BadSignature:
                pass
        return Session(dirty=True)

    def dump(self, session: Session) -> str:
        return self._s.dumps(session.to_json())


def csrf_ok(session: Session, token: str | None) -> bool:
    return bool(token) and hmac.compare_digest(session.csrf.encode(), str(token).encode("utf-8", "replace"))
