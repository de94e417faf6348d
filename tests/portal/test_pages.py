"""The HTML pages: accounts, CSRF, languages, lobby forms and the game page."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from ludothek.portal.i18n import TEXTS
from ludothek.portal.security import COOKIE
from tests.portal.conftest import csrf_of, page_login


def test_register_logout_login(client: TestClient) -> None:
    token = page_login(client, "alice")
    cookie = client.cookies.get(COOKIE)
    assert cookie
    r = client.get("/")
    assert "alice" in r.text and "Running games" in r.text
    assert client.post("/logout", data={"csrf": token}, follow_redirects=False).status_code == 303
    assert "alice" not in client.get("/").text
    page_login(client, "alice", register=False)
    assert "alice" in client.get("/").text


def test_session_cookie_flags(client: TestClient) -> None:
    r = client.get("/login")
    header = r.headers["set-cookie"].lower()
    assert "httponly" in header and "samesite=lax" in header


def test_forms_refuse_missing_or_wrong_csrf(client: TestClient) -> None:
    csrf_of(client)
    r = client.post("/register", data={"csrf": "forged", "name": "mallory", "password": "password-x"})
    assert r.status_code == 403 and "CSRF" in r.text
    r = client.post("/guest", data={"csrf": ""})
    assert r.status_code in (403, 422)
    other = TestClient(client.app)
    token = csrf_of(other)  # a valid token, but for another session
    r = client.post("/register", data={"csrf": token, "name": "mallory", "password": "password-x"})
    assert r.status_code == 403


def test_bad_login_is_refused_then_slowed_down(client: TestClient) -> None:
    page_login(client, "alice")
    client.cookies.clear()
    token = csrf_of(client)
    for _ in range(3):
        r = client.post("/login", data={"csrf": token, "name": "alice", "password": "wrong-wrong"})
        assert r.status_code == 401 and "Wrong user name or password" in r.text
    r = client.post("/login", data={"csrf": token, "name": "alice", "password": "password-alice"})
    assert r.status_code == 429 and "Retry-After" in r.headers


def test_guest_and_conversion(client: TestClient) -> None:
    token = csrf_of(client)
    assert client.post("/guest", data={"csrf": token}, follow_redirects=False).status_code == 303
    token = csrf_of(client)
    page = client.get("/account").text
    assert "Guest account" in page
    r = client.post("/account/convert", data={"csrf": token, "name": "gustav", "password": "password-gustav"},
                    follow_redirects=False)
    assert r.status_code == 303
    assert "gustav" in client.get("/account").text
    assert "Guest account" not in client.get("/account").text


def test_language_switch_on_every_page(client: TestClient) -> None:
    token = page_login(client, "alice")
    for path in ("/", "/new", "/account"):
        assert 'action="/lang"' in client.get(path).text
    r = client.post("/lang", data={"csrf": token, "lang": "de", "next": "/new"}, follow_redirects=False)
    assert r.headers["location"] == "/new"
    page = client.get("/new").text
    assert TEXTS["new_game"]["de"] in page and 'lang="de"' in page
    assert "Spielende" in page or "Länge" in page  # option labels come from the game, in German


def test_every_text_has_both_languages() -> None:
    for key, texts in TEXTS.items():
        assert set(texts) == {"de", "en"}, key


def test_create_join_and_play_by_form(client: TestClient) -> None:
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "opt_length": "short",
                                  "seat1": "open"}, follow_redirects=False)
    assert r.status_code == 303
    url = r.headers["location"]
    bob = TestClient(client.app)
    bob_token = page_login(bob, "bob")
    assert "Join" in bob.get(url).text
    assert bob.post(f"{url}/join", data={"csrf": bob_token}, follow_redirects=False).status_code == 303
    pages = {name: (c, tok, c.get(url).text) for name, c, tok in (("a", client, token), ("b", bob, bob_token))}
    c, tok, page = next(v for v in pages.values() if 'data-my-turn="yes"' in v[2])
    seq = re.search(r'data-seq="(\d+)"', page).group(1)  # type: ignore[union-attr]
    assert 'data-action="hold"' in page and "Your legal actions" in page
    headers = {"HX-Request": "true"}
    r = c.post(f"{url}/act", data={"csrf": tok, "action": "hold", "seq": seq}, headers=headers)
    assert r.status_code == 200 and 'id="game"' in r.text
    # the double click: the same move against the same number is refused, the board is fresh again
    r = c.post(f"{url}/act", data={"csrf": tok, "action": "hold", "seq": seq}, headers=headers)
    assert r.status_code == 409 and "too late" in r.text and 'id="game"' in r.text
    r = c.post(f"{url}/act", data={"csrf": "nope", "action": "hold", "seq": seq}, headers=headers)
    assert r.status_code == 403


def test_bot_game_from_the_form_and_next_game(client: TestClient) -> None:
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "seat1": "bot"},
                    follow_redirects=False)
    url = r.headers["location"]
    page = client.get(url).text
    assert "bot-tag" in page
    r = client.get("/next", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] in (url, "/?waiting=none")


def test_unknown_game_page_and_spectator(client: TestClient) -> None:
    assert client.get("/games/4242").status_code == 404
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "seat1": "open"},
                    follow_redirects=False)
    url = r.headers["location"]
    bob = TestClient(client.app)
    bob.post(f"{url}/join", data={"csrf": page_login(bob, "bob")})
    viewer = TestClient(client.app)
    page = viewer.get(url).text
    assert "You are watching" in page
    assert "data-action" not in page.split('id="legal"')[1].split("</section>")[0]
