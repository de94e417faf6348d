"""Mail: addresses, settings, the outbox and its sender against a real SMTP server (aiosmtpd).

The sender job is driven by the tests (``mail_interval=0``) with an injected
``now``, so retries, leases and digests move through hours in milliseconds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from ludothek.portal import create_app
from ludothek.services.outbox import BACKOFF, LEASE
from ludothek.storage.models import NotifyPrefs, OutboxRow, User, UserEmail, utcnow
from ludothek.storage.outbox import queue_mail
from tests.portal.conftest import api_user, csrf_of, make_settings
from tests.portal.mail_support import Sink, free_port, smtp_server

BASE = "http://testserver"


@pytest.fixture
def smtp() -> Iterator[tuple[Sink, int]]:
    with smtp_server() as server:
        yield server


def mail_app(db_url: str, port: int) -> Any:
    return create_app(make_settings(db_url, smtp_url=f"smtp://127.0.0.1:{port}", mail_interval=0, base_url=BASE))


@pytest.fixture
def client(db_url: str, smtp: tuple[Sink, int]) -> Iterator[TestClient]:
    with TestClient(mail_app(db_url, smtp[1])) as c:
        yield c


@pytest.fixture
def sink(smtp: tuple[Sink, int]) -> Sink:
    return smtp[0]


def site_of(client: TestClient) -> Any:
    return client.app.state.portal.site  # type: ignore[attr-defined]


def send(client: TestClient, now: datetime | None = None) -> int:
    """One round of the sender, as the worker would run it."""
    return int(client.app.state.mail_job.run_once(now or utcnow()))  # type: ignore[attr-defined]


def verified(client: TestClient, sink: Sink, headers: dict[str, str], address: str) -> None:
    """Give the user a verified address the way a person does: request, receive, open the link."""
    name = client.get("/api/me", headers=headers).json()["name"]
    r = client.post("/api/me/email", json={"address": address, "password": "password-" + name}, headers=headers)
    assert r.status_code == 202, r.text
    send(client)
    mails = [m for m in sink.take() if address in m.rcpt]
    assert len(mails) == 1
    r = client.get(mails[0].link("/mail/verify/"))
    assert r.status_code == 200, r.text
    assert client.get("/api/me/notifications", headers=headers).json()["email"]["address"] == address


def set_lang(client: TestClient, headers: dict[str, str], lang: str) -> None:
    site = site_of(client)
    site.accounts.set_lang(client.get("/api/me", headers=headers).json()["id"], lang)


def play_until_turn_changes(client: TestClient, gid: int, *hs: dict[str, str]) -> dict[str, str] | None:
    """The player to move holds (the turn passes); returns who moved, or None when the game is over.

    Asked again for a moment when neither player is to move: a read can fall between a move's
    write and the chance outcome that follows it on a loaded machine.
    """
    import time

    for _ in range(100):
        for h in hs:
            g = client.get(f"/api/games/{gid}", headers=h).json()
            if g["status"] != "running":
                return None
            if g["my_turn"]:
                r = client.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": g["seq"]}, headers=h)
                assert r.status_code == 200, r.text
                return h
        time.sleep(0.02)
    raise AssertionError("nobody is to move")


# ----------------------------------------------------------------------------- addresses and verification
def test_verification_link_confirms_once(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    verified(client, sink, h, "alice@example.org")


def test_verification_mail_headers_and_single_use(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    assert client.post("/api/me/email", json={"address": "Alice@Example.org", "password": "password-alice"}, headers=h).status_code == 202
    assert client.get("/api/me/notifications", headers=h).json()["email"] == {
        "address": None, "pending": "Alice@example.org"}
    assert send(client) == 1
    (mail,) = sink.take()
    assert mail.rcpt == ["Alice@example.org"]
    assert mail.subject == "Confirm your e-mail address"
    assert mail.msg["List-Unsubscribe"] is None  # asked for, not a notification
    link = mail.link("/mail/verify/")
    assert client.get(link).status_code == 200
    again = client.get(link)
    assert again.status_code == 400 and "used already" in again.text
    assert client.get("/api/me/notifications", headers=h).json()["email"]["address"] == "Alice@example.org"


@pytest.mark.parametrize("bad", ["no-at-sign", "a@", "@b.org", "a b@c.org", "x" * 300 + "@a.org", "", "a@b..org"])
def test_malformed_address_is_refused_and_nothing_changes(client: TestClient, bad: str) -> None:
    h = api_user(client, "alice")
    r = client.post("/api/me/email", json={"address": bad, "password": "password-alice"}, headers=h)
    assert r.status_code in (400, 422), r.text
    if r.status_code == 400:
        assert r.json()["code"] == "bad_request" and "e-mail address" in r.json()["detail"]
    site = site_of(client)
    with site.engine.begin() as conn:
        assert conn.execute(select(func.count()).select_from(UserEmail)).scalar() == 0
        assert conn.execute(select(func.count()).select_from(OutboxRow)).scalar() == 0


def test_malformed_address_on_the_account_page(client: TestClient) -> None:
    from tests.portal.conftest import page_login

    csrf = page_login(client, "alice")
    r = client.post("/account/email", data={"csrf": csrf, "address": "not an address", "password": "password-alice"})
    assert r.status_code == 400
    assert "This is not a valid e-mail address" in r.text


def test_tampered_and_expired_links_change_nothing(client: TestClient, sink: Sink,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    h = api_user(client, "alice")
    client.post("/api/me/email", json={"address": "alice@example.org", "password": "password-alice"}, headers=h)
    send(client)
    link = sink.take()[0].link("/mail/verify/")
    tampered = link[:-3] + ("AAA" if not link.endswith("AAA") else "BBB")
    r = client.get(tampered)
    assert r.status_code == 400 and "not valid" in r.text
    # An old link: signed two days and one hour ago.
    links = client.app.state.portal.links  # type: ignore[attr-defined]
    uid = client.get("/api/me", headers=h).json()["id"]
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 49 * 3600)
    old = links.url("verify", uid, a="alice@example.org")
    monkeypatch.setattr(time, "time", real)
    r = client.get(old)
    assert r.status_code == 400 and "expired" in r.text
    assert client.get("/api/me/notifications", headers=h).json()["email"]["address"] is None
    # The API says the same.
    r = client.post("/api/mail/verify", json={"token": old.rsplit("/", 1)[1]})
    assert r.status_code == 400 and r.json()["code"] == "bad_link"


def test_a_link_for_one_user_cannot_serve_another(client: TestClient, sink: Sink) -> None:
    ha, hb = api_user(client, "alice"), api_user(client, "bob")
    verified(client, sink, ha, "alice@example.org")
    client.post("/api/me/email", json={"address": "bob@example.org", "password": "password-bob"}, headers=hb)
    links = client.app.state.portal.links  # type: ignore[attr-defined]
    bob = client.get("/api/me", headers=hb).json()["id"]
    alice = client.get("/api/me", headers=ha).json()["id"]
    # Alice's unsubscribe token with bob's id spliced in is not a valid signature.
    token = links.token("unsubscribe", alice)
    forged = links._serializer("unsubscribe").dumps({"u": bob, "p": "unsubscribe", "n": "x"})[:-4] + token[-4:]
    r = client.post(f"/mail/unsubscribe/{forged}")
    assert r.status_code == 400
    # A link for one purpose is no link for another.
    r = client.get(f"/mail/verify/{token}")
    assert r.status_code == 400
    assert client.get("/api/me/notifications", headers=hb).json()["turns"] == "each"


def test_rate_limit_five_mails_an_hour(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    for i in range(5):
        assert client.post("/api/me/email", json={"address": f"a{i}@example.org", "password": "password-alice"}, headers=h).status_code == 202
    r = client.post("/api/me/email", json={"address": "a9@example.org", "password": "password-alice"}, headers=h)
    assert r.status_code == 429 and r.headers["Retry-After"] == "3600"
    assert client.get("/api/me/notifications", headers=h).json()["email"]["pending"] == "a4@example.org"
    # Reset requests count too, and beyond the limit they queue nothing (and say nothing).
    site = site_of(client)
    uid = client.get("/api/me", headers=h).json()["id"]
    with site.engine.begin() as conn:
        conn.execute(UserEmail.__table__.update().where(UserEmail.user_id == uid).values(address="a@example.org"))
    assert client.post("/api/password-reset", json={"who": "alice"}).status_code == 202
    with site.engine.begin() as conn:
        assert conn.execute(select(func.count()).select_from(OutboxRow)).scalar() == 5


# ----------------------------------------------------------------------------- notifications
def test_turn_mails_in_both_languages_with_headers(client: TestClient, sink: Sink) -> None:
    ha, hb = api_user(client, "anna"), api_user(client, "bert")
    set_lang(client, ha, "de")
    verified(client, sink, ha, "anna@example.org")
    verified(client, sink, hb, "bert@example.org")

    def new_game() -> int:
        """bert invites anna; the invitation and the first turn mail are checked and taken."""
        gid = client.post("/api/games", json={"game": "toypig", "players": 2, "options": {"length": "long"},
                                              "seats": [{"kind": "me"}, {"kind": "invite", "user": "anna"}]},
                          headers=hb).json()["id"]
        send(client)
        (invite,) = sink.take()
        assert invite.rcpt == ["anna@example.org"]
        assert invite.subject == "bert lädt dich zu Schweinchen ein"
        assert f"{BASE}/games/{gid}" in invite.text()
        assert client.post(f"/api/games/{gid}/join", headers=ha).json()["status"] == "running"
        send(client)
        first = sink.take()
        assert len(first) == 1  # the first player is told
        return gid

    # The dice are real (the store draws from the CSPRNG), so a game can end before both
    # players were told of a turn by another's move; then a new game goes on.
    gid = new_game()
    seen = set()
    for _ in range(200):
        if len(seen) == 2:
            break
        mover = play_until_turn_changes(client, gid, ha, hb)
        send(client)
        mails = [m for m in sink.take() if "Ende" not in m.subject and "ended" not in m.subject]
        if mover is None:
            gid = new_game()
            continue
        if not mails:  # the die showed 1 right away: the turn came back to the mover
            continue
        (mail,) = mails
        seen.add(mail.rcpt[0])
        if mover is hb:
            assert mail.rcpt == ["anna@example.org"]
            assert mail.subject == f"Schweinchen #{gid}: Du bist am Zug"
            assert "mit anna und bert" in mail.text() or "mit bert und anna" in mail.text()
            assert "Zuletzt: bert: Aktion hold" in mail.text()
            assert mail.msg["Content-Language"] == "de"
        else:
            assert mail.rcpt == ["bert@example.org"]
            assert mail.subject == f"Pig #{gid}: it is your turn"
            assert "The last move: anna: Action hold" in mail.text()
        assert f"{BASE}/games/{gid}" in mail.text() and f'href="{BASE}/games/{gid}"' in mail.html()
        unsub = mail.msg["List-Unsubscribe"]
        assert unsub.startswith(f"<{BASE}/mail/unsubscribe/") and unsub.endswith(">")
        assert mail.msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert mail.msg.get_content_type() == "multipart/alternative"
    assert seen == {"anna@example.org", "bert@example.org"}


def test_one_turn_mail_until_i_have_moved(client: TestClient, sink: Sink) -> None:
    ha, hb = api_user(client, "anna"), api_user(client, "bert")
    verified(client, sink, ha, "anna@example.org")
    verified(client, sink, hb, "bert@example.org")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=ha).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=hb)
    send(client)
    (first,) = sink.take()
    g_for = {"anna@example.org": ha, "bert@example.org": hb}
    h = g_for[first.rcpt[0]]
    g = client.get(f"/api/games/{gid}", headers=h).json()
    site = site_of(client)
    uid = client.get("/api/me", headers=h).json()["id"]
    with site.engine.begin() as conn:  # the same game "becomes my turn" again before I moved
        queue_mail(conn, uid, "turn", {"by": None}, game_id=gid, seq=g["seq"])
    send(client)
    assert sink.take() == []
    rows = [r for r in site.outbox.mail_rows(uid) if r["kind"] == "turn"]
    assert [r["status"] for r in rows] == ["sent", "skipped"]
    assert "none again until the player moves" in rows[1]["last_error"]


def test_one_click_unsubscribe_without_login(client: TestClient, sink: Sink) -> None:
    ha, hb = api_user(client, "anna"), api_user(client, "bert")
    verified(client, sink, ha, "anna@example.org")
    verified(client, sink, hb, "bert@example.org")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=ha).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=hb)
    send(client)
    (mail,) = sink.take()
    url = mail.msg["List-Unsubscribe"].strip("<>")
    fresh = TestClient(client.app)  # no cookie, no token
    page = fresh.get(url)
    assert page.status_code == 200 and "Stop sending notifications" in page.text
    r = fresh.post(url, content=b"List-Unsubscribe=One-Click",
                   headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 200 and "gets no more notifications" in r.text
    h = ha if mail.rcpt == ["anna@example.org"] else hb
    prefs = client.get("/api/me/notifications", headers=h).json()
    assert (prefs["turns"], prefs["invites"], prefs["ended"]) == ("off", False, False)
    other = hb if h is ha else ha
    assert client.get("/api/me/notifications", headers=other).json()["turns"] == "each"


def test_game_end_mail_with_result(client: TestClient, sink: Sink) -> None:
    ha, hb = api_user(client, "anna"), api_user(client, "bert")
    verified(client, sink, ha, "anna@example.org")
    verified(client, sink, hb, "bert@example.org")
    client.put("/api/me/notifications", json={"turns": "off"}, headers=ha)
    client.put("/api/me/notifications", json={"turns": "off"}, headers=hb)
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=ha).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=hb)
    for _ in range(500):
        g = client.get(f"/api/games/{gid}", headers=ha).json()
        if g["status"] == "finished":
            break
        h = ha if g["my_turn"] else hb
        g = client.get(f"/api/games/{gid}", headers=h).json()
        action = "hold" if g["view"]["pot"] > 0 else "roll"
        client.post(f"/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=h)
    assert g["status"] == "finished"
    send(client)
    mails = sink.take()
    assert sorted(m.rcpt[0] for m in mails) == ["anna@example.org", "bert@example.org"]
    for m in mails:
        assert m.subject == f"Pig #{gid} has ended"
        assert "1. " in m.text() and "anna" in m.text() and "bert" in m.text()


def test_settings_api_and_bad_values(client: TestClient) -> None:
    h = api_user(client, "alice")
    got = client.get("/api/me/notifications", headers=h).json()
    channels = got.pop("channels")  # added by issue 30 (tests/portal/test_notices.py)
    assert got == {
        "email": {"address": None, "pending": None}, "turns": "each", "digest_hour": 18, "timezone": "UTC",
        "invites": True, "ended": True}
    assert channels["mail"]["turn"] is True
    r = client.put("/api/me/notifications", json={"turns": "digest", "digest_hour": 7, "timezone": "Europe/Berlin"},
                   headers=h)
    assert r.status_code == 200 and r.json()["turns"] == "digest" and r.json()["timezone"] == "Europe/Berlin"
    for body in ({"turns": "hourly"}, {"digest_hour": 24}, {"digest_hour": -1}):
        assert client.put("/api/me/notifications", json=body, headers=h).status_code == 422
    r = client.put("/api/me/notifications", json={"timezone": "Mars/Olympus"}, headers=h)
    assert r.status_code == 400 and "time zone" in r.json()["detail"]
    assert client.get("/api/me/notifications", headers=h).json()["timezone"] == "Europe/Berlin"
    assert client.get("/api/me/notifications").status_code == 401


def test_daily_digest_at_my_hour_in_my_time_zone(client: TestClient, sink: Sink) -> None:
    ha, hb = api_user(client, "anna"), api_user(client, "bert")
    verified(client, sink, ha, "anna@example.org")
    verified(client, sink, hb, "bert@example.org")
    for h in (ha, hb):
        client.put("/api/me/notifications", json={"turns": "digest", "digest_hour": 9,
                                                   "timezone": "Europe/Berlin"}, headers=h)
    gids = []
    for _ in range(2):
        gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=ha).json()["id"]
        client.post(f"/api/games/{gid}/join", headers=hb)
        gids.append(gid)
    # a winter day ahead of the real clock (a fixed date would turn into the past one day): 08:30 in Berlin
    day = datetime(utcnow().year + 1, 1, 15, 7, 30, tzinfo=utcnow().tzinfo)
    send(client, day)
    assert sink.take() == []  # the turn mails are skipped: digest users get the digest
    send(client, day + timedelta(minutes=40))  # 09:10 in Berlin
    mails = sink.take()
    assert mails and all(m.subject.endswith("waiting for you") for m in mails)
    for m in mails:
        assert f"{BASE}/games/" in m.text()
    send(client, day + timedelta(hours=5))
    assert sink.take() == []  # at most one a day
    send(client, day + timedelta(days=1, minutes=40))
    assert len(sink.take()) == len(mails)


# ----------------------------------------------------------------------------- password reset
def test_password_reset_by_mail(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    verified(client, sink, h, "alice@example.org")
    unknown = client.post("/api/password-reset", json={"who": "nobody"})
    known = client.post("/api/password-reset", json={"who": "alice@example.org"})
    assert unknown.status_code == known.status_code == 202 and unknown.json() == known.json()
    csrf = csrf_of(client)
    a = client.post("/password-reset", data={"csrf": csrf, "who": "nobody-at-all"})
    b = client.post("/password-reset", data={"csrf": csrf, "who": "alice"})
    assert a.status_code == b.status_code == 200
    assert a.text.count("a link is on its way") == b.text.count("a link is on its way") == 1
    send(client)
    mails = sink.take()
    # Asked for twice before the sender ran: only the newest link goes out (issue 30, item 6).
    assert [m.rcpt for m in mails] == [["alice@example.org"]]
    assert mails[0].subject == "Reset your password"
    link = mails[0].link("/password-reset/")
    assert 'name="password"' in client.get(link).text
    r = client.post(link, data={"csrf": csrf_of(client), "password": "a-new-password"})
    assert r.status_code == 200 and "Password changed" in r.text
    # Every session and token ended; the new password works; the link is spent.
    assert client.get("/api/me", headers=h).status_code == 401
    assert client.post("/api/tokens", json={"name": "alice", "password": "a-new-password"}).status_code == 201
    again = client.post(link, data={"csrf": csrf_of(client), "password": "another-password"})
    assert again.status_code == 400 and "used already" in again.text
    assert client.post("/api/tokens", json={"name": "alice", "password": "another-password"}).status_code == 401
    # The link again through the API: a short password is refused by the schema, and the spent link
    # says so (a link asked for before it no longer fits either: tests/portal/test_reset_links.py).
    token = link.rsplit("/", 1)[1]
    r = client.post("/api/password-reset/confirm", json={"token": token, "password": "short"})
    assert r.status_code == 422  # the schema says: at least 8 characters
    r = client.post("/api/password-reset/confirm", json={"token": token, "password": "third-password"})
    assert r.status_code == 400 and "used already" in r.json()["detail"], r.text
    assert client.post("/api/tokens", json={"name": "alice", "password": "third-password"}).status_code == 401


def test_reset_link_expires_after_an_hour(client: TestClient, sink: Sink, monkeypatch: pytest.MonkeyPatch) -> None:
    h = api_user(client, "alice")
    uid = client.get("/api/me", headers=h).json()["id"]
    links = client.app.state.portal.links  # type: ignore[attr-defined]
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 3700)
    old = links.url("reset", uid)
    monkeypatch.setattr(time, "time", real)
    r = client.get(old)
    assert r.status_code == 400 and "expired" in r.text
    r = client.post(old, data={"csrf": csrf_of(client), "password": "a-new-password"})
    assert r.status_code == 400
    assert client.get("/api/me", headers=h).status_code == 200


# ----------------------------------------------------------------------------- the sender
def test_nothing_is_sent_twice_after_a_restart(db_url: str, smtp: tuple[Sink, int]) -> None:
    sink, port = smtp
    with TestClient(mail_app(db_url, port)) as c:
        h = api_user(c, "alice")
        c.post("/api/me/email", json={"address": "alice@example.org", "password": "password-alice"}, headers=h)
        assert send(c) == 1
        # A second mail is fanned out and its mail delivery claimed, and the process dies before it is finished.
        c.post("/api/me/email", json={"address": "alice2@example.org", "password": "password-alice"}, headers=h)
        site = site_of(c)
        job = c.app.state.mail_job  # type: ignore[attr-defined]
        job.fan_out.run_once(utcnow())
        claimed = site.deliveries.claim("mail", job.jobs[0].owner, utcnow())
        assert len(claimed) == 1 and site.deliveries.begin([claimed[0].id], utcnow())
    with TestClient(mail_app(db_url, port)) as c:  # the restart
        site = site_of(c)
        assert send(c) == 0  # the first is sent already; the second is still leased
        assert send(c, utcnow() + LEASE + timedelta(seconds=1)) == 0
        assert [r["status"] for r in site.outbox.mail_rows()] == ["sent", "failed"]
        assert "not sent again" in site.outbox.mail_rows()[1]["last_error"]
    assert len(sink.take()) == 1


def test_two_senders_never_send_the_same_mail(client: TestClient, sink: Sink) -> None:
    from ludothek.workers.mail import MailJob, SmtpTransport

    site = site_of(client)
    links = client.app.state.portal.links  # type: ignore[attr-defined]
    port = int(client.app.state.portal.settings.smtp_url.rsplit(":", 1)[1])  # type: ignore[attr-defined]
    for i in range(6):
        h = api_user(client, f"user{i}")
        client.post("/api/me/email", json={"address": f"u{i}@example.org", "password": f"password-user{i}"}, headers=h)
    jobs = [MailJob(site, links, SmtpTransport(f"smtp://127.0.0.1:{port}"), batch=2) for _ in range(3)]
    now = utcnow()
    while sum(job.run_once(now) for job in jobs):
        pass
    got = sorted(m.rcpt[0] for m in sink.take())
    assert got == sorted(f"u{i}@example.org" for i in range(6))


def test_a_down_mail_server_is_retried_with_backoff_then_failed(db_url: str) -> None:
    port = free_port()  # nobody listens here
    with TestClient(mail_app(db_url, port)) as c:
        h = api_user(c, "alice")
        c.post("/api/me/email", json={"address": "alice@example.org", "password": "password-alice"}, headers=h)
        site = site_of(c)
        now = utcnow()
        assert send(c, now) == 0
        (row,) = site.outbox.mail_rows()
        assert row["status"] == "pending" and row["attempts"] == 1 and "Error" in row["last_error"]
        assert send(c, now + timedelta(seconds=30)) == 0
        assert site.outbox.mail_rows()[0]["attempts"] == 1  # not due before its backoff
        for wait in BACKOFF:
            now += wait + timedelta(seconds=1)
            send(c, now)
        (row,) = site.outbox.mail_rows()
        assert row["status"] == "failed" and row["attempts"] == len(BACKOFF) + 1
        assert len(row["tries"]) == len(BACKOFF) + 1 and not any(t["ok"] for t in row["tries"])
        # Moves go on meanwhile: they only write an outbox row.
        hb = api_user(c, "bob")
        gid = c.post("/api/games", json={"game": "toypig", "players": 2}, headers=h).json()["id"]
        assert c.post(f"/api/games/{gid}/join", headers=hb).json()["status"] == "running"


def test_refused_mail_is_recorded_and_retried(client: TestClient, sink: Sink) -> None:
    h = api_user(client, "alice")
    client.post("/api/me/email", json={"address": "alice@example.org", "password": "password-alice"}, headers=h)
    sink.refuse = True
    now = utcnow()
    send(client, now)
    (row,) = site_of(client).outbox.mail_rows()
    assert row["status"] == "pending" and "550" in row["last_error"]
    sink.refuse = False
    assert send(client, now + BACKOFF[0] + timedelta(seconds=1)) == 1
    (row,) = site_of(client).outbox.mail_rows()
    assert row["status"] == "sent" and [t["ok"] for t in row["tries"]] == [False, True]


def test_without_smtp_mails_are_files(db_url: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    app = create_app(make_settings(db_url, mail_interval=0, base_url=BASE, mail_dir=tmp_path / "mail"))
    with TestClient(app) as c:
        h = api_user(c, "alice")
        c.post("/api/me/email", json={"address": "alice@example.org", "password": "password-alice"}, headers=h)
        assert send(c) == 1
    files = list((tmp_path / "mail").glob("*.eml"))
    assert len(files) == 1 and str(files[0]) in capsys.readouterr().out
    assert b"/mail/verify/" in files[0].read_bytes()


def test_the_address_is_never_shown_to_others_or_logged(client: TestClient, sink: Sink,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    ha, hb = api_user(client, "anna"), api_user(client, "bert")
    verified(client, sink, ha, "secret-anna@example.org")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=ha).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=hb)
    sink.refuse = True
    send(client)
    texts = [client.get(f"/api/games/{gid}", headers=hb).text, client.get(f"/games/{gid}").text,
             client.get("/api/games?which=mine", headers=hb).text, client.get("/api/me", headers=ha).text]
    for text in texts:
        assert "secret-anna" not in text
    ours = [r.getMessage() for r in caplog.records if not r.name.startswith("mail.log")]  # not the test server's
    assert ours and not any("secret-anna" in m for m in ours)


def test_tab_title_counts_games_waiting(client: TestClient) -> None:
    from tests.portal.conftest import page_login

    page_login(client, "anna")
    hb = api_user(client, "bert")
    assert "<title>Ludothek" in client.get("/").text
    site = site_of(client)
    anna = site.accounts.user_by_name("anna")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=hb).json()["id"]
    site.lobby.join(gid, anna)
    waiting = client.get("/api/me/waiting").json()
    mine = waiting["count"]
    assert mine in (0, 1)
    title = f"<title>({mine}) Ludothek" if mine else "<title>Ludothek"
    assert title in client.get("/").text and title in client.get("/account").text


def test_openapi_documents_the_mail_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/me/notifications", "/api/me/email", "/api/mail/verify", "/api/mail/unsubscribe",
                 "/api/password-reset", "/api/password-reset/confirm", "/api/me/waiting"):
        assert path in paths, path


def test_guests_cannot_add_an_address(client: TestClient) -> None:
    token = client.post("/api/guests").json()["token"]
    r = client.post("/api/me/email", json={"address": "g@example.org"}, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 409


def test_prefs_rows_are_per_user(client: TestClient) -> None:
    ha, hb = api_user(client, "anna"), api_user(client, "bert")
    client.put("/api/me/notifications", json={"turns": "off"}, headers=ha)
    site = site_of(client)
    with site.engine.begin() as conn:
        assert conn.execute(select(func.count()).select_from(NotifyPrefs)).scalar() == 1
        assert conn.execute(select(func.count()).select_from(User)).scalar() == 2
    assert client.get("/api/me/notifications", headers=hb).json()["turns"] == "each"


def test_reminder_queued_by_other_code_through_queue_mail(client: TestClient, sink: Sink) -> None:
    """The clocks queue "your time runs out" with `queue_mail`; it goes out only while still my turn."""
    ha, hb = api_user(client, "anna"), api_user(client, "bert")
    verified(client, sink, ha, "anna@example.org")
    verified(client, sink, hb, "bert@example.org")
    client.put("/api/me/notifications", json={"timezone": "Europe/Berlin"}, headers=ha)
    client.put("/api/me/notifications", json={"timezone": "Europe/Berlin"}, headers=hb)
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=ha).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=hb)
    send(client)
    sink.take()
    site = site_of(client)
    h = ha if client.get(f"/api/games/{gid}", headers=ha).json()["my_turn"] else hb
    g = client.get(f"/api/games/{gid}", headers=h).json()
    uid = client.get("/api/me", headers=h).json()["id"]
    deadline = f"{utcnow().year + 1}-03-01"  # ahead of the real clock, in Berlin's winter time (UTC+1)
    with site.engine.begin() as conn:
        queue_mail(conn, uid, "reminder", {"deadline": f"{deadline}T11:00:00+00:00"}, game_id=gid, seq=g["seq"])
        queue_mail(conn, uid, "reminder", {"deadline": f"{deadline}T11:00:00+00:00"}, game_id=gid, seq=g["seq"] - 1)
    send(client)
    (mail,) = sink.take()
    assert mail.subject == f"Pig #{gid}: your time runs out soon"
    # in the recipient's language and time zone (issue 30, item 8)
    assert f"Mar 1, {deadline[:4]}, 12:00\u202fPM" in mail.text()
    assert mail.msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert [r["status"] for r in site.outbox.mail_rows(uid) if r["kind"] == "reminder"] == ["sent", "skipped"]


def test_the_clock_job_queues_one_reminder_when_a_quarter_of_the_turn_is_left(client: TestClient, sink: Sink) -> None:
    """Issue 9: a reminder mail before a timeout, once per deadline, even with two passes; issue 30: when a
    quarter of the turn's time is left (12 hours of 2 days), at most 24 hours ahead."""
    from datetime import UTC, datetime, timedelta

    from ludothek.workers.clocks import ClockJob

    ha, hb = api_user(client, "anna"), api_user(client, "bert")
    verified(client, sink, ha, "anna@example.org")
    verified(client, sink, hb, "bert@example.org")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2, "time_control": "move:2"},
                      headers=ha).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=hb)
    send(client)
    sink.take()
    site = site_of(client)
    job = ClockJob(site)
    job.run_once(datetime.now(UTC) + timedelta(hours=12))  # more than a day left: nothing
    job.run_once(datetime.now(UTC) + timedelta(days=1, hours=1))  # 23 hours of 48 left: not yet either
    send(client)
    assert sink.take() == []
    later = datetime.now(UTC) + timedelta(days=1, hours=13)
    job.run_once(later)
    job.run_once(later + timedelta(minutes=5))  # a second pass (or a second server) queues nothing more
    send(client)
    (mail,) = sink.take()
    assert "your time runs out soon" in mail.subject
    h = ha if client.get(f"/api/games/{gid}", headers=ha).json()["my_turn"] else hb
    assert mail.rcpt == [("anna" if h is ha else "bert") + "@example.org"]


