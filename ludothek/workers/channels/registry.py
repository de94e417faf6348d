"""The channels of a deployment, in order (issue 30).  A new channel is one file in this package,
one line in `FACTORIES`, and its settings (read by its factory from ``ctx.env``).

``LUDOTHEK_CHANNELS`` (comma-separated, default: every channel below, in this order) chooses which
run; a channel whose own settings are missing says so in its ``enabled()``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ludothek.services import Site

from ..mail_links import MailLinks
from .base import Channel

if TYPE_CHECKING:
    from ..mail import Transport


@dataclass
class ChannelContext:
    """What a channel's factory may use: the site, signed links and the public URL, the settings."""

    site: Site
    links: MailLinks
    #: ``LUDOTHEK_*`` settings (the process environment, or what a test hands over).
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    #: The mail transport and sender the portal's settings chose.
    mail_transport: Transport | None = None
    mail_from: str = "Ludothek <noreply@localhost>"
    #: Anything else a deployment hands its channels (tests: a stub's recorder).
    extra: dict[str, Any] = field(default_factory=dict)


def _mail(ctx: ChannelContext) -> Channel:
    from ..mail import transport_from_env
    from .mail import MailChannel

    return MailChannel(ctx.site, ctx.links, ctx.mail_transport or transport_from_env(), ctx.mail_from)


def _tab(ctx: ChannelContext) -> Channel:
    from .tab import TabChannel

    return TabChannel(ctx.site)


def _push(ctx: ChannelContext) -> Channel | None:
    """Web Push, as the deployment's settings made it (``ctx.extra["push"]``, `ludothek.services.push`);
    none where the site sends no push (``LUDOTHEK_PUSH=off``)."""
    channel: Channel | None = ctx.extra.get("push")
    return channel


def _webhook(ctx: ChannelContext) -> Channel:
    from .webhook import WebhookChannel

    return WebhookChannel(ctx.site.webhooks, ctx.links.base_url)


#: Every channel this code knows, in the order notices are fanned out and the account page lists them.
FACTORIES: dict[str, Callable[[ChannelContext], Channel | None]] = {
    "mail": _mail,
    "tab": _tab,
    "push": _push,
    "webhook": _webhook,
}


def channel_names(env: Mapping[str, str]) -> list[str]:
    """The channels ``LUDOTHEK_CHANNELS`` chooses (all by default); an unknown name is refused clearly."""
    raw = env.get("LUDOTHEK_CHANNELS", "").strip()
    if not raw:
        return list(FACTORIES)
    names = [n.strip() for n in raw.split(",") if n.strip()]
    unknown = [n for n in names if n not in FACTORIES]
    if unknown:
        raise ValueError(f"LUDOTHEK_CHANNELS names unknown channels {', '.join(unknown)}; "
                         f"known: {', '.join(FACTORIES)}")
    return list(dict.fromkeys(names))


def build(ctx: ChannelContext, names: Sequence[str] | None = None) -> list[Channel]:
    """The deployment's channels, in order (a factory answers None for a channel its settings switch off)."""
    built = (FACTORIES[name](ctx) for name in (names if names is not None else channel_names(ctx.env)))
    return [channel for channel in built if channel is not None]
