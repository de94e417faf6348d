"""The chat panel of the game page: shown by the game page and the chat page alike."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from ludothek.services.community.chat import MAX_CHAT_LENGTH, REPORT_REASONS
from ludothek.storage import GameInfo, UserInfo

from .deps import portal_of

#: How many of the latest messages the game page shows (the chat page shows them all).
PAGE_MESSAGES = 100


def chat_context(request: Request, info: GameInfo, user: UserInfo | None, limit: int = PAGE_MESSAGES) -> dict[str, Any]:
    """What the game page's chat panel needs: None where the viewer may not read the chat."""
    site = portal_of(request).site
    if site.chat.chat_access(info, user) is None:
        return {"chat": None}
    return {"chat": site.chat.chat(info.id, user, limit=limit), "chat_max": MAX_CHAT_LENGTH,
            "report_reasons": REPORT_REASONS}
