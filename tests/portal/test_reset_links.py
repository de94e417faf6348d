"""Reset links: only the newest works, a used or stale one says so when opened (issue 30, item 6).

Asking for a reset link ends every link asked for before (sent or still queued: the queued mail is not
sent at all), using one ends every other (the credentials generation, issue 28), and opening a link
that can no longer work shows why at once, not a form that refuses only on submit.  SQLite and
PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.storage.models import utcnow
from tests.portal.conftest import api_user, csrf_of, make_settings
from tests.portal.mail_support import Sink, smtp_server

BASE = "http://testserver"


@pytest.fixture
def smtp() -> Iterator[tuple[Sink, int]]:
    with smtp_server() as server:
        yield server


@pytest.fixture
def client(any_db: str, smtp: tuple[Sink, int]) -> Iterator[TestClient]:
    app = create_app(make_settings(any_db, smtp_url=f"smtp://127.0.0.1:{smtp[1]}", mail_interval=0, base_url=BASE))
    with TestClient(app) as c:
        yield c


def send(client: TestClient) -> None:
    client.app.state.mail_job.run_once(utcnow())  # type: ignore[attr-defined]


def with_address(client: TestClient, sink: Sink, name: str) -> dict[str, str]:
    h = api_user(client, name)
    r = client.post("/api/me/email", json={"address": f"{name}@example.org", "password": "password-" + name},
                    headers=h)
    assert r.status_code == 202, r.text
    send(client)
    (mail,) = sink.take()
    assert client.get(mail.link("/mail/verify/")).status_code == 200
    return h


def ask(client: TestClient, sink: Sink, who: str) -> list[str]:
    """Ask for a reset link and send what is queued; the paths of the links that went out."""
    assert client.post("/api/password-reset", json={"who": who}).status_code == 202
    send(client)
    return [m.link("/password-reset/").removeprefix(BASE) for m in sink.take() if "/password-reset/" in m.text()]


def test_a_new_link_ends_the_one_before(client: TestClient, smtp: tuple[Sink, int]) -> None:
    sink = smtp[0]
    with_address(client, sink, "alice")
    (first,) = ask(client, sink, "alice")
    (second,) = ask(client, sink, "alice")
    page = client.get(first)
    assert page.status_code == 400 and "newer" in page.text and 'name="password"' not in page.text, page.text
    r = client.post(first, data={"csrf": csrf_of(client), "password": "first-password"})
    assert r.status_code == 400 and "newer" in r.text
    r = client.post("/api/password-reset/confirm", json={"token": first.rsplit("/", 1)[1], "password": "first-password"})
    assert r.status_code == 400 and r.json()["code"] == "bad_link"
    assert client.post("/api/tokens", json={"name": "alice", "password": "first-password"}).status_code == 401
    assert 'name="password"' in client.get(second).text  # the newest one works
    r = client.post(second, data={"csrf": csrf_of(client), "password": "second-password"})
    assert r.status_code == 200 and "Password changed" in r.text
    assert client.post("/api/tokens", json={"name": "alice", "password": "second-password"}).status_code == 201


def test_a_queued_link_asked_for_again_goes_out_once(client: TestClient, smtp: tuple[Sink, int]) -> None:
    sink = smtp[0]
    with_address(client, sink, "alice")
    for _ in range(2):
        assert client.post("/api/password-reset", json={"who": "alice"}).status_code == 202
    send(client)
    assert len([m for m in sink.take() if "/password-reset/" in m.text()]) == 1


def test_a_used_link_says_so_when_opened(client: TestClient, smtp: tuple[Sink, int]) -> None:
    sink = smtp[0]
    with_address(client, sink, "alice")
    (link,) = ask(client, sink, "alice")
    assert client.post(link, data={"csrf": csrf_of(client), "password": "a-new-password"}).status_code == 200
    page = client.get(link)
    assert page.status_code == 400 and "used already" in page.text and 'name="password"' not in page.text


def test_a_stale_link_says_so_when_opened(client: TestClient, smtp: tuple[Sink, int]) -> None:
    sink = smtp[0]
    h = with_address(client, sink, "alice")
    (link,) = ask(client, sink, "alice")
    r = client.post("/api/password", json={"current": "password-alice", "new": "changed-password"}, headers=h)
    assert r.status_code == 204
    page = client.get(link)
    assert page.status_code == 400 and "no longer fits" in page.text and 'name="password"' not in page.text


def test_the_link_after_an_undo_ends_the_thiefs_link(client: TestClient, smtp: tuple[Sink, int]) -> None:
    """An undone address change sends a reset link to the restored address: it ends every earlier one."""
    sink = smtp[0]
    h = with_address(client, sink, "alice")
    (own,) = ask(client, sink, "alice")
    r = client.request("DELETE", "/api/me/email", headers=h, json={"password": "password-alice"})
    assert r.status_code == 204
    send(client)
    (notice,) = sink.take()
    r = client.post("/api/mail/undo", json={"token": notice.link("/mail/undo/").rsplit("/", 1)[1]})
    assert r.status_code == 200
    send(client)
    (restored,) = [m.link("/password-reset/").removeprefix(BASE) for m in sink.take()]
    assert client.get(own).status_code == 400
    assert 'name="password"' in client.get(restored).text
