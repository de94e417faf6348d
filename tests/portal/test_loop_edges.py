"""The loop's rough edges a new user found (issue 30, items 7, 9 and 10).

- 7: a link opened while logged out comes back after logging in, registering or entering as a guest;
  only a path on this site is followed.
- 9: a vacation can be ended early, on the account page and through the API; the clocks it paused
  get back the part not taken.
- 10: one game is "this game" in the digest; the game kind page lists each finished game once;
  the account forms answer with a redirect (a reload does not send them again) and a flash message;
  "Next game waiting for me" stands out only when a game waits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.services import Site
from ludothek.storage.models import utcnow
from tests.portal.conftest import api_user, csrf_of, make_settings, page_login


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(db_url, jobs_interval=0, mail_interval=0))) as c:
        yield c


@pytest.fixture
def any_client(any_db: str) -> Iterator[TestClient]:
    """The same on SQLite and PostgreSQL (the deadlines' arithmetic is the database's comparison)."""
    with TestClient(create_app(make_settings(any_db, jobs_interval=0, mail_interval=0))) as c:
        yield c


def site_of(client: TestClient) -> Site:
    site: Site = client.app.state.portal.site  # type: ignore[attr-defined]
    return site


def new_game(client: TestClient, h: dict[str, str], **extra: Any) -> int:
    r = client.post("/api/games", json={"game": "toypig", "players": 2, **extra}, headers=h)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def play_to_the_end(client: TestClient, gid: int, *hs: dict[str, str]) -> None:
    for _ in range(500):
        g = client.get(f"/api/games/{gid}", headers=hs[0]).json()
        if g["status"] == "finished":
            return
        for h in hs:
            g = client.get(f"/api/games/{gid}", headers=h).json()
            if g["my_turn"]:
                action = "hold" if g["view"]["pot"] > 0 else "roll"
                client.post(f"/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=h)
    raise AssertionError("the game did not end")


# ----------------------------------------------------------------------------- item 7: the way back
def test_a_game_link_opened_logged_out_comes_back_after_login(client: TestClient) -> None:
    ann = api_user(client, "ann")
    gid = new_game(client, ann)
    visitor = TestClient(client.app)
    page = visitor.get(f"/games/{gid}").text
    login_link = f'href="/login?next={quote(f"/games/{gid}", safe="")}"'
    assert login_link in page, page
    form = visitor.get(f"/login?next=/games/{gid}").text
    assert f'name="next" value="/games/{gid}"' in form
    visitor.post("/register", data={"csrf": csrf_of(visitor), "name": "bob", "password": "password-bob"})
    visitor.post("/logout", data={"csrf": csrf_of(visitor)})
    r = visitor.post("/login", data={"csrf": csrf_of(visitor), "name": "bob", "password": "password-bob",
                                     "next": f"/games/{gid}"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/games/{gid}"


@pytest.mark.parametrize("form", ["register", "guest"])
def test_registering_or_a_guest_comes_back_too(client: TestClient, form: str) -> None:
    data = {"csrf": csrf_of(client), "next": "/games/7?tab=log"}
    if form == "register":
        data |= {"name": "carl", "password": "password-carl"}
    r = client.post(f"/{form}", data=data, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/games/7?tab=log", r.text


@pytest.mark.parametrize("evil", ["//evil.example/x", "https://evil.example/", "/\\evil.example", "/\t/evil.example",
                                  "http:/evil", "javascript:alert(1)", "/games/1\r\nSet-Cookie: x=1", ""])
def test_only_a_path_on_this_site_is_followed(client: TestClient, evil: str) -> None:
    api_user(client, "dora")
    r = client.post("/login", data={"csrf": csrf_of(client), "name": "dora", "password": "password-dora",
                                    "next": evil}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/", r.headers["location"]
    assert "evil" not in client.get(f"/login?next={quote(evil, safe='')}").text.split("<main>", 1)[1]


def test_a_page_that_needs_a_login_sends_there_and_back(client: TestClient) -> None:
    r = client.get("/account", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login?next=%2Faccount"
    assert client.get("/api/me").status_code == 401  # the API answers, it never redirects


# ----------------------------------------------------------------------------- item 9: ending a vacation
def test_a_vacation_ends_early_through_the_api_and_the_clock_gets_the_rest_back(any_client: TestClient) -> None:
    client = any_client
    ann, bob = api_user(client, "ann"), api_user(client, "bob")
    gid = new_game(client, ann, time_control="move:2")
    assert client.post(f"/api/games/{gid}/join", headers=bob).status_code == 200
    h = ann if client.get(f"/api/games/{gid}", headers=ann).json()["my_turn"] else bob
    before = datetime.fromisoformat(client.get(f"/api/games/{gid}", headers=h).json()["clock"]["deadline"])
    assert client.post("/api/vacation/end", headers=h).status_code == 409  # not away: nothing to end
    assert client.post("/api/vacation", json={"days": 5}, headers=h).status_code == 201
    paused = datetime.fromisoformat(client.get(f"/api/games/{gid}", headers=h).json()["clock"]["deadline"])
    assert paused - before > timedelta(days=4, hours=23)
    r = client.post("/api/vacation/end", headers=h)
    assert r.status_code == 200, r.text
    assert r.json()["absences"] == [] and r.json()["used_days"] < 0.01
    after = datetime.fromisoformat(client.get(f"/api/games/{gid}", headers=h).json()["clock"]["deadline"])
    assert abs((after - before).total_seconds()) < 60  # the unused days are given back to nobody
    seats = client.get(f"/api/games/{gid}", headers=h).json()["clock"]["seats"]
    assert all(s["away_until"] is None for s in seats)
    assert client.post("/api/vacation/end", headers=h).status_code == 409


def test_a_coming_vacation_can_be_called_off(any_client: TestClient) -> None:
    client = any_client
    h = api_user(client, "ann")
    starts = utcnow() + timedelta(days=3)
    assert client.post("/api/vacation", json={"days": 4, "starts": starts.isoformat()}, headers=h).status_code == 201
    r = client.post("/api/vacation/end", headers=h)
    assert r.status_code == 200 and r.json()["absences"] == [] and r.json()["used_days"] == 0


def test_a_vacation_ends_early_on_the_account_page(client: TestClient) -> None:
    csrf = page_login(client, "ann")
    assert client.post("/account/vacation", data={"csrf": csrf, "days": "3"}).status_code == 200
    page = client.get("/account").text
    assert 'action="/account/vacation/end"' in page
    r = client.post("/account/vacation/end", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/account"
    page = client.get("/account").text
    assert "Your vacation has ended" in page and 'action="/account/vacation/end"' not in page
    assert client.post("/account/vacation/end", data={"csrf": csrf}).status_code == 409


# ----------------------------------------------------------------------------- item 10
def test_the_game_kind_page_lists_a_finished_game_once(client: TestClient) -> None:
    ann, bob = api_user(client, "ann"), api_user(client, "bob")
    gid = new_game(client, ann)
    assert client.post(f"/api/games/{gid}/join", headers=bob).status_code == 200
    play_to_the_end(client, gid, ann, bob)
    running = new_game(client, ann)
    assert client.post(f"/api/games/{running}/join", headers=bob).status_code == 200
    page = client.get("/games/toypig?lang=en").text
    assert len(re.findall(rf'href="/games/{gid}"', page)) == 1, page
    assert len(re.findall(rf'href="/games/{running}"', page)) == 1, page


def test_account_forms_redirect_with_a_flash_message(client: TestClient) -> None:
    csrf = page_login(client, "ann")
    r = client.post("/account/notifications", data={"csrf": csrf, "turns": "off", "digest_hour": "9",
                                                     "timezone": "Europe/Berlin"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/account"
    first = client.get("/account").text
    assert 'id="notice"' in first and "saved" in first
    assert 'id="notice"' not in client.get("/account").text  # shown once
    for path, data in (("/account/play", {"handover_seconds": "10"}),
                       ("/account/password", {"current": "password-ann", "new": "a-new-password"})):
        r = client.post(path, data={"csrf": csrf, **data}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/account", (path, r.text)
        assert 'id="notice"' in client.get("/account").text
    # A refused form still answers at once, with the reason and nothing changed.
    r = client.post("/account/play", data={"csrf": csrf, "handover_seconds": "7"}, follow_redirects=False)
    assert r.status_code == 400


def test_a_new_token_page_replaces_its_address(client: TestClient) -> None:
    """The token is shown once (never put in a cookie or an address): the page swaps its POST address
    for /account in the history, so a reload asks for nothing again."""
    csrf = page_login(client, "ann")
    r = client.post("/account/tokens", data={"csrf": csrf, "label": "x", "password": "password-ann"})
    assert r.status_code == 200 and 'id="new-token"' in r.text and 'data-replace-url="/account"' in r.text


def test_next_game_stands_out_only_when_a_game_waits(client: TestClient) -> None:
    page_login(client, "ann")
    link = re.search(r'<a [^>]*id="next-game"[^>]*>', client.get("/account").text)
    assert link and "btn-accent" not in link.group(0), link
    bob = api_user(client, "bob")
    gid = new_game(client, bob)
    client.post(f"/games/{gid}/join", data={"csrf": csrf_of(client)})
    ann = site_of(client).accounts.check_login("ann", "password-ann")[0].id
    for _ in range(50):  # bob holds until it is ann's turn
        if site_of(client).notify.waiting_games(ann):
            break
        g = client.get(f"/api/games/{gid}", headers=bob).json()
        if g["my_turn"]:
            action = "hold" if g["view"]["pot"] > 0 else "roll"
            client.post(f"/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=bob)
    assert site_of(client).notify.waiting_games(ann)
    link = re.search(r'<a [^>]*id="next-game"[^>]*>', client.get("/account").text)
    assert link and "btn-accent" in link.group(0), link
