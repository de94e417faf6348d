"""Sessions and tokens that can be trusted (issue 15, parts 1 and 2), on SQLite and PostgreSQL.

"Two server processes" are two apps on one database, each with its own store
and caches: what one ends, the other must refuse at once.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import func, select, text, update

from ludothek.portal import create_app
from ludothek.portal.sessions import COOKIE
from ludothek.storage import make_engine, migrate
from ludothek.storage.db import _alembic_config
from ludothek.storage.models import ApiToken, SessionRow, User, utcnow
from tests.portal.conftest import api_user, csrf_of, make_settings, page_login


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def site_of(client: TestClient) -> Any:
    return client.app.state.portal.site  # type: ignore[attr-defined]


def count(client: TestClient, model: Any) -> int:
    with site_of(client).engine.begin() as conn:
        return int(conn.execute(select(func.count()).select_from(model)).scalar_one())


# ----------------------------------------------------------------------------- part 1: the takeover
def test_an_expired_guests_cookie_does_not_become_the_next_account(any_db: str) -> None:
    """The exact sequence of issue 15: guest, expiry, restart, a new user, the old cookie."""
    with TestClient(create_app(make_settings(any_db))) as first:
        csrf = csrf_of(first)
        assert first.post("/guest", data={"csrf": csrf}, follow_redirects=False).status_code == 303
        guest = first.get("/api/me").json()
        old_cookie = first.cookies[COOKIE]
        old_csrf = csrf_of(first)
        with site_of(first).engine.begin() as conn:
            conn.execute(update(User).where(User.id == guest["id"]).values(
                guest_expires_at=utcnow() - timedelta(hours=1)))
    # the restart purges the expired guest; then a new user registers
    with TestClient(create_app(make_settings(any_db))) as second:
        with site_of(second).engine.begin() as conn:
            assert conn.execute(select(User.id).where(User.id == guest["id"])).first() is None, "not purged"
        carol = second.post("/api/users", json={"name": "carol", "password": "password-carol"}).json()["user"]
        tokens_before = count(second, ApiToken)
        attacker = TestClient(second.app)
        attacker.cookies.set(COOKIE, old_cookie)
        r = attacker.get("/api/me")
        assert r.status_code == 401, f"the old guest cookie is now {r.text}"
        r = attacker.post("/account/tokens", data={"csrf": old_csrf, "label": "mine now"}, follow_redirects=False)
        assert r.status_code == 401
        assert count(second, ApiToken) == tokens_before, "the old cookie minted a token"
        assert carol["id"] != guest["id"], "a user id was handed out twice"


def test_user_ids_are_never_reused(any_db: str) -> None:
    with TestClient(create_app(make_settings(any_db))) as client:
        site = site_of(client)
        first = site.accounts.register("alice", "password-a")
        with site.engine.begin() as conn:
            conn.execute(User.__table__.delete().where(User.id == first.id))
        assert site.accounts.register("bob", "password-b").id > first.id


def test_migration_keeps_tokens_seats_and_games_and_stops_id_reuse(tmp_path: Any) -> None:
    """A database made by 0001 with data in it: the rebuild of ``users`` must not cascade."""
    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    cfg = _alembic_config(engine)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO users (id, name, name_key, is_guest, lang, created_at) VALUES "
                          "(1, 'ann', 'ann', 0, 'en', '2026-01-01'), (2, 'ben', 'ben', 0, 'en', '2026-01-01')"))
        conn.execute(text("INSERT INTO api_tokens (user_id, token_hash, label, created_at) "
                          "VALUES (2, 'hash', 'bot', '2026-01-01')"))
        conn.execute(text("INSERT INTO games (id, game, rules_version, num_players, options_json, status, "
                          "creator_id, created_at, seq, to_move) VALUES (1, 'toypig', '1', 2, '{}', 'open', 2, "
                          "'2026-01-01', 0, -2)"))
        conn.execute(text("INSERT INTO seats (game_id, seat, kind, user_id) VALUES (1, 0, 'player', 2)"))
    migrate(engine)
    with engine.begin() as conn:
        assert conn.execute(text("SELECT user_id, label FROM api_tokens")).all() == [(2, "bot")]
        assert conn.execute(text("SELECT user_id FROM seats")).all() == [(2,)]
        assert conn.execute(text("SELECT creator_id FROM games")).all() == [(2,)]
        assert "AUTOINCREMENT" in conn.execute(text("SELECT sql FROM sqlite_master WHERE name = 'users'")).scalar()
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
        conn.execute(text("DELETE FROM users WHERE id = 2"))
        assert conn.execute(text("SELECT count(*) FROM api_tokens")).scalar() == 0  # cascades work again
        conn.execute(text("INSERT INTO users (name, name_key, is_guest, lang, created_at) "
                          "VALUES ('cem', 'cem', 0, 'en', '2026-01-02')"))
        assert conn.execute(text("SELECT id FROM users WHERE name = 'cem'")).scalar() == 3
    engine.dispose()


# ----------------------------------------------------------------------------- part 2: sessions
def test_logout_ends_the_session_on_the_server(any_db: str) -> None:
    with TestClient(create_app(make_settings(any_db))) as client:
        page_login(client, "alice")
        copied = client.cookies[COOKIE]
        copied_csrf = csrf_of(client)
        assert client.get("/api/me").status_code == 200
        assert client.post("/logout", data={"csrf": copied_csrf}, follow_redirects=False).status_code == 303
        thief = TestClient(client.app)
        thief.cookies.set(COOKIE, copied)
        assert thief.get("/api/me").status_code == 401
        r = thief.post("/account/tokens", data={"csrf": copied_csrf}, follow_redirects=False)
        assert r.status_code == 401
        assert count(client, SessionRow) == 0


def test_old_cookies_of_the_user_id_form_name_nobody(client: TestClient) -> None:
    """Cookies signed before sessions moved to the server held a bare user id: they log nobody in."""
    page_login(client, "alice")
    codec = client.app.state.portal.codec  # type: ignore[attr-defined]
    forged = codec._s.dumps({"uid": 1, "csrf": "x", "lang": "en"})
    other = TestClient(client.app)
    other.cookies.set(COOKIE, forged)
    assert other.get("/api/me").status_code == 401


def test_password_change_needs_the_current_one_and_ends_every_other_session(any_db: str) -> None:
    settings = make_settings(any_db)
    with TestClient(create_app(settings)) as here, TestClient(create_app(settings)) as elsewhere_app:
        csrf = page_login(here, "alice")
        elsewhere = TestClient(elsewhere_app.app)  # another server process, another browser
        page_login(elsewhere, "alice", register=False)
        token = here.post("/api/tokens", json={"name": "alice", "password": "password-alice"}).json()["token"]
        assert elsewhere.get("/api/me").status_code == 200
        assert elsewhere.get("/api/me", headers=bearer(token)).status_code == 200
        r = here.post("/account/password", data={"csrf": csrf, "current": "wrong-password", "new": "new-password-1"})
        assert r.status_code == 401 and "current password is wrong" in r.text
        assert elsewhere.get("/api/me").status_code == 200  # a refusal changes nothing
        r = here.post("/account/password", data={"csrf": csrf, "current": "password-alice", "new": "short"})
        assert r.status_code == 400
        r = here.post("/account/password", data={"csrf": csrf, "current": "password-alice", "new": "new-password-1"})
        assert r.status_code == 200 and "Password changed" in r.text
        assert here.get("/api/me").status_code == 200, "the session that changed it goes on"
        assert elsewhere.get("/api/me").status_code == 401
        assert elsewhere.get("/api/me", headers=bearer(token)).status_code == 401
        assert here.post("/api/tokens", json={"name": "alice", "password": "password-alice"}).status_code == 401
        assert here.post("/api/tokens", json={"name": "alice", "password": "new-password-1"}).status_code == 201


def test_password_change_by_api_keeps_the_calling_token(client: TestClient) -> None:
    h = api_user(client, "alice")
    other = client.post("/api/tokens", json={"name": "alice", "password": "password-alice"}).json()["token"]
    r = client.post("/api/password", json={"current": "nope-nope", "new": "new-password-1"}, headers=h)
    assert r.status_code == 401
    r = client.post("/api/password", json={"current": "password-alice", "new": "new-password-1"}, headers=h)
    assert r.status_code == 204
    assert client.get("/api/me", headers=h).status_code == 200
    assert client.get("/api/me", headers=bearer(other)).status_code == 401


def test_log_out_everywhere(any_db: str) -> None:
    settings = make_settings(any_db)
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two_app:
        csrf = page_login(one, "alice")
        two = TestClient(two_app.app)
        page_login(two, "alice", register=False)
        token = one.post("/api/tokens", json={"name": "alice", "password": "password-alice"}).json()["token"]
        page = one.get("/account").text
        assert "logged in in 2 browsers" in page and 'id="logout-everywhere"' in page
        r = one.post("/account/logout-everywhere", data={"csrf": csrf}, follow_redirects=False)
        assert r.status_code == 303
        for c in (one, two):
            assert c.get("/api/me").status_code == 401
        assert two.get("/api/me", headers=bearer(token)).status_code == 401


def test_converting_a_guest_ends_its_earlier_credentials(client: TestClient) -> None:
    guest = client.post("/api/guests").json()["token"]
    csrf = csrf_of(client)
    client.post("/guest", data={"csrf": csrf})
    copied = client.cookies[COOKIE]
    csrf = csrf_of(client)
    # the API guest and the browser guest are two guests; convert the browser one
    r = client.post("/account/convert", data={"csrf": csrf, "name": "dora", "password": "password-dora"},
                    follow_redirects=False)
    assert r.status_code == 303
    assert client.get("/api/me").json()["name"] == "dora"
    thief = TestClient(client.app)
    thief.cookies.set(COOKIE, copied)
    assert thief.get("/api/me").status_code == 401
    assert client.get("/api/me", headers=bearer(guest)).status_code == 200  # the other guest is untouched


# ----------------------------------------------------------------------------- part 2: tokens
def test_tokens_are_listed_and_revoked_at_once_on_every_process(any_db: str) -> None:
    settings = make_settings(any_db)
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        h = api_user(a, "alice")
        bot = a.post("/api/tokens", json={"name": "alice", "password": "password-alice", "label": "my bot",
                                          "expires_in_days": 30}).json()["token"]
        assert b.get("/api/me", headers=bearer(bot)).status_code == 200  # b has now seen (and cached) alice
        listed = a.get("/api/tokens", headers=h).json()["items"]
        assert [t["label"] for t in listed] == ["my bot", "api registration"]
        mine = listed[0]
        assert mine["created_at"] and mine["expires_at"] and mine["last_used_at"]
        assert listed[1]["expires_at"] is None
        assert "token" not in mine and "token_hash" not in mine
        bob = api_user(a, "bob")
        url = f"/api/tokens/{mine['id']}"
        assert a.request("DELETE", url, headers=bob, json={"password": "password-bob"}).status_code == 404  # not bob's
        assert a.delete(url, headers=h).status_code == 401  # a sensitive change: it needs the password
        assert a.request("DELETE", url, headers=h, json={"password": "password-alice"}).status_code == 204
        assert b.get("/api/me", headers=bearer(bot)).status_code == 401, "revocation waited for a cache"
        assert a.request("DELETE", url, headers=h, json={"password": "password-alice"}).status_code == 404
        assert [t["label"] for t in a.get("/api/tokens", headers=h).json()["items"]] == ["api registration"]


def test_an_expired_token_is_refused(any_db: str) -> None:
    with TestClient(create_app(make_settings(any_db))) as client:
        h = api_user(client, "alice")
        assert client.get("/api/me", headers=h).status_code == 200
        with site_of(client).engine.begin() as conn:
            conn.execute(update(ApiToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        assert client.get("/api/me", headers=h).status_code == 401
        r = client.post("/api/tokens", json={"name": "alice", "password": "password-alice", "expires_in_days": 0})
        assert r.status_code == 422


def test_tokens_on_the_account_page(client: TestClient) -> None:
    csrf = page_login(client, "alice")
    r = client.post("/account/tokens", data={"csrf": csrf, "label": "laptop bot", "expires_in_days": "90"})
    assert r.status_code == 401 and "needs your current password" in r.text  # a stolen session is not enough
    r = client.post("/account/tokens", data={"csrf": csrf, "label": "laptop bot", "expires_in_days": "90",
                                             "password": "password-alice"})
    assert r.status_code == 200
    token = re.search(r'id="new-token">([^<]+)<', r.text).group(1)  # type: ignore[union-attr]
    assert client.get("/api/me", headers=bearer(token)).status_code == 200
    page = client.get("/account").text
    assert "laptop bot" in page and "Revoke" in page
    token_id = re.search(r'data-token="(\d+)"', page).group(1)  # type: ignore[union-attr]
    r = client.post(f"/account/tokens/{token_id}/revoke", data={"csrf": "wrong"}, follow_redirects=False)
    assert r.status_code == 403
    r = client.post(f"/account/tokens/{token_id}/revoke", data={"csrf": csrf, "password": "wrong-password"},
                    follow_redirects=False)
    assert r.status_code == 401 and "current password is wrong" in r.text
    assert client.get("/api/me", headers=bearer(token)).status_code == 200
    r = client.post(f"/account/tokens/{token_id}/revoke", data={"csrf": csrf, "password": "password-alice"},
                    follow_redirects=False)
    assert r.status_code == 303
    assert client.get("/api/me", headers=bearer(token)).status_code == 401
    assert "laptop bot" not in client.get("/account").text


def test_cookie_writes_to_the_new_endpoints_need_the_csrf_header(client: TestClient) -> None:
    csrf = page_login(client, "alice")
    assert client.post("/api/logout-everywhere").status_code == 403
    assert client.post("/api/password", json={"current": "password-alice", "new": "x" * 10}).status_code == 403
    assert client.get("/api/tokens").status_code == 200
    r = client.post("/api/logout-everywhere", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 204
    assert client.get("/api/me").status_code == 401


def test_guessing_the_current_password_is_braked(client: TestClient) -> None:
    """A stolen session must not become a password oracle: wrong current passwords count as failed logins."""
    h = api_user(client, "alice")
    codes = [client.post("/api/password", json={"current": f"guess-{i}-xx", "new": "new-password-1"},
                         headers=h).status_code for i in range(6)]
    assert codes[:5] == [401] * 5 and codes[-1] == 429, codes
    r = client.post("/api/password", json={"current": "password-alice", "new": "new-password-1"}, headers=h)
    assert r.status_code == 429 and "retry-after" in r.headers


def test_expired_sessions_and_tokens_are_purged(client: TestClient) -> None:
    site = site_of(client)
    h = api_user(client, "alice")
    page_login(client, "bob")
    with site.engine.begin() as conn:
        conn.execute(update(SessionRow).values(expires_at=utcnow() - timedelta(seconds=1)))
        conn.execute(update(ApiToken).values(expires_at=utcnow() - timedelta(seconds=1)))
    assert client.get("/api/me").status_code == 401
    assert client.get("/api/me", headers=h).status_code == 401
    assert site.sessions.purge_expired_sessions() == 2  # bob's session and alice's token
    assert count(client, SessionRow) == 0 and count(client, ApiToken) == 0


def test_a_malformed_token_is_unknown(client: TestClient) -> None:
    site = site_of(client)
    assert site.sessions.user_by_token("ldk_\ud800") is None
    assert site.sessions.session_user("\ud800\x00") is None
