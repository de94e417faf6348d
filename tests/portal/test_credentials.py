"""Credentials that must not outlive a change (issue 28, items 7-9), on SQLite and PostgreSQL.

- 7: a login that checked the old password creates no working session or token after a password
  change or reset (credentials generations);
- 8: changing the address and making or revoking tokens need the current password; the replaced
  address is told and can undo the change once;
- 9: reset links die with any password change, reset or address change, and are bound to their address.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from ludothek.portal import create_app
from ludothek.storage import Unauthorized
from ludothek.storage.models import ApiToken, OutboxRow, SessionRow, UserEmail, utcnow
from tests.portal.conftest import api_user, csrf_of, make_settings, page_login
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


@pytest.fixture
def sink(smtp: tuple[Sink, int]) -> Sink:
    return smtp[0]


def site_of(client: TestClient) -> Any:
    return client.app.state.portal.site  # type: ignore[attr-defined]


def send(client: TestClient) -> None:
    client.app.state.mail_job.run_once(utcnow())  # type: ignore[attr-defined]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def count(client: TestClient, model: Any) -> int:
    with site_of(client).engine.begin() as conn:
        return int(conn.execute(select(func.count()).select_from(model)).scalar_one())


def uid_of(client: TestClient, headers: dict[str, str]) -> int:
    return int(client.get("/api/me", headers=headers).json()["id"])


def verified(client: TestClient, sink: Sink, headers: dict[str, str], address: str, password: str) -> None:
    r = client.post("/api/me/email", json={"address": address, "password": password}, headers=headers)
    assert r.status_code == 202, r.text
    send(client)
    mails = [m for m in sink.take() if address in m.rcpt and "/mail/verify/" in m.text()]
    assert len(mails) == 1
    assert client.get(mails[0].link("/mail/verify/")).status_code == 200
    assert client.get("/api/me/notifications", headers=headers).json()["email"]["address"] == address


def after_password_check(client: TestClient, monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> None:
    """Run ``action`` once, right after the next password verification succeeds: the moment a login
    has checked the password and not yet created its session or token."""
    hasher = site_of(client).accounts.hasher
    real = hasher.verify
    armed = [True]

    def verify(*args: Any, **kwargs: Any) -> Any:
        ok = real(*args, **kwargs)
        if armed[0]:
            armed[0] = False
            action()
        return ok

    monkeypatch.setattr(hasher, "verify", verify)


# ----------------------------------------------------------------------------- item 7
def test_a_login_checked_before_a_password_change_creates_nothing(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deterministic race: the login checks the old password, the password changes, then the login
    tries to create its token (API) or session (page): refused, nothing created."""
    h = api_user(client, "alice")
    uid = uid_of(client, h)
    site = site_of(client)
    after_password_check(client, monkeypatch,
                         lambda: site.sessions.change_password(uid, "password-alice", "new-password-1"))
    tokens = count(client, ApiToken)
    r = client.post("/api/tokens", json={"name": "alice", "password": "password-alice"})
    assert r.status_code == 401, f"a login that checked the old password got {r.status_code}: {r.text}"
    assert count(client, ApiToken) == tokens - 1  # the change ended alice's registration token; nothing new
    # The page's login, against a second change.
    browser = TestClient(client.app)
    csrf = csrf_of(browser)
    after_password_check(client, monkeypatch,
                         lambda: site.sessions.change_password(uid, "new-password-1", "new-password-2"))
    sessions = count(client, SessionRow)
    r = browser.post("/login", data={"csrf": csrf, "name": "alice", "password": "new-password-1"},
                     follow_redirects=False)
    assert r.status_code == 401 and "Wrong user name or password" in r.text
    assert count(client, SessionRow) == sessions
    assert browser.get("/api/me").status_code == 401
    # Without a change in between, both work.
    assert client.post("/api/tokens", json={"name": "alice", "password": "new-password-2"}).status_code == 201


