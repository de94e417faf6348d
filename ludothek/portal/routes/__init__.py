"""The routes, one module per concern, each with a ``pages`` router (HTML) and an ``api`` router (JSON).

Route modules import `ludothek.portal.deps` (the request's user, CSRF, language) and
`ludothek.portal.render` (templates, redirects), never anything above them (`app`, `hotpath`,
this package's `mount`).  Where one concern shows another's page (the account page), it imports
that module; no two route modules import each other (``lint-imports`` checks the portal for cycles).
"""

from __future__ import annotations

from fastapi import FastAPI

from ..contract import mount_api
from . import (
    accounts,
    admin,
    botapi,
    chat,
    clocks,
    community,
    friends,
    help,
    lobby,
    notify,
    opendata,
    operations,
    play,
    push,
    statistics,
    tournaments,
    webhooks,
)


def mount(app: FastAPI) -> None:
    """Include every router into ``app``, in the order routes are matched.

    The API first, with the two requests every move makes tried before all others; then the pages:
    the help pages before the rest, so ``/games/<kind>`` never meets ``/games/{game_id}``; the
    operator's routes last, as they are rare.
    """
    mount_api(app, accounts.api, lobby.api, play.api, clocks.api, notify.api, community.api, chat.api,
              friends.api, admin.api, push.api, webhooks.api, botapi.api, tournaments.api, opendata.api,
              statistics.api, hot=("/games/{game_id}/actions", "/games/{game_id}"))
    app.include_router(help.pages)  # before the other pages: /games/<kind> must not meet /games/{game_id}
    app.include_router(statistics.pages)  # /games/<kind>/statistics, before /games/{game_id}
    app.include_router(community.pages)
    app.include_router(lobby.pages)
    app.include_router(accounts.pages)
    app.include_router(play.pages)
    app.include_router(clocks.pages)
    app.include_router(notify.pages)
    app.include_router(push.pages)  # /sw.js, /manifest.webmanifest, /offline, the account page's push forms
    app.include_router(webhooks.pages)
    app.include_router(chat.pages)
    app.include_router(friends.pages)
    app.include_router(admin.pages)
    app.include_router(botapi.pages)  # issue 33: the bot leaderboard
    app.include_router(tournaments.pages)  # issue 31
    app.include_router(opendata.pages)  # the open-data page, its downloads, the account page's opt-out
    app.include_router(operations.router)  # last: matching tries routes in order, and these are rare
