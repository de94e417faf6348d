"""Every date and time a person reads is in their language and time zone (issue 30, item 8; item 10's chat).

A German reader who chose Europe/Berlin reads "01.03.2027, 12:00" where the pages and mails used to
say "2027-03-01 11:00 UTC"; the API's machine fields stay ISO 8601.  The expected texts are written
out literally where the moment is fixed, and made with Babel where it is the real clock's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from babel.dates import format_time
from fastapi.testclient import TestClient

import ludothek
from ludothek.portal import create_app
from ludothek.storage.models import utcnow
from ludothek.storage.outbox import queue_mail
from ludothek.texts.dates import local_when, zone
from tests.portal.conftest import api_user, csrf_of, make_settings, page_login
from tests.portal.mail_support import Sink, smtp_server

BASE = "http://testserver"
BERLIN = "Europe/Berlin"
ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


@pytest.fixture
def smtp() -> Iterator[tuple[Sink, int]]:
    with smtp_server() as server:
        yield server


@pytest.fixture
def client(db_url: str, smtp: tuple[Sink, int]) -> Iterator[TestClient]:
    app = create_app(make_settings(db_url, smtp_url=f"smtp://127.0.0.1:{smtp[1]}", mail_interval=0,
                                   base_url=BASE, jobs_interval=0))
    with TestClient(app) as c:
        yield c


def site_of(client: TestClient) -> Any:
    return client.app.state.portal.site  # type: ignore[attr-defined]


def visible(html: str) -> str:
    """The page's text as a person reads it (no tags, so no ``datetime="..."`` attributes)."""
    body = html.split("<main>", 1)[-1].split("</main>", 1)[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def german_in_berlin(client: TestClient, name: str) -> int:
    """Log ``client`` in as a new user ``name`` who reads German and chose Berlin's time."""
    page_login(client, name)
    site = site_of(client)
    uid = int(site.accounts.check_login(name, "password-" + name)[0].id)
    site.accounts.set_lang(uid, "de")
    site.notify.set_prefs(uid, timezone=BERLIN)
    return uid


def next_year(month: int, day: int, hour: int, minute: int = 0) -> datetime:
    """A fixed moment ahead of the real clock (a fixed year would turn into the past one day)."""
    return datetime(utcnow().year + 1, month, day, hour, minute, tzinfo=UTC)


def test_the_helper_writes_the_readers_language_and_zone() -> None:
    winter = datetime(2027, 3, 1, 11, 0, tzinfo=UTC)
    assert local_when(winter, "de", BERLIN) == "01.03.2027, 12:00"
    assert local_when(winter, "en", BERLIN) == "Mar 1, 2027, 12:00\u202fPM"
    assert local_when(winter, "de", BERLIN, "date") == "01.03.2027"
    assert local_when(winter, "de", "America/New_York", "time") == "06:00"
    assert local_when(winter.replace(tzinfo=None), "de", "Nowhere/Else") == "01.03.2027, 11:00"  # naive: UTC
    assert zone("Nowhere/Else") == UTC


def test_the_account_page_shows_local_dates(client: TestClient) -> None:
    uid = german_in_berlin(client, "carla")
    site = site_of(client)
    site.sessions.create_token(uid, "bot", 30)
    user = site.accounts.user(uid)
    starts = next_year(1, 10, 23, 30)  # 00:30 on the 11th in Berlin
    site.clocks.declare_vacation(user, 2, starts=starts, now=starts - timedelta(days=300))
    text = visible(client.get("/account").text)
    assert f"Urlaub vom 11.01.{starts.year}, 00:30 bis 13.01.{starts.year}, 00:30" in text, text
    token = site.sessions.tokens(uid)[0]
    assert f"angelegt {local_when(token.created_at, 'de', BERLIN, 'date')}" in text.lower(), text
    assert f"läuft ab am {local_when(token.expires_at, 'de', BERLIN, 'date')}" in text.lower(), text
    assert "UTC" not in text and not ISO_DAY.search(text), text


def test_a_guest_reads_the_expiry_in_their_zone(client: TestClient) -> None:
    assert client.post("/guest", data={"csrf": csrf_of(client)}, follow_redirects=False).status_code == 303
    site = site_of(client)
    me = client.get("/api/me").json()
    site.accounts.set_lang(me["id"], "de")
    site.notify.set_prefs(me["id"], timezone=BERLIN)
    expires = datetime.fromisoformat(me["guest_expires_at"])
    text = visible(client.get("/account").text)
    assert f"läuft am {local_when(expires, 'de', BERLIN)} ab" in text, text
    assert "UTC" not in text and not ISO_DAY.search(text)


def two_player_game(client: TestClient, time_control: Any) -> tuple[int, dict[str, str], dict[str, str]]:
    ann, bob = api_user(client, "ann"), api_user(client, "bob")
    body: dict[str, Any] = {"game": "toypig", "players": 2}
    if time_control is not None:
        body["time_control"] = time_control
    gid = client.post("/api/games", json=body, headers=ann).json()["id"]
    assert client.post(f"/api/games/{gid}/join", headers=bob).status_code == 200
    return gid, ann, bob


def test_on_vacation_until_is_local_and_only_in_timed_games(client: TestClient) -> None:
    timed, ann, bob = two_player_game(client, "move:2")
    untimed = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=ann).json()["id"]
    assert client.post(f"/api/games/{untimed}/join", headers=bob).status_code == 200
    assert client.post(f"/api/games/{untimed}/resign", headers=ann).status_code == 200  # a bot plays on
    r = client.post("/api/vacation", json={"days": 3}, headers=bob)
    assert r.status_code == 201, r.text
    ends = datetime.fromisoformat(r.json()["absences"][0]["ends"])
    german_in_berlin(client, "carla")
    text = visible(client.get(f"/games/{timed}").text)
    assert f"im Urlaub bis {local_when(ends, 'de', BERLIN)}; die Uhr steht" in text, text
    assert "UTC" not in text
    untimed_page = visible(client.get(f"/games/{untimed}").text)
    assert "im Urlaub" not in untimed_page, untimed_page
    seats = client.get(f"/api/games/{untimed}", headers=bob).json()["clock"]["seats"]
    assert all(s["away_until"] is None for s in seats)