def test_service_refuses_a_credential_of_an_old_generation(client: TestClient) -> None:
    """The same race at the service level, for a password change and for a reset."""
    site = site_of(client)
    alice = site.accounts.register("alice", "password-alice")
    _, gen = site.accounts.check_login("alice", "password-alice")
    site.sessions.change_password(alice.id, "password-alice", "new-password-1")
    with pytest.raises(Unauthorized):
        site.sessions.open_session(alice.id, gen)
    with pytest.raises(Unauthorized):
        site.sessions.create_token(alice.id, "late", gen=gen)
    assert count(client, SessionRow) == 0 and count(client, ApiToken) == 0
    # A reset: give alice an address, check the password, reset, then create.
    with site.engine.begin() as conn:
        conn.execute(UserEmail.__table__.insert().values(user_id=alice.id, address="a@example.org"))
    _, gen = site.accounts.check_login("alice", "new-password-1")
    site.notify.reset_password(alice.id, "nonce-1", "reset-password", gen, "a@example.org",
                               site.notify.reset_generation(alice.id))
    with pytest.raises(Unauthorized):
        site.sessions.open_session(alice.id, gen)
    with pytest.raises(Unauthorized):
        site.sessions.create_token(alice.id, "late", gen=gen)
    _, gen = site.accounts.check_login("alice", "reset-password")
    assert site.sessions.user_by_token(site.sessions.create_token(alice.id, "now", gen=gen)) is not None


def test_threaded_logins_around_a_password_change(any_db: str) -> None:
    """Several logins with the old password race a change: none of their tokens works afterwards."""
    with TestClient(create_app(make_settings(any_db, rate_limits=False))) as client:
        site = site_of(client)
        for round_ in range(4):
            name = f"user{round_}"
            h = api_user(client, name)
            uid = uid_of(client, h)
            old = "password-" + name
            changed = threading.Event()
            tokens: list[str] = []
            lock = threading.Lock()

            def login(old: str = old, name: str = name, changed: threading.Event = changed,
                      tokens: list[str] = tokens, lock: threading.Lock = lock) -> None:
                c = TestClient(client.app)
                after = 0
                while after < 4:
                    done_before = changed.is_set()
                    r = c.post("/api/tokens", json={"name": name, "password": old})
                    assert r.status_code in (201, 401, 429), r.text
                    if r.status_code == 201:
                        with lock:
                            tokens.append(r.json()["token"])
                    if done_before:
                        after += 1

            threads = [threading.Thread(target=login) for _ in range(4)]
            for t in threads:
                t.start()
            site.sessions.change_password(uid, old, "a-new-password")
            changed.set()
            for t in threads:
                t.join()
            alive = [t for t in tokens if client.get("/api/me", headers=bearer(t)).status_code == 200]
            assert alive == [], f"{len(alive)} of {len(tokens)} tokens from the old password survived"
            assert client.get("/api/me", headers=h).status_code == 401


# ----------------------------------------------------------------------------- item 8
def test_changing_the_address_needs_the_password(client: TestClient) -> None:
    h = api_user(client, "alice")
    outbox = count(client, OutboxRow)
    for body in ({"address": "thief@example.org"}, {"address": "thief@example.org", "password": "guess-guess"}):
        r = client.post("/api/me/email", json=body, headers=h)
        assert r.status_code == 401, r.text
    assert client.get("/api/me/notifications", headers=h).json()["email"] == {"address": None, "pending": None}
    assert count(client, OutboxRow) == outbox
    csrf = page_login(client, "bob")
    r = client.post("/account/email", data={"csrf": csrf, "address": "thief@example.org"})
    assert r.status_code == 401 and "needs your current password" in r.text
    r = client.post("/account/email", data={"csrf": csrf, "address": "thief@example.org", "password": "nope-nope"})
    assert r.status_code == 401 and "current password is wrong" in r.text
    assert count(client, OutboxRow) == outbox
    r = client.post("/account/email", data={"csrf": csrf, "address": "bob@example.org", "password": "password-bob"})
    assert r.status_code == 200 and "bob@example.org" in r.text
    r = client.request("DELETE", "/api/me/email", headers=h)
    assert r.status_code == 401


