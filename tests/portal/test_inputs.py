"""Inputs that used to give 500 (issue 15, part 5): each is now a clear 4xx, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ludothek.portal import create_app
from tests.portal.conftest import api_user, page_login
from tests.portal.test_api import db_snapshot, mover, start_game

#: Beyond int4 (PostgreSQL's Integer), beyond int8 (SQLite's), beyond both.
HUGE_IDS = (2**31, 2**63, 2**64, 0, -1)


@pytest.fixture
def raw_client(any_db: str) -> Iterator[TestClient]:
    """A client that reports a server error as the 500 a browser would get."""
    from tests.portal.conftest import make_settings

    with TestClient(create_app(make_settings(any_db)), raise_server_exceptions=False) as c:
        yield c


def send_json(client: TestClient, method: str, url: str, raw: str, headers: dict[str, str]) -> Any:
    """Send JSON text as written (``json=`` would refuse to encode a lone surrogate)."""
    return client.request(method, url, content=raw.encode("utf-8", "surrogatepass").replace(
        b"\xed\xa0\x80", b"\\ud800"), headers={**headers, "content-type": "application/json"})


def test_huge_game_ids_are_not_found_on_every_route(raw_client: TestClient) -> None:
    c = raw_client
    h = api_user(c, "alice")
    csrf = page_login(c, "bob")
    for gid in HUGE_IDS:
        for method, url in (("GET", f"/api/games/{gid}"), ("GET", f"/api/games/{gid}/record"),
                            ("GET", f"/api/games/{gid}/log"), ("POST", f"/api/games/{gid}/join"),
                            ("POST", f"/api/games/{gid}/leave"), ("POST", f"/api/games/{gid}/cancel")):
            r = c.request(method, url, headers=h)
            assert r.status_code == 404, (url, r.status_code, r.text)
            assert r.json()["code"] == "not_found"
        r = c.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": 0}, headers=h)
        assert r.status_code == 404, (gid, r.text)
        for url in (f"/games/{gid}", f"/games/{gid}/board"):
            r = c.get(url)
            assert r.status_code == 404 and "<html" in r.text, (url, r.status_code)
        for action in ("join", "leave", "cancel"):
            r = c.post(f"/games/{gid}/{action}", data={"csrf": csrf}, follow_redirects=False)
            assert r.status_code == 404, (action, r.status_code)
        r = c.post(f"/games/{gid}/act", data={"csrf": csrf, "action": "hold", "seq": "0"})
        assert r.status_code == 404
        for url in (f"/games/{gid}/live", f"/api/games/{gid}/live"):
            with pytest.raises(WebSocketDisconnect) as closed, c.websocket_connect(url) as ws:
                ws.receive_json()
            assert closed.value.code == 1008, url
        r = c.delete(f"/api/tokens/{gid}", headers=h)
        assert r.status_code == 404


def test_a_lone_surrogate_is_refused(raw_client: TestClient) -> None:
    c = raw_client
    h1, h2 = api_user(c, "alice"), api_user(c, "bob")
    gid = start_game(c, h1, h2)
    h, g = mover(c, gid, h1, h2)
    before = db_snapshot(c)
    # No Unicode text, so no string of the schema: 422 (the store refuses it too, where no schema bounds it)
    r = send_json(c, "POST", f"/api/games/{gid}/actions", json.dumps({"action": "\ud800", "seq": g["seq"]}), h)
    assert r.status_code == 422 and "unicode" in r.json()["detail"].lower(), r.text
    body = {"game": "toypig", "players": 2, "seats": [{"kind": "me"}, {"kind": "invite", "user": "\ud800"}]}
    r = send_json(c, "POST", "/api/games", json.dumps(body), h1)
    assert r.status_code == 422, r.text
    assert db_snapshot(c) == before
    # the same through the forms (the browser sends UTF-8 bytes no text can decode to)
    csrf = page_login(c, "carol")
    r = c.post("/new", content=f"csrf={csrf}&game=toypig&players=2&seat1=invite&seat1_name=%ED%A0%80",
               headers={"content-type": "application/x-www-form-urlencoded"})
    assert 400 <= r.status_code < 500, r.status_code
    r = c.post(f"/games/{gid}/act", content=f"csrf={csrf}&action=%ED%A0%80&seq={g['seq']}",
               headers={"content-type": "application/x-www-form-urlencoded"})
    assert 400 <= r.status_code < 500, r.status_code


def test_nul_characters_are_refused(raw_client: TestClient) -> None:
    """PostgreSQL's text columns cannot hold NUL: an invited name, a login name, a token label."""
    c = raw_client
    h = api_user(c, "alice")
    before = db_snapshot(c)
    body = {"game": "toypig", "players": 2, "seats": [{"kind": "me"}, {"kind": "invite", "user": "bo\x00b"}]}
    r = c.post("/api/games", json=body, headers=h)
    assert r.status_code == 400 and "NUL" in r.json()["detail"], r.text
    r = c.post("/api/tokens", json={"name": "ali\x00ce", "password": "password-alice"})
    assert r.status_code == 400, r.text
    r = c.post("/api/tokens", json={"name": "alice", "password": "password-alice", "label": "b\x00t"})
    assert r.status_code == 400, r.text
    r = c.post("/api/users", json={"name": "da\x00ve", "password": "password-dave"})
    assert r.status_code == 422, r.text  # not of the schema's name pattern
    assert db_snapshot(c) == before
    csrf = page_login(c, "bob")
    r = c.post("/login", data={"csrf": csrf, "name": "bo\x00b", "password": "password-bob"})
    assert r.status_code == 400, r.status_code
    r = c.post("/account/tokens", data={"csrf": csrf, "label": "b\x00t", "password": "password-bob"})
    assert r.status_code == 400, r.status_code
    r = c.post("/new", data={"csrf": csrf, "game": "toypig", "players": "2", "seat1": "invite",
                             "seat1_name": "al\x00ice"})
    assert r.status_code == 400, r.status_code


def test_a_non_ascii_csrf_value_is_refused_not_a_crash(raw_client: TestClient) -> None:
    """``hmac.compare_digest`` raises on non-ASCII text: the CSRF check compares bytes."""
    c = raw_client
    page_login(c, "alice")
    r = c.post("/api/logout-everywhere", headers={"X-CSRF-Token": b"\xc3\xa9"})  # type: ignore[dict-item]
    assert r.status_code == 403, r.status_code
    r = c.post("/logout", data={"csrf": "é"}, follow_redirects=False)
    assert r.status_code == 403, r.status_code
    assert c.get("/api/me").status_code == 200
