"""Fixtures for the portal tests: an app on a fresh SQLite file, clients logged in as users."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from ludothek import engine
from ludothek.devtools.postgres import UNREACHABLE, postgres_url, reset_database
from ludothek.portal import Settings, create_app
from tests.conftest import needs
from tests.engine.toygame import GAME as TOY

engine.register(TOY)

#: Cheap hashing keeps the tests fast; production uses argon2's defaults.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


def make_settings(db_url: str, **kw: Any) -> Settings:
    """Test settings: bot turns are played by a bot worker in a thread of the test's app (the same
    claiming code as the ``ludothek bots`` processes), without the pause people need to follow them."""
    kw.setdefault("bots_in_process", True)
    kw.setdefault("exports", False)  # the open-data job (issue 32) runs only where a test asks for it
    kw.setdefault("statistics", False)  # and so does the nightly statistics rebuild
    return Settings(db_url=db_url, bot_delay=0.0, hasher=FAST_HASHER, secret_key="test-secret", **kw)


@pytest.fixture
def db_url(tmp_path: Any) -> str:
    return f"sqlite:///{tmp_path / 'portal.sqlite3'}"


@pytest.fixture
def app(db_url: str) -> Any:
    return create_app(make_settings(db_url))


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def api_user(client: TestClient, name: str) -> dict[str, str]:
    """Register ``name`` through the API; the Authorization header for it."""
    r = client.post("/api/users", json={"name": name, "password": "password-" + name})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def csrf_of(client: TestClient) -> str:
    page = client.get("/login").text
    m = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert m
    return m.group(1)


def page_login(client: TestClient, name: str, register: bool = True) -> str:
    """Register (or log in) through the HTML forms; returns the new CSRF token."""
    token = csrf_of(client)
    r = client.post("/register" if register else "/login",
                    data={"csrf": token, "name": name, "password": "password-" + name}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return csrf_of(client)


def in_one_rate_window(seconds: int, need: float = 5.0) -> None:
    """Return once at least ``need`` seconds are left of the current ``seconds``-long rate-limit window.

    Without Redis the hot-path limits (``move_*``, ``chat_*``) count in sliding-window counters whose
    windows start at whole multiples of ``seconds`` on the clock, and the window before is weighed in
    by how much of it is left, rounded down: requests that straddle such a start may be allowed one
    more than the limit.  A test that checks exactly which request a limit refuses sends its counted
    requests after this, inside one window.
    """
    left = seconds - time.time() % seconds
    if left < need:
        time.sleep(left + 0.05)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_db(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """The URL of an empty database of each kind: SQLite in the test's folder, and this process's
    own PostgreSQL database, emptied before and after (skipped, or failed in CI, without PostgreSQL)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite3'}"
        return
    url = postgres_url()
    needs(None if url else UNREACHABLE)
    assert url is not None
    reset_database(url)
    yield url
    reset_database(url)


def all_pages(client: TestClient, url: str, headers: dict[str, str] | None = None) -> list[Any]:
    """Every item of a paginated API list, following ``next_cursor`` to the last page."""
    items: list[Any] = []
    sep = "&" if "?" in url else "?"
    page = client.get(f"{url}{sep}limit=200", headers=headers).json()
    while True:
        items += page["items"]
        if page["next_cursor"] is None:
            return items
        page = client.get(f"{url}{sep}limit=200&cursor={page['next_cursor']}", headers=headers).json()
