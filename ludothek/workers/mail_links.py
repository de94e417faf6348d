"""Signed links in mails: verify an address, reset a password, unsubscribe, all without logging in.

Each link carries the user id, its purpose and a random nonce, signed with
the deployment's secret (``itsdangerous``) and a salt per purpose: a link for
one user or one purpose cannot be turned into another.  Verification (48 h)
and reset (1 h) links are single-use: their nonce is recorded when used
(``used_links``).  A reset link also carries the credentials generation, the
address it was sent to and the reset generation (``g``, ``a``, ``r``):
`Notify.reset_password` refuses it once any of them changed (a newer reset
link raises the last), and `Notify.check_reset_link` says so when it is opened.  An undo link (``c``: the address change) undoes one
address change within `undo_days` (``email_changes.used_at`` makes it
single-use).  Unsubscribing is harmless to repeat, so its link only has a
long expiry.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from ludothek.services.notify import LinkRefused

#: Purpose → how long its link is valid.
LIFETIMES = {
    "verify": timedelta(hours=48),
    "reset": timedelta(hours=1),
    "unsubscribe": timedelta(days=365),
    "undo": timedelta(days=7),  # replaced by `MailLinks`' ``undo_days`` (`Settings.email_undo_days`)
}
#: Purpose → the page it opens (the token follows).
PATHS = {"verify": "/mail/verify/", "reset": "/password-reset/", "unsubscribe": "/mail/unsubscribe/",
         "undo": "/mail/undo/"}
MAX_TOKEN = 1000


class MailLinks:
    """Makes and checks signed mail links for one deployment."""

    def __init__(self, secret: str, base_url: str, undo_days: int = 7) -> None:
        self.secret = secret
        self.base_url = base_url.rstrip("/")
        #: How long each purpose's link works; an address change can be undone for ``undo_days``.
        self.lifetimes = {**LIFETIMES, "undo": timedelta(days=undo_days)}
        self.undo_days = undo_days

    def _serializer(self, purpose: str) -> URLSafeTimedSerializer:
        return URLSafeTimedSerializer(self.secret, salt=f"ludothek-mail-{purpose}")

    def token(self, purpose: str, user_id: int, **extra: Any) -> str:
        if purpose not in LIFETIMES:
            raise ValueError(f"unknown link purpose {purpose!r}")
        data = {"u": user_id, "p": purpose, "n": secrets.token_urlsafe(16), **extra}
        return str(self._serializer(purpose).dumps(data))

    def url(self, purpose: str, user_id: int, **extra: Any) -> str:
        return self.base_url + PATHS[purpose] + self.token(purpose, user_id, **extra)

    def game_url(self, game_id: int) -> str:
        return f"{self.base_url}/games/{game_id}"

    def check(self, token: str, purpose: str) -> dict[str, Any]:
        """The link's content (``u`` user id, ``n`` nonce, extras); `LinkRefused` saying why not."""
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN:
            raise LinkRefused("this link is not valid (it may have been cut off or changed)", code_key="link_bad")
        try:
            data = self._serializer(purpose).loads(token, max_age=int(self.lifetimes[purpose].total_seconds()))
        except SignatureExpired:
            raise LinkRefused("this link has expired; ask for a new one", code_key="link_expired") from None
        except (BadSignature, UnicodeError, ValueError):
            raise LinkRefused("this link is not valid (it may have been cut off or changed)",
                              code_key="link_bad") from None
        if not isinstance(data, dict) or data.get("p") != purpose or not isinstance(data.get("u"), int) \
                or not isinstance(data.get("n"), str):
            raise LinkRefused("this link is not valid (it may have been cut off or changed)", code_key="link_bad")
        return data