def test_chat_messages_show_the_local_time_of_day(client: TestClient) -> None:
    gid, ann, bob = two_player_game(client, None)
    r = client.post(f"/api/games/{gid}/chat", json={"text": "hallo"}, headers=ann)
    assert r.status_code == 201, r.text
    at = datetime.fromisoformat(r.json()["at"])
    page = client.get(f"/games/{gid}", headers=bob).text
    line = re.search(r'<small class="muted chat-at">(.*?)</small>', page, re.S)
    assert line, page
    # bob reads English and chose no zone: UTC.
    assert str(format_time(at, format="short", locale="en", tzinfo=UTC)) in line.group(1), line.group(1)
    assert "move" in line.group(1)
    assert 'data-tz="UTC"' in page and 'data-lang="en"' in page  # the live lines: the same, in the browser


def test_the_reminder_mail_says_the_deadline_in_the_readers_words(client: TestClient,
                                                                   smtp: tuple[Sink, int]) -> None:
    sink = smtp[0]
    gid, ann, bob = two_player_game(client, None)
    site = site_of(client)
    h = ann if client.get(f"/api/games/{gid}", headers=ann).json()["my_turn"] else bob
    g = client.get(f"/api/games/{gid}", headers=h).json()
    uid = client.get("/api/me", headers=h).json()["id"]
    name = "ann" if h is ann else "bob"
    r = client.post("/api/me/email", json={"address": "x@example.org", "password": "password-" + name}, headers=h)
    assert r.status_code == 202, r.text
    client.app.state.mail_job.run_once(utcnow())  # type: ignore[attr-defined]
    (verify,) = sink.take()
    assert client.get(verify.link("/mail/verify/")).status_code == 200
    site.accounts.set_lang(uid, "de")
    site.notify.set_prefs(uid, timezone=BERLIN)
    deadline = next_year(3, 1, 11)
    with site.engine.begin() as conn:
        queue_mail(conn, uid, "reminder", {"deadline": deadline.isoformat()}, game_id=gid, seq=g["seq"])
    client.app.state.mail_job.run_once(utcnow())  # type: ignore[attr-defined]
    (mail,) = sink.take()
    assert f"01.03.{deadline.year}, 12:00" in mail.text(), mail.text()
    assert not ISO_DAY.search(mail.text())


def test_templates_never_format_a_moment_themselves() -> None:
    """Every moment in a template goes through the one helper (``fmt_when``/``fmt_date``/``fmt_time``)."""
    templates = Path(ludothek.__file__).parent / "portal" / "templates"
    offenders = []
    for path in templates.rglob("*.html"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if ".strftime(" in line or re.search(r"\.isoformat\(\)(?![^\"]*\")", line.split('datetime="')[0]):
                offenders.append(f"{path.name}:{n}: {line.strip()}")
    assert not offenders, offenders


def test_the_api_keeps_iso_moments(client: TestClient) -> None:
    h = api_user(client, "dora")
    me = client.get("/api/me", headers=h).json()
    assert me["guest_expires_at"] is None
    r = client.post("/api/vacation", json={"days": 1}, headers=h)
    absence = r.json()["absences"][0]
    assert datetime.fromisoformat(absence["starts"]).tzinfo is not None


def test_the_digest_of_one_game_says_this_game(client: TestClient, smtp: tuple[Sink, int]) -> None:
    """Issue 30, item 10: the digest's sentence takes the plural form of its count ("in diesem Spiel")."""
    sink = smtp[0]
    ann, bob = api_user(client, "ann"), api_user(client, "bob")
    site = site_of(client)
    for name, h in (("ann", ann), ("bob", bob)):
        r = client.post("/api/me/email", json={"address": f"{name}@example.org", "password": "password-" + name},
                        headers=h)
        assert r.status_code == 202, r.text
    client.app.state.mail_job.run_once(utcnow())  # type: ignore[attr-defined]
    for m in sink.take():
        assert client.get(m.link("/mail/verify/")).status_code == 200
    for h in (ann, bob):
        client.put("/api/me/notifications", json={"turns": "digest", "digest_hour": 9, "timezone": BERLIN}, headers=h)
        site.accounts.set_lang(client.get("/api/me", headers=h).json()["id"], "de")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=ann).json()["id"]
    assert client.post(f"/api/games/{gid}/join", headers=bob).status_code == 200
    day = next_year(1, 15, 8, 10)  # 09:10 in Berlin
    client.app.state.mail_job.run_once(day)  # type: ignore[attr-defined]
    (digest,) = sink.take()
    assert digest.subject == "1 Spiel wartet auf dich"
    assert "in diesem Spiel bist du am Zug:" in digest.text(), digest.text()
