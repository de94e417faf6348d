"""The webhooks as the account page shows them: statuses in words, times in the reader's language and zone.

Its own module (not a route module), so that the account page (`routes.accounts`) and the webhook
routes (`routes.webhooks`) both use it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from ludothek.services.webhooks import HookInfo
from ludothek.texts import t
from ludothek.texts.dates import local_when

#: The status codes a hook keeps (`ludothek.workers.channels.webhook`); the first three carry an HTTP status.
WEBHOOK_STATUSES = ("ok", "http", "redirect", "timeout", "connect", "tls", "protocol", "too_large", "dns", "address")
_NUMBERED = WEBHOOK_STATUSES[:3]
#: Why an address is refused (`ludothek.services.webhook_urls.refusal_of`), as text keys.
WEBHOOK_REASONS = ("loopback", "private", "link_local", "multicast", "reserved", "unspecified", "invalid")
#: The body formats (`ludothek.services.webhooks.FORMATS`), as text keys.
WEBHOOK_FORMATS = ("generic", "discord", "slack")


@dataclass(frozen=True)
class HookView:
    hook: HookInfo
    format_name: str
    last: str | None  # "25 Nov 2026, 18:02 · delivered (HTTP 204)"
    disabled: str | None  # the notice of a hook switched off after failures



def status_text(status: str, lang: str) -> str:
    """A hook's status code (``http 503``, ``timeout``, ``address private``) in words."""
    if not status:
        return ""
    code, _, detail = status.partition(" ")
    if code in _NUMBERED:
        return t(f"webhook_status_{code}", lang, status=detail)
    if code not in WEBHOOK_STATUSES:
        return status
    if code == "address":
        return t("webhook_status_address", lang, reason=t("webhook_reason_" + detail.replace("-", "_"), lang))
    return t(f"webhook_status_{code}", lang)


def format_name(fmt: str, lang: str) -> str:
    return t(f"webhook_format_{fmt}", lang) if fmt in WEBHOOK_FORMATS else fmt


def hook_views(hooks: list[HookInfo], lang: str, timezone: str) -> list[HookView]:
    views = []
    for hook in hooks:
        last = None
        if hook.last_delivery_at is not None and hook.last_status:
            last = f"{local_when(hook.last_delivery_at, lang, timezone)} · {status_text(hook.last_status, lang)}"
        disabled = None
        if hook.disabled_at is not None:
            disabled = t("webhook_disabled_notice", lang, when=local_when(hook.disabled_at, lang, timezone),
                         n=hook.failures, reason=status_text(hook.disabled_reason or "", lang))
        views.append(HookView(hook, format_name(hook.format, lang), last, disabled))
    return views
