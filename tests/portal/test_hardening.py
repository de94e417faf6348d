"""Smaller holes (issue 15, part 6): security headers, local redirects only, guest names, enumeration."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from fastapi.testclient import TestClient

from ludothek.portal.hardening import local_path
from tests.portal.conftest import api_user, csrf_of, page_login
from tests.portal.test_api import start_game

TEMPLATES = resources.files("ludothek.portal") / "templates"


def assert_hardened(headers: object, docs: bool = False) -> None:
    h = headers  # a case-insensitive mapping
    csp = h["content-security-policy"]  # type: ignore[index]
    assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    if not docs:
        script = re.search(r"script-src ([^;]*)", csp).group(1)  # type: ignore[union-attr]
        assert script.split() == ["'self'"], csp
    assert h["x-content-type-options"] == "nosniff"  # type: ignore[index]
    assert h["x-frame-options"] == "DENY"  # type: ignore[index]
    assert h["referrer-policy"] == "same-origin"  # type: ignore[index]


def test_security_headers_on_every_kind_of_response(client: TestClient) -> None:
    h1, h2 = api_user(client, "alice"), api_user(client, "bob")
    gid = start_game(client, h1, h2)
    for url in ("/", "/login", f"/games/{gid}", "/games/999999", "/nowhere", "/static/ludothek.js",
                "/api/catalog", f"/api/games/{gid}", "/api/me", "/openapi.json"):
        r = client.get(url)
        assert_hardened(r.headers)
    r = client.post("/api/games", json={"game": "nope", "players": 2}, headers=h1)
    assert r.status_code == 404
    assert_hardened(r.headers)
    r = client.post("/login", data={"csrf": "forged", "name": "x", "password": "y"})
    assert r.status_code == 403
    assert_hardened(r.headers)
    assert_hardened(client.get("/docs").headers, docs=True)


def test_pages_have_no_inline_script() -> None:
    """The policy allows scripts from files only: no template may rely on an inline one."""
    files = [p for p in _walk(TEMPLATES) if p.name.endswith(".html")]
    assert files
    for p in files:
        html = p.read_text(encoding="utf-8")
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag, f"{p.name}: inline <script>"
        assert not re.search(r"\son[a-z]+\s*=", html), f"{p.name}: an inline event handler"
        assert "javascript:" not in html, p.name


def _walk(folder: object) -> list[object]:
    out = []
    for p in folder.iterdir():  # type: ignore[attr-defined]
        out.extend(_walk(p) if p.is_dir() else [p])
    return out


@pytest.mark.parametrize(
    "target",
    ["//evil.example", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "/\t/evil.example",
     "/\n/evil.example", "evil.example", "", "\\\\evil.example", "/\\/evil.example"],
)
def test_redirects_go_only_to_local_paths(client: TestClient, target: str) -> None:
    csrf = csrf_of(client)
    r = client.post("/lang", data={"csrf": csrf, "lang": "de", "next": target}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/", r.headers
    r = client.post("/lang", data={"csrf": csrf, "lang": "en", "next": target}, headers={"HX-Request": "true"})
    assert r.status_code == 204 and r.headers["hx-redirect"] == "/"


def test_local_redirects_are_encoded(client: TestClient) -> None:
    csrf = csrf_of(client)
    r = client.post("/lang", data={"csrf": csrf, "lang": "de", "next": "/games/1?x=ä b"}, follow_redirects=False)
    assert r.headers["location"] == "/games/1?x=%C3%A4%20b"
    r = client.post("/lang", data={"csrf": csrf, "lang": "de", "next": "/new?game=toypig"}, follow_redirects=False)
    assert r.headers["location"] == "/new?game=toypig"
    assert local_path("/a\ud800") == "/"


@pytest.mark.parametrize("name", ["guest-123456", "Guest-000001", "GUEST-42", "guest-bob"])
def test_real_accounts_cannot_take_guest_names(client: TestClient, name: str) -> None:
    r = client.post("/api/users", json={"name": name, "password": "password-x"})
    assert r.status_code == 400 and "guest" in r.json()["detail"], r.text
    csrf = csrf_of(client)
    r = client.post("/register", data={"csrf": csrf, "name": name, "password": "password-x"})
    assert r.status_code == 400
    client.post("/guest", data={"csrf": csrf})
    csrf = csrf_of(client)
    r = client.post("/account/convert", data={"csrf": csrf, "name": name, "password": "password-x"})
    assert r.status_code == 400 and "guest accounts" in r.text
    assert client.get("/api/me").json()["guest"] is True


def test_a_login_does_not_tell_whether_the_name_exists(client: TestClient) -> None:
    page_login(client, "alice")
    answers = []
    portal = client.app.state.portal  # type: ignore[attr-defined]
    for name in ("alice", "nobody-here"):
        portal.throttle = type(portal.throttle)()  # the brake is not what this test is about
        r = client.post("/api/tokens", json={"name": name, "password": "wrong-password"})
        answers.append((r.status_code, r.json()))
        csrf = csrf_of(client)
        r = client.post("/login", data={"csrf": csrf, "name": name, "password": "wrong-password"})
        answers.append((r.status_code, re.search(r'role="alert">([^<]*)<', r.text).group(1)))  # type: ignore[union-attr]
    assert answers[0] == answers[2] and answers[1] == answers[3], answers