def test_finished_mails_are_deleted_once_older_than_the_keep_period(client: TestClient) -> None:
    """Every move queues a mail row; finished ones (sent, failed, skipped) go after 30 days, pending ones never."""
    from ludothek.services.outbox import KEEP_FINISHED
    from ludothek.storage.models import OutboxAttempt

    site = site_of(client)
    h = api_user(client, "alice")
    uid = client.get("/api/me", headers=h).json()["id"]
    now = utcnow()
    old, recent = now - KEEP_FINISHED - timedelta(days=1), now - timedelta(days=2)

    def row(status: str, at: datetime) -> int:
        with site.engine.begin() as conn:
            queue_mail(conn, uid, "turn", game_id=1, seq=0, now=at)
            mail_id = int(conn.execute(select(func.max(OutboxRow.id))).scalar_one())
            conn.execute(OutboxRow.__table__.update().where(OutboxRow.id == mail_id).values(status=status))
            conn.execute(OutboxAttempt.__table__.insert().values(outbox_id=mail_id, at=at, ok=False, error="x"))
        return mail_id

    gone = [row("sent", old), row("failed", old), row("skipped", old)]
    kept = [row("pending", old), row("sending", old), row("sent", recent)]
    assert site.outbox.prune_mail(now - KEEP_FINISHED, batch=2) == 3  # two batches
    with site.engine.begin() as conn:
        left = set(conn.execute(select(OutboxRow.id)).scalars())
        attempts = set(conn.execute(select(OutboxAttempt.outbox_id)).scalars())
    assert left.isdisjoint(gone) and set(kept) <= left
    assert attempts.isdisjoint(gone), "their attempts went with them"
    assert site.outbox.prune_mail(now - KEEP_FINISHED) == 0

    # The sender prunes on its first pass, then at most once an hour.  (The stale "sending" row was
    # claimed by a fan-out that died: it is fanned out afresh, since fanning out sends nothing, and
    # goes with the next pruning.)  The newest row always stays (SQLite ids are the highest plus one).
    first = row("sent", old)
    row("pending", now)
    send(client, now)
    second = row("sent", old)
    row("pending", now)
    send(client, now + timedelta(minutes=10))
    with site.engine.begin() as conn:
        left = set(conn.execute(select(OutboxRow.id)).scalars())
    assert first not in left and second in left
    send(client, now + timedelta(minutes=61))
    with site.engine.begin() as conn:
        left = set(conn.execute(select(OutboxRow.id)).scalars())
    assert second not in left and kept[1] not in left  # (the old pending row was skipped by the sender meanwhile, and went too)
    newest = max(left)
    with site.engine.begin() as conn:
        conn.execute(OutboxRow.__table__.update().values(status="sent", created_at=old))
    site.outbox.prune_mail(now)
    with site.engine.begin() as conn:
        assert set(conn.execute(select(OutboxRow.id)).scalars()) == {newest}
