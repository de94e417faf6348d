"""Friends and blocks in the JSON API and on the pages (issue 12, parts 4 and 5)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from ludothek.storage.models import Block, Friend, GameRow, SeatRow
from tests.portal.conftest import api_user, page_login


def rows(client: TestClient) -> tuple[Any, ...]:
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    with site.engine.begin() as conn:
        return tuple(conn.execute(select(func.count()).select_from(t)).scalar_one()
                     for t in (Friend, Block, GameRow, SeatRow))


def refused(client: TestClient, method: str, url: str, status: int, key: str, **kw: Any) -> dict[str, Any]:
    before = rows(client)
    r = client.request(method, url, **kw)
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"detail", "code"} and body["code"] == key, body
    assert rows(client) == before, "a refused request changed the database"
    return body


def test_friend_list(client: TestClient) -> None:
    ann, bob = api_user(client, "ann"), api_user(client, "bob")
    assert client.get("/api/friends", headers=ann).json()["items"] == []
    r = client.put("/api/v1/friends/BOB", headers=ann)
    assert r.status_code == 201, r.text
    assert r.json()["last_active"] is None  # bob has not used the site while logged in yet
    client.get("/api/me", headers=bob)
    r = client.put("/api/friends/BOB", headers=ann)
    assert r.status_code == 200, r.text  # once is enough
    assert r.json()["name"] == "bob" and r.json()["guest"] is False
    assert r.json()["last_active"] is not None
    listed = client.get("/api/friends", headers=ann).json()["items"]
    assert [f["name"] for f in listed] == ["bob"] and set(listed[0]) == {"name", "guest", "since", "last_active"}
    assert listed[0]["last_active"].endswith(("0:00Z", "5:00Z", "0:00+00:00", "5:00+00:00"))  # five-minute grain
    assert client.get("/api/friends", headers=bob).json()["items"] == []  # one-way
    refused(client, "PUT", "/api/friends/ann", 400, "bad_request", headers=ann)
    refused(client, "PUT", "/api/friends/nobody", 404, "not_found", headers=ann)
    refused(client, "PUT", "/api/friends/bob", 401, "unauthorized", headers={})
    refused(client, "GET", "/api/friends", 401, "unauthorized")
    assert client.delete("/api/friends/bob", headers=ann).status_code == 204
    refused(client, "DELETE", "/api/friends/bob", 404, "not_found", headers=ann)
    assert client.get("/api/friends", headers=ann).json()["items"] == []


def test_blocks_in_the_api(client: TestClient) -> None:
    ann, bob = api_user(client, "ann"), api_user(client, "bob")
    client.put("/api/friends/bob", headers=ann)
    waiting = client.post("/api/games", json={"game": "toypig", "players": 3}, headers=ann).json()["id"]
    assert client.put("/api/blocks/bob", headers=ann).status_code == 201
    assert client.put("/api/blocks/bob", headers=ann).status_code == 200
    assert [b["name"] for b in client.get("/api/blocks", headers=ann).json()["items"]] == ["bob"]
    assert client.get("/api/friends", headers=ann).json()["items"] == []
    refused(client, "PUT", "/api/blocks/ann", 400, "bad_request", headers=ann)
    refused(client, "PUT", "/api/friends/ann", 403, "blocked", headers=bob)
    body = refused(client, "POST", "/api/games", 403, "blocked", headers=bob, json={
        "game": "toypig", "players": 2, "seats": [{"kind": "me"}, {"kind": "invite", "user": "ann"}]})
    assert body["detail"] == "ann does not accept invitations from you" and body["code"] == "blocked"
    refused(client, "POST", f"/api/games/{waiting}/join", 403, "blocked", headers=bob)
    assert waiting not in [g["id"] for g in client.get("/api/games", headers=bob).json()["items"]]
    assert waiting in [g["id"] for g in client.get("/api/games").json()["items"]]  # others still see it
    assert client.delete("/api/blocks/bob", headers=ann).status_code == 204
    refused(client, "DELETE", "/api/blocks/bob", 404, "not_found", headers=ann)
    assert client.post(f"/api/games/{waiting}/join", headers=bob).status_code == 200


def test_openapi_declares_the_friend_models(client: TestClient) -> None:
    paths = {p.removeprefix("/api/v1"): ops for p, ops in client.get("/openapi.json").json()["paths"].items()
             if p.startswith("/api/v1/")}
    schema = client.get("/openapi.json").json()
    ok = paths["/friends"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    page = schema["components"]["schemas"][ok["$ref"].split("/")[-1]]
    assert set(page["required"]) == {"items", "next_cursor"}
    assert page["properties"]["items"]["items"]["$ref"].endswith("/FriendOut")
    put = paths["/friends/{name}"]["put"]["responses"]
    assert put["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/FriendOut") and "201" in put
    assert put["400"]["content"]["application/json"]["schema"]["$ref"].endswith("/ApiError")
    assert paths["/blocks/{name}"]["put"]["responses"]["200"]["content"]["application/json"]["schema"][
        "$ref"].endswith("/BlockOut")
    assert {"delete", "put"} <= set(paths["/blocks/{name}"]) and {"delete", "put"} <= set(paths["/friends/{name}"])


def test_friends_page_and_one_click_invitations(client: TestClient) -> None:
    client.get("/api/me", headers=api_user(client, "bob"))  # bob was here just now, cid never
    api_user(client, "cid")
    csrf = page_login(client, "ann")
    assert client.post("/friends", data={"csrf": csrf, "name": "bob"}, follow_redirects=False).status_code == 303
    client.post("/friends", data={"csrf": csrf, "name": "cid"})
    page = client.get("/friends").text
    assert 'data-friend="bob"' in page and 'href="/new?invite=bob"' in page
    assert page.count("active now") == 1 and page.count("not seen yet") == 1
    assert "2 friends on your list." in page
    r = client.post("/friends", data={"csrf": csrf, "name": "ann"})
    assert r.status_code == 400 and "You cannot put yourself on your friend list." in r.text
    r = client.post("/friends", data={"csrf": csrf, "name": "<script>x</script>"})
    assert r.status_code == 404 and "&lt;script&gt;x&lt;/script&gt;" in r.text and "<script>x" not in r.text
    assert client.post("/friends", data={"csrf": "forged", "name": "cid"}).status_code == 403
    form = client.get("/new?game=toypig&invite=bob&invite=cid").text
    assert 'data-invite="bob"' in form and 'data-invite="cid"' in form and 'id="friend-names"' in form
    assert 'name="seat1_name" class="invite-name" value="bob"' in form
    assert 'name="seat2_name" class="invite-name" value="cid"' in form
    assert '<option value="3" selected>' in form
    r = client.post("/new", data={"csrf": csrf, "game": "toypig", "players": "3", "seat1": "invite",
                                  "seat1_name": "bob", "seat2": "invite", "seat2_name": "cid"}, follow_redirects=False)
    assert r.status_code == 303
    client.post("/blocks", data={"csrf": csrf, "name": "cid"})
    page = client.get("/friends").text
    assert 'data-blocked="cid"' in page and 'data-friend="cid"' not in page
    # The new-game form keeps what was typed and says why, in the player's language.
    client.post("/lang", data={"csrf": csrf, "lang": "de"})
    r = client.post("/new", data={"csrf": csrf, "game": "toypig", "players": "2", "seat1": "invite",
                                  "seat1_name": "cid"})
    assert r.status_code == 403 and "Du hast cid blockiert" in r.text and 'value="cid"' in r.text
    client.post("/blocks/remove", data={"csrf": csrf, "name": "cid"})
    assert 'data-blocked="cid"' not in client.get("/friends").text


def test_last_activity_reads_naturally_in_both_languages() -> None:
    from datetime import UTC, datetime, timedelta

    from ludothek.portal.routes.friends import activity_text

    now = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
    said = {lang: [activity_text(now - delta, lang, now) if delta is not None else activity_text(None, lang, now)
                   for delta in (timedelta(minutes=3), timedelta(minutes=22), timedelta(hours=1),
                                 timedelta(hours=5), timedelta(days=1), timedelta(days=9), None)]
            for lang in ("de", "en")}
    assert said["en"] == ["active now", "active 20 minutes ago", "active an hour ago", "active 5 hours ago",
                          "active a day ago", "active 9 days ago", "not seen yet"]
    assert said["de"] == ["gerade aktiv", "vor 20 Minuten aktiv", "vor einer Stunde aktiv", "vor 5 Stunden aktiv",
                          "vor einem Tag aktiv", "vor 9 Tagen aktiv", "noch nicht gesehen"]
