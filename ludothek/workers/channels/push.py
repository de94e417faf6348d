"""The Web Push channel: a notice becomes a push message to each of the player's subscribed browsers.

Targets are the user's devices (`ludothek.services.push.Push`); each delivery is one message to one
device, encrypted to the browser's keys (aes128gcm, RFC 8291) and signed with the site's VAPID key
(RFC 8292) by ``pywebpush``.  The payload is only the notice's kind and game id and the `Message`'s
short title, body and site path: nothing secret travels through the push service, which can read none
of it anyway.  The service worker (``/sw.js``) shows it and opens the path when it is clicked.

What the push service answers decides the outcome: 201 `Sent`; 404/410 the subscription is gone (the
device is removed, `Failed` with ``gone``); 429 `Retry` after its Retry-After (seconds or a date);
other 5xx and network trouble `Retry` with the channel's back-off; any other answer `Failed`.

The endpoint comes from a browser, so it is treated as untrusted: only https (checked when it was
stored), no redirects followed, a short timeout, and its host must resolve to public addresses only
(unless ``allow_loopback``, for the tests' stand-in push service).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, ClassVar
from urllib.parse import urlsplit

import requests
from pywebpush import WebPushException, webpush

from ludothek.services.push import Device, Push, VapidKeys
from ludothek.services.webhook_urls import refusal_of, system_resolver
from ludothek.texts import t

from .base import Delivery, Failed, Message, Notice, Outcome, Retry, Sent, Skipped, retry_after

log = logging.getLogger(__name__)

#: Kinds that only ever go by mail: they carry links or addresses meant for one inbox.
MAIL_ONLY = frozenset({"verify", "reset", "email_changed", "digest"})
#: How long the push service keeps an undelivered message (a phone that is off): a "your turn" older
#: than this is news nobody needs.
DEFAULT_TTL = 12 * 3600
#: Seconds to wait for the push service.
DEFAULT_TIMEOUT = 5.0
#: Title and body as they travel (a push payload holds at most about 4 KB).
MAX_TITLE = 120
MAX_BODY = 400


class _NoRedirects(requests.Session):
    """A session that never follows a redirect: a push service does not send one, an attacker's
    endpoint might (towards an address inside the network)."""

    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs["allow_redirects"] = False
        return super().request(method, url, *args, **kwargs)


def payload_of(notice: Notice, message: Message) -> str:
    """The JSON a browser receives: kind, game id, and the message's short texts and site path."""
    path = message.path if message.path.startswith("/") and not message.path.startswith("//") else "/"
    return json.dumps({"kind": notice.kind, "game": notice.game_id, "title": message.title[:MAX_TITLE],
                       "body": message.body[:MAX_BODY], "path": path, "lang": message.lang},
                      ensure_ascii=False, separators=(",", ":"))




def public_only(host: str, port: int) -> str | None:
    """Why ``host`` must not be sent to (it resolves to an address inside a network), or None.

    The same judgement as for webhooks (`ludothek.services.webhook_urls`), loopback included."""
    try:
        addresses = system_resolver(host, port)
    except OSError as exc:
        return f"cannot resolve the push service's host ({exc.__class__.__name__})"
    if any(refusal_of(address, allow_loopback=False) for address in addresses):
        return "the push service's host resolves to a private address"
    return None


