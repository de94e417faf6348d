"""The webhook channel: each notice POSTed, signed, to every webhook its player switched on.

Targets are the player's hooks that are on (`ludothek.services.webhooks`); a delivery is one notice
to one hook.  An attempt

- finds the hook again (gone or switched off meanwhile: `Skipped`, never retried);
- checks its address again (`ludothek.services.webhook_urls`: a name may lead elsewhere today) and
  connects to the address it checked (`webhook_http`), with one short deadline and a cap on the answer;
- judges the answer: 2xx is `Sent`; 429, 5xx, timeouts and unreachable receivers are `Retry` (after
  the receiver's ``Retry-After`` if it gave one, else the channel's `BACKOFF`); a redirect, another
  4xx, an answer over the size cap or an address that is not public are `Failed` (trying again
  would not help);
- records how it went on the hook: each failed attempt counts, a success forgets them, and the
  failure that reaches the site's limit switches the hook off (its owner sees why on the account page).

Only game notices go to webhooks (`KINDS`): never the account mails (reset and verification links
are secrets, and a third party's chat is no place for them).
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import ClassVar

import httpcore

from ludothek.services.webhook_urls import AddressRefused, Target
from ludothek.services.webhooks import HookInfo, Webhooks
from ludothek.storage.errors import BadRequest

from . import webhook_http
from .base import Delivery, Failed, Message, Notice, Outcome, Retry, Sent, Skipped, retry_after
from .webhook_bodies import encode, payload, signed_headers

log = logging.getLogger(__name__)

#: The notice kinds a webhook carries (`ludothek.services.notices.kinds`, less the account mails), and
#: ``test``, the owner's "send a test" button.
KINDS = frozenset({"turn", "reminder", "timed_out", "invited", "invite_declined", "abandon_offered",
                   "abandon_declined", "ended", "friend_request", "test"})
#: Waits before the 2nd ... 6th attempt: about a day and a half in all, then the delivery has failed.
BACKOFF = (timedelta(seconds=30), timedelta(minutes=2), timedelta(minutes=10), timedelta(hours=1),
           timedelta(hours=6), timedelta(hours=24))

Poster = Callable[[Target, bytes, Sequence[tuple[str, str]], float, int], webhook_http.Answer]


def _post(target: Target, body: bytes, headers: Sequence[tuple[str, str]], timeout: float,
          max_answer: int) -> webhook_http.Answer:
    return webhook_http.post(target, body, headers, timeout, max_answer)




class WebhookChannel:
    """`ludothek.workers.channels.base.Channel` for webhooks; ``base_url`` makes a message's path absolute."""

    name: ClassVar[str] = "webhook"
    backoff: ClassVar[Sequence[timedelta]] = BACKOFF

    def __init__(self, hooks: Webhooks, base_url: str, poster: Poster = _post) -> None:
        self.hooks = hooks
        self.base_url = base_url.rstrip("/")
        self.poster = poster

    def enabled(self) -> bool:
        """Always: a player without a webhook simply has no targets."""
        return True

    def targets(self, user_id: int, kind: str) -> Sequence[int]:
        if kind not in KINDS:
            return []
        return self.hooks.enabled_ids(user_id)

    def targets_many(self, wanted: Sequence[tuple[int, str]]) -> list[Sequence[int]]:
        """`targets` for a fan-out's whole batch in one query (`FanOut` uses it where a channel has it)."""
        hooks = self.hooks.enabled_ids_of([user_id for user_id, kind in wanted if kind in KINDS])
        return [hooks.get(user_id, []) if kind in KINDS else [] for user_id, kind in wanted]

    def deliver(self, delivery: Delivery, message: Message, now: datetime) -> Outcome:
        hook = self.hooks.hook(delivery.target)
        if hook is None or hook.user_id != delivery.notice.user_id:
            return Skipped("the webhook is gone")
        if not hook.enabled:
            return Skipped("the webhook is switched off")
        event_id = str(delivery.extra.get("event_id") or delivery.notice.id)
        outcome, status = self._attempt(hook, delivery.notice, event_id, message, now)
        self.hooks.record(hook.id, isinstance(outcome, Sent), status, now)
        return outcome

    def send_test(self, hook: HookInfo, message: Message, event_id: str, now: datetime) -> Outcome:
        """One attempt at once to ``hook`` (its owner's "send a test"), switched on or not; recorded like any."""
        notice = Notice(id=0, user_id=hook.user_id, kind="test", game_id=None, seq=None, payload={}, created_at=now)
        outcome, status = self._attempt(hook, notice, event_id, message, now)
        self.hooks.record(hook.id, isinstance(outcome, Sent), status, now)
        return outcome

    def _attempt(self, hook: HookInfo, notice: Notice, event_id: str, message: Message,
                 now: datetime) -> tuple[Outcome, str]:
        """One POST and its outcome, with the short status the hook keeps (``ok 204``, ``http 500`` ...)."""
        policy = self.hooks.policy
        url = self.base_url + message.path
        body = encode(payload(hook.format, event_id=event_id, kind=notice.kind, game_id=notice.game_id,
                              message=message, url=url, now=now))
        try:
            target = self.hooks.target(hook.url)
        except AddressRefused as exc:
            if exc.reason == "dns":  # the name may resolve again later
                return Retry("the webhook's host name could not be resolved"), "dns"
            return Failed(f"the webhook's address is refused ({exc.reason})"), f"address {exc.reason}"
        except BadRequest:  # its form is no longer allowed (the operator switched loopback and http off)
            return Failed("the webhook's address is refused"), "address invalid"
        try:
            answer = self.poster(target, body, signed_headers(hook.secret, body, event_id, now),
                                 policy.timeout, policy.max_answer)
        except httpcore.TimeoutException:
            return Retry("the webhook did not answer in time"), "timeout"
        except httpcore.ConnectError as exc:
            if isinstance(exc.__cause__ or exc.__context__, ssl.SSLError):  # httpcore wraps TLS failures
                return Retry("the webhook's TLS certificate could not be verified"), "tls"
            return Retry("the webhook could not be reached"), "connect"
        except (httpcore.ProtocolError, httpcore.NetworkError, OSError) as exc:
            log.info("webhook %s: %s", hook.id, type(exc).__name__)
            return Retry("the webhook's answer broke off"), "protocol"
        return self._judge(answer, now)

    @staticmethod
    def _judge(answer: webhook_http.Answer, now: datetime) -> tuple[Outcome, str]:
        code = answer.status
        if answer.too_large:
            return Failed(f"the webhook's answer is larger than allowed (HTTP {code})"), "too_large"
        if 200 <= code < 300:
            return Sent(), f"ok {code}"
        if 300 <= code < 400:
            return Failed(f"the webhook redirects (HTTP {code}); redirects are not followed"), f"redirect {code}"
        if code == 429 or code >= 500:
            return Retry(f"the webhook answered HTTP {code}", retry_after(answer.retry_after, now)), f"http {code}"
        return Failed(f"the webhook refused the notice (HTTP {code})"), f"http {code}"
