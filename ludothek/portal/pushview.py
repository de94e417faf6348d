"""The Web Push section of the account page, as data: the site's public key and the user's devices.

Used by the account page (`ludothek.portal.routes.accounts.account_page`) and by the push routes
(`ludothek.portal.routes.push`); it imports neither, so no route module imports another for it.
"""

from __future__ import annotations

import hashlib
import zoneinfo
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from babel.dates import format_datetime

from ludothek.storage import UserInfo

from .deps import portal_of


@dataclass(frozen=True)
class DeviceView:
    """One device as its owner sees it (never its endpoint)."""

    id: int
    label: str
    created: str
    last_success: str | None
    #: A short hash of the endpoint: the page's script recognises this browser's row without the endpoint.
    endpoint_hash: str


def local_datetime(when: datetime, lang: str, timezone: str) -> str:
    """A moment as the reader writes it, in their time zone (Babel): "29.11.2026, 10:15"."""
    try:
        zone = zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    return str(format_datetime(when, format="short", tzinfo=zone, locale=lang))


def endpoint_hash(endpoint: str) -> str:
    """What the page's script compares with its own subscription (SHA-256, the first 16 hex digits)."""
    return hashlib.sha256(endpoint.encode()).hexdigest()[:16]


def push_section(request: Any, user: UserInfo) -> dict[str, Any]:
    """What ``_push_settings.html`` shows: ``None`` when this site runs no Web Push."""
    portal = portal_of(request)
    channel = portal.push
    if channel is None or not channel.enabled():
        return {"push": None}
    timezone = portal.site.notify.prefs(user.id).timezone
    devices = [DeviceView(d.id, d.label, local_datetime(d.created_at, user.lang, timezone),
                          local_datetime(d.last_success_at, user.lang, timezone) if d.last_success_at else None,
                          endpoint_hash(d.endpoint))
               for d in portal.site.push.devices(user.id)]
    return {"push": {"public_key": channel.public_key, "devices": devices,
                     "endpoint_hashes": [d.endpoint_hash for d in devices],
                     "max_devices": portal.site.push.max_devices}}
