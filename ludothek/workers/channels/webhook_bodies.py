"""What a webhook receives: the body in the hook's format, and the headers that sign it.

- ``generic``: Ludothek's JSON: ``event_id`` (the notice's id: the same notice never comes with two
  ids, so a receiver drops repeats by it), ``kind``, ``game_id``, ``title``, ``body``, ``url``,
  ``lang`` and ``timestamp`` (ISO 8601, UTC).
- ``discord``: Discord's "execute webhook" body: ``content`` (at most 2000 characters), with
  ``allowed_mentions`` empty so that no name in a message can ping ``@everyone``.
- ``slack``: Slack's incoming-webhook body: ``text`` in Slack's mrkdwn, with ``&``, ``<`` and ``>``
  escaped as Slack asks (``<!channel>`` would otherwise ping a whole channel).

Every body is made only of the notice's kind, its game id and its `Message` (what the player reads
anyway): nothing secret goes to a third party's service.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ludothek.services.webhooks import EVENT_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signature

from .base import Message

#: Discord refuses longer ``content``.
DISCORD_MAX = 2000
_DISCORD_MARKUP = re.compile(r"([\\*_~`|>])")


def discord_escape(text: str) -> str:
    """``text`` shown as it is in Discord's markdown (a name like ``*anna*`` stays ``*anna*``)."""
    return _DISCORD_MARKUP.sub(r"\\\1", text)


def slack_escape(text: str) -> str:
    """``text`` as Slack's mrkdwn shows it literally: only ``&``, ``<`` and ``>`` are markup there."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def payload(fmt: str, *, event_id: str, kind: str, game_id: int | None, message: Message, url: str,
            now: datetime) -> Mapping[str, Any]:
    """The JSON object the hook's format wants."""
    if fmt == "discord":
        content = f"**{discord_escape(message.title)}**\n{discord_escape(message.body)}\n{url}"
        if len(content) > DISCORD_MAX:
            tail = f"…\n{url}"
            content = content[: DISCORD_MAX - len(tail)] + tail
        return {"content": content, "allowed_mentions": {"parse": []}}
    if fmt == "slack":
        return {"text": f"*{slack_escape(message.title)}*\n{slack_escape(message.body)}\n<{slack_escape(url)}>"}
    return {"event_id": event_id, "kind": kind, "game_id": game_id, "title": message.title, "body": message.body,
            "url": url, "lang": message.lang, "timestamp": now.isoformat()}


def encode(data: Mapping[str, Any]) -> bytes:
    """The body's bytes: compact UTF-8 JSON (the signature covers exactly these bytes)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def signed_headers(secret: str, body: bytes, event_id: str, now: datetime) -> list[tuple[str, str]]:
    """Content type, event id, timestamp (Unix seconds) and the signature of ``<timestamp>.<body>``."""
    stamp = str(int(now.timestamp()))
    return [("Content-Type", "application/json"), ("User-Agent", "Ludothek-Webhook/1"),
            (EVENT_HEADER, event_id), (TIMESTAMP_HEADER, stamp), (SIGNATURE_HEADER, signature(secret, stamp, body))]
