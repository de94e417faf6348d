"""A fresh process pays its first request's costs before it serves (issue 34, cold start).

The first page a new server process renders used to cost a third of a second of CPU more than the
second one (the templates compiled, the catalogues and Babel's locale data read, the first queries
prepared, the routes' models built), and every deploy is a cold start for every player at once.
`warm_up` runs in the application's start-up (its lifespan), which uvicorn completes before it
accepts a connection, so that cost is paid before the port serves and the readiness probe
(``/readyz``) answers only afterwards.

It renders the pages a visitor opens first through the application itself, in both languages,
without a network and without a session: nothing is stored, nobody is logged in.  A warm-up that
fails is logged and never stops the start (the first visitor then pays, as before).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import httpx
from fastapi import FastAPI

from ludothek.engine import LANGS

log = logging.getLogger(__name__)

#: The pages a visitor opens first: the home page, the games and their rules, the new-game form.
WARM_PATHS: Sequence[str] = ("/", "/games", "/rules", "/new")


async def warm_up(app: FastAPI, paths: Sequence[str] = WARM_PATHS) -> float:
    """Render ``paths`` in every language through ``app`` (no lifespan, no network); the CPU seconds spent."""
    started = time.process_time()
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 0))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://warm-up.invalid") as client:
            for lang in LANGS:
                for path in paths:
                    answer = await client.get(path, params={"lang": lang}, headers={"Accept": "text/html"})
                    if answer.status_code >= 500:
                        log.warning("warm-up: %s answered %s", path, answer.status_code)
    except Exception:  # never fatal: the first visitor pays instead
        log.exception("the warm-up failed; the first requests will be slower")
    return time.process_time() - started


__all__ = ["WARM_PATHS", "warm_up"]