class PushChannel:
    """Web Push to every subscribed browser of a player (`ludothek.workers.channels.base.Channel`)."""

    name: ClassVar[str] = "push"
    backoff: ClassVar[Sequence[timedelta]] = (
        timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2))

    def __init__(self, push: Push, keys: VapidKeys, *, prefs: Callable[[int, str], bool] | None = None,
                 ttl: int = DEFAULT_TTL, timeout: float = DEFAULT_TIMEOUT, allow_loopback: bool = False,
                 on: bool = True) -> None:
        self.push = push
        self.keys = keys
        #: Whether ``user_id`` wants ``kind`` by push (the seam's preferences); None: every kind.
        self.prefs = prefs
        self.ttl = ttl
        self.timeout = timeout
        self.allow_loopback = allow_loopback
        self.on = on
        self._signer = keys.signer()
        self._local = threading.local()

    def enabled(self) -> bool:
        return self.on

    @property
    def public_key(self) -> str:
        """The browsers' ``applicationServerKey``."""
        return self.keys.public_key

    def targets(self, user_id: int, kind: str) -> Sequence[int]:
        if not self.on or kind in MAIL_ONLY:
            return []
        if self.prefs is not None and not self.prefs(user_id, kind):
            return []
        return self.push.device_ids(user_id)

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = _NoRedirects()
        return session

    def deliver(self, delivery: Delivery, message: Message, now: datetime) -> Outcome:
        device = self.push.device(delivery.target)
        if device is None or device.user_id != delivery.notice.user_id:
            return Skipped("the device is no longer subscribed")
        return self.send(device, delivery.notice, message, now)

    def send(self, device: Device, notice: Notice, message: Message, now: datetime) -> Outcome:
        """One message to one device, and what came of it (never raises for a delivery problem)."""
        parts = urlsplit(device.endpoint)
        if not self.allow_loopback:
            problem = public_only(parts.hostname or "", parts.port or 443)
            if problem is not None:
                return Failed(problem)
        claims: dict[str, str | int] = {
            "sub": self.keys.subject, "aud": f"{parts.scheme}://{parts.netloc}",
            "exp": int(now.timestamp()) + 12 * 3600}
        headers: dict[str, str | int | float] = {"Urgency": "normal"}
        if notice.game_id is not None:
            # A newer message of the same kind for the same game replaces one still waiting at the service.
            headers["Topic"] = f"{notice.kind}-{notice.game_id}"[:32]
        try:
            webpush(device.subscription_info(), data=payload_of(notice, message), vapid_private_key=self._signer,
                    vapid_claims=claims, timeout=self.timeout, ttl=self.ttl, headers=headers,
                    requests_session=self._session())
        except WebPushException as exc:
            return self._refused(device, exc, now)
        except requests.RequestException as exc:
            return Retry(f"the push service did not answer ({exc.__class__.__name__})")
        except Exception as exc:  # a key the encryption cannot use: nothing later would do better
            return Failed(f"the message could not be encrypted or signed ({exc.__class__.__name__})")
        self.push.mark_success(device.id, now)
        return Sent()

    def _refused(self, device: Device, exc: WebPushException, now: datetime) -> Outcome:
        status = exc.status_code
        if status is None:
            return Failed(f"the message could not be prepared: {exc.message}"[:200])
        if status in (404, 410):
            self.push.remove_gone(device.id, device.endpoint)
            return Failed(f"the push service says the subscription is gone ({status})", gone=True)
        if status == 429:
            return Retry("the push service asks to slow down (429)", retry_after(exc.retry_after, now))
        if status >= 500:
            return Retry(f"the push service failed ({status})", retry_after(exc.retry_after, now))
        return Failed(f"the push service refused the message ({status})")

    def test(self, user_id: int, lang: str, now: datetime) -> list[tuple[Device, Outcome]]:
        """A test message to each of the user's devices, straight through (no outbox): the account page's
        button.  The caller limits how often."""
        notice = Notice(id=0, user_id=user_id, kind="test", game_id=None, seq=None, payload={}, created_at=now)
        message = Message(lang, t("push_test_title", lang), t("push_test_body", lang), "/account#push")
        return [(device, self.send(device, notice, message, now)) for device in self.push.devices(user_id)]


def push_channel(push: Push, *, subject: str, private_key: str | None = None, private_key_file: str | None = None,
                 allow_loopback: bool = False, on: bool = True,
                 prefs: Callable[[int, str], bool] | None = None) -> PushChannel:
    """The channel for a site's settings: the VAPID key from the setting or file, else from the database
    (made now on the first start).  `ValueError` with the reason for a key or subject that cannot work."""
    if private_key_file:
        try:
            with open(private_key_file, encoding="utf-8") as f:
                private_key = f.read()
        except OSError as exc:
            raise ValueError(f"cannot read the VAPID private key file {private_key_file}: {exc.strerror}") from None
    push.allow_loopback = allow_loopback
    keys = push.vapid_keys(subject, private_key)
    return PushChannel(push, keys, prefs=prefs, allow_loopback=allow_loopback, on=on)