def test_wrong_passwords_on_sensitive_changes_count_for_the_login_brake(client: TestClient) -> None:
    h = api_user(client, "alice")
    codes = [client.post("/api/me/email", json={"address": "x@example.org", "password": f"wrong-{i}"},
                         headers=h).status_code for i in range(6)]
    assert codes[:5] == [401] * 5 and codes[5] == 429


def test_tokens_need_the_password_but_guests_have_none(client: TestClient) -> None:
    csrf = page_login(client, "alice")
    r = client.post("/account/tokens", data={"csrf": csrf, "label": "bot"})
    assert r.status_code == 401 and count(client, ApiToken) == 0
    assert 'name="password"' in client.get("/account").text
    # A guest has no password: its session is all it has, and it may make and revoke tokens.
    guest = TestClient(client.app)
    csrf = csrf_of(guest)
    assert guest.post("/guest", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    csrf = csrf_of(guest)
    r = guest.post("/account/tokens", data={"csrf": csrf, "label": "guest bot"})
    assert r.status_code == 200, r.text
    token = re.search(r'id="new-token">([^<]+)<', r.text).group(1)  # type: ignore[union-attr]
    tid = guest.get("/api/tokens", headers=bearer(token)).json()["items"][0]["id"]
    assert guest.delete(f"/api/tokens/{tid}", headers=bearer(token)).status_code == 204


def test_the_old_address_is_told_and_can_undo_the_change(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    verified(client, sink, h, "alice@example.org", "password-alice")
    # A thief who knows the password (phished) moves the account to their address.
    verified(client, sink, h, "thief@example.org", "password-alice")
    send(client)
    notices = [m for m in sink.take() if m.rcpt == ["alice@example.org"]]
    assert len(notices) == 1 and "thief@example.org" in notices[0].text()
    assert notices[0].subject == "The e-mail address of your Ludothek account was changed"
    link = notices[0].link("/mail/undo/")
    page = client.get(link)  # a link scanner's GET changes nothing
    assert page.status_code == 200 and 'id="undo"' in page.text
    assert client.get("/api/me/notifications", headers=h).json()["email"]["address"] == "thief@example.org"
    r = client.post(link)
    assert r.status_code == 200 and "alice@example.org" in r.text, r.text
    assert client.get("/api/me", headers=h).status_code == 401  # every credential ended
    assert count(client, SessionRow) == 0 and count(client, ApiToken) == 0
    # The password the thief knows is locked; a reset link went to the restored address.
    assert client.post("/api/tokens", json={"name": "alice", "password": "password-alice"}).status_code == 401
    send(client)
    resets = [m for m in sink.take() if "/password-reset/" in m.text()]
    assert [m.rcpt for m in resets] == [["alice@example.org"]]
    token = resets[0].link("/password-reset/").rsplit("/", 1)[1]
    assert client.post("/api/password-reset/confirm", json={"token": token, "password": "mine-again"}
                       ).status_code == 204
    assert client.post("/api/tokens", json={"name": "alice", "password": "mine-again"}).status_code == 201
    # Once only.
    again = client.post(link)
    assert again.status_code == 400 and "used already" in again.text


def test_the_german_notice_and_an_older_undo_link_after_a_later_change(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "anna")
    uid = uid_of(client, h)
    site_of(client).accounts.set_lang(uid, "de")
    verified(client, sink, h, "anna@example.org", "password-anna")
    verified(client, sink, h, "b@example.org", "password-anna")
    send(client)
    first = [m for m in sink.take() if m.rcpt == ["anna@example.org"]]
    assert first[0].subject == "Die E-Mail-Adresse deines Ludothek-Kontos wurde geändert"
    verified(client, sink, h, "c@example.org", "password-anna")
    send(client)
    second = [m for m in sink.take() if m.rcpt == ["b@example.org"]]
    assert len(second) == 1
    # A thief holding b@ undoes the second change first: b@ is back, but anna's link still undoes the
    # first change, and after that the thief's link is spent.
    thief_token = second[0].link("/mail/undo/").rsplit("/", 1)[1]
    assert client.post("/api/mail/undo", json={"token": thief_token}).json() == {"address": "b@example.org"}
    send(client)
    thief_reset = [m for m in sink.take() if "/password-reset/" in m.text()]
    assert [m.rcpt for m in thief_reset] == [["b@example.org"]]
    r = client.post(first[0].link("/mail/undo/"))
    assert r.status_code == 200 and "anna@example.org ist wieder die Adresse" in r.text, r.text
    r = client.post("/api/mail/undo", json={"token": thief_token})
    assert r.status_code == 400 and "used already" in r.json()["detail"], r.text
    # The reset link the thief got died with the owner's undo (address and generation changed).
    stale = thief_reset[0].link("/password-reset/").rsplit("/", 1)[1]
    r = client.post("/api/password-reset/confirm", json={"token": stale, "password": "thief-password"})
    assert r.status_code == 400, r.text
    send(client)
    assert [m.rcpt for m in sink.take() if "/password-reset/" in m.text()] == [["anna@example.org"]]
    assert site_of(client).notify.email_of(uid).address == "anna@example.org"


def test_removing_the_address_needs_the_password_and_tells_it(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    verified(client, sink, h, "alice@example.org", "password-alice")
    assert client.request("DELETE", "/api/me/email", headers=h, json={"password": "wrong-one"}).status_code == 401
    r = client.request("DELETE", "/api/me/email", headers=h, json={"password": "password-alice"})
    assert r.status_code == 204
    send(client)
    notices = [m for m in sink.take() if m.rcpt == ["alice@example.org"]]
    assert len(notices) == 1 and "was removed" in notices[0].text()
    r = client.post("/api/mail/undo", json={"token": notices[0].link("/mail/undo/").rsplit("/", 1)[1]})
    assert r.status_code == 200 and r.json() == {"address": "alice@example.org"}


# ----------------------------------------------------------------------------- item 9
def reset_link(client: TestClient, sink: Sink, who: str) -> str:
    assert client.post("/api/password-reset", json={"who": who}).status_code == 202
    send(client)
    mails = [m for m in sink.take() if "/password-reset/" in m.text()]
    assert len(mails) == 1
    return mails[0].link("/password-reset/").rsplit("/", 1)[1]


def test_a_reset_link_dies_with_a_password_change(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    verified(client, sink, h, "alice@example.org", "password-alice")
    token = reset_link(client, sink, "alice")
    r = client.post("/api/password", json={"current": "password-alice", "new": "changed-password"}, headers=h)
    assert r.status_code == 204
    r = client.post("/api/password-reset/confirm", json={"token": token, "password": "attacker-password"})
    assert r.status_code == 400, r.text
    assert client.post("/api/tokens", json={"name": "alice", "password": "changed-password"}).status_code == 201


def test_a_used_reset_link_ends_the_others(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    verified(client, sink, h, "alice@example.org", "password-alice")
    # Only the newest link works (issue 30, item 6); using it ends the older one a second time.
    first, second = reset_link(client, sink, "alice"), reset_link(client, sink, "alice")
    assert client.post("/api/password-reset/confirm", json={"token": second, "password": "second-password"}
                       ).status_code == 204
    page = TestClient(client.app)
    r = page.post(f"/password-reset/{first}", data={"csrf": csrf_of(page), "password": "first-password"})
    assert r.status_code == 400 and "no longer fits" in r.text
    assert client.post("/api/tokens", json={"name": "alice", "password": "second-password"}).status_code == 201


def test_a_reset_link_is_bound_to_its_address(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    verified(client, sink, h, "old@example.org", "password-alice")
    token = reset_link(client, sink, "alice")
    verified(client, sink, h, "new@example.org", "password-alice")
    r = client.post("/api/password-reset/confirm", json={"token": token, "password": "from-the-old-box"})
    assert r.status_code == 400, r.text
    # Removed: a link sent before the removal no longer works either.
    token = reset_link(client, sink, "alice")
    assert client.request("DELETE", "/api/me/email", headers=h, json={"password": "password-alice"}).status_code == 204
    r = client.post("/api/password-reset/confirm", json={"token": token, "password": "from-the-old-box"})
    assert r.status_code == 400, r.text
    assert client.post("/api/tokens", json={"name": "alice", "password": "password-alice"}).status_code == 201
