"""The open-tab channel: a notice shown by the player's open tabs (``static/notify.js``).

Delivered through the live hub, as the services reach it (`ludothek.services.Site.user_messages`,
the hub's ``publish_user``): in a server process its own hub, in a ``ludothek worker`` with Redis a
publisher of its own.  The tab shows a browser notification (when the player allowed them) with the
message's title and body, opening its path.  Nothing is kept for a tab that is not open: a tab
notice is handed over once, or skipped where no hub can take it.
Settings: none (it is on when listed in ``LUDOTHEK_CHANNELS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import ClassVar

from ludothek.services import Site

from .base import Delivery, Message, Outcome, Sent, Skipped


class TabChannel:
    name: ClassVar[str] = "tab"
    #: Handing a message to the hub does not fail in a way waiting would mend.
    backoff: ClassVar[Sequence[timedelta]] = ()
    #: Deliveries begun in one transaction (`ludothek.workers.notices.ChannelJob`).  Handing a message to
    #: the hub takes microseconds, so a whole claimed batch is begun at once: one transaction instead of
    #: one per 8 notices.  If the process dies in between, the begun ones are failed, never sent twice;
    #: an open-tab notice only ever mattered to a tab that was open at that moment.
    begin_together: ClassVar[int] = 50

    def __init__(self, site: Site) -> None:
        self.site = site

    def enabled(self) -> bool:
        return True

    def targets(self, user_id: int, kind: str) -> Sequence[int]:
        return [0] if self.site.notices.wants(user_id, self.name, kind) else []

    def deliver(self, delivery: Delivery, message: Message, now: datetime) -> Outcome:
        notice = delivery.notice
        taken = self.site.user_messages.publish(notice.user_id, {
            "type": "notice", "id": notice.id, "kind": notice.kind, "game": notice.game_id,
            "title": message.title, "body": message.body, "path": message.path,
        })
        return Sent() if taken else Skipped("no live hub in this process")
