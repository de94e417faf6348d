"""A fresh process renders its first pages before it serves (issue 34, cold start; `ludothek.portal.warmup`).

No timing here (that is `benchmarks/bench_cold_start.py`): the warm-up runs in the start-up, stores
nothing and logs nobody in, and a warm-up that fails never stops the start.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from ludothek.portal import create_app
from ludothek.portal.warmup import WARM_PATHS, warm_up
from ludothek.storage.models import User
from tests.portal.conftest import make_settings


def _users(app: Any) -> int:
    with app.state.portal.site.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(User)).scalar_one())


def test_the_start_renders_the_first_pages_and_stores_nothing(db_url: str) -> None:
    app = create_app(make_settings(db_url, warm_up=True))
    with TestClient(app) as client:
        spent = app.state.portal.warm_up_seconds
        assert spent is not None and spent > 0
        # The templates of the first pages are compiled already (Jinja's cache holds them).
        cached = {key[1] for key in app.state.portal.templates.env.cache}
        assert {"home.html", "base.html"} <= cached
        assert _users(app) == 0  # no guest was made, nobody logged in
        assert client.get("/readyz").json()["status"] == "ready"
        assert client.get("/").status_code == 200


def test_without_the_setting_nothing_is_rendered_at_start(db_url: str) -> None:
    app = create_app(make_settings(db_url, warm_up=False))
    with TestClient(app):
        assert app.state.portal.warm_up_seconds is None


def test_a_failing_warm_up_never_stops_the_start() -> None:
    broken = FastAPI()

    @broken.get("/")
    def fails() -> None:
        raise RuntimeError("a page that cannot be rendered")

    assert asyncio.run(warm_up(broken, ("/",))) >= 0  # logged, not raised
    assert "/" in WARM_PATHS
