"""Game chat in the JSON API, the pages and live messages: access, refusals, limits, reports and stored XSS
(issue 12, parts 4 and 5)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from ludothek.services.community.chat import MAX_CHAT_LENGTH
from ludothek.storage.models import ChatMessage, ChatReport
from tests.portal.conftest import api_user, in_one_rate_window, page_login

#: Script, HTML and control characters: every one must come out inert.
EVIL = "<script>alert('x')</script><img src=x onerror=alert(1)> & \"q\" 'a' \x07\x1b[2J\u202eevil"
#: What is stored of it: control characters taken out (the bidi override is not one; <bdi> isolates it).
STORED = "<script>alert('x')</script><img src=x onerror=alert(1)> & \"q\" 'a' [2J\u202eevil"


def chat_rows(client: TestClient) -> tuple[int, int]:
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    with site.engine.begin() as conn:
        return (conn.execute(select(func.count()).select_from(ChatMessage)).scalar_one(),
                conn.execute(select(func.count()).select_from(ChatReport)).scalar_one())


def refused(client: TestClient, method: str, url: str, status: int, code: str, **kw: Any) -> dict[str, Any]:
    before = chat_rows(client)
    r = client.request(method, url, **kw)
    assert r.status_code == status, r.text
    body = r.json()
    assert {"detail", "code"} <= set(body) <= {"detail", "code", "errors"} and body["detail"], body
    assert body["code"] == code, body
    assert chat_rows(client) == before, "a refused request stored something"
    return body


@pytest.fixture
def table(client: TestClient) -> dict[str, Any]:
    """A running two-player game of ann and bob, and eve, who only watches."""
    ann, bob, eve = (api_user(client, n) for n in ("ann", "bob", "eve"))
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=ann).json()["id"]
    assert client.post(f"/api/games/{gid}/join", headers=bob).json()["status"] == "running"
    return {"gid": gid, "ann": ann, "bob": bob, "eve": eve}


def end(client: TestClient, t: dict[str, Any]) -> None:
    """Both players agree to abandon: the game has ended (without a result)."""
    gid = t["gid"]
    assert client.post(f"/api/games/{gid}/abandon", json={"agree": True}, headers=t["ann"]).status_code == 200
    assert client.post(f"/api/games/{gid}/abandon", json={"agree": True}, headers=t["bob"]).json()["status"] == "abandoned"


def test_players_chat_and_spectators_read_only_after_the_end(client: TestClient, table: dict[str, Any]) -> None:
    gid, ann, bob, eve = table["gid"], table["ann"], table["bob"], table["eve"]
    r = client.post(f"/api/v1/games/{gid}/chat", json={"text": "good luck, bob"}, headers=ann)
    assert r.status_code == 201, r.text
    sent = r.json()
    assert sent["author"] == "ann" and sent["text"] == "good luck, bob" and sent["game"] == gid
    assert sent["seq"] == client.get(f"/api/games/{gid}", headers=ann).json()["seq"]
    got = client.get(f"/api/games/{gid}/chat", headers=bob).json()
    assert [m["text"] for m in got["messages"]] == ["good luck, bob"] and got["can_write"]
    assert got["hidden"] == 0 and got["max_length"] == MAX_CHAT_LENGTH
    # While the game runs: nothing for a spectator, in the API or on the page.
    refused(client, "GET", f"/api/games/{gid}/chat", 403, "forbidden", headers=eve)
    refused(client, "GET", f"/api/games/{gid}/chat", 403, "forbidden")
    refused(client, "POST", f"/api/games/{gid}/chat", 403, "forbidden", json={"text": "hi"}, headers=eve)
    refused(client, "POST", f"/api/games/{gid}/chat", 401, "unauthorized", json={"text": "hi"})
    refused(client, "POST", "/api/games/999999/chat", 404, "not_found", json={"text": "hi"}, headers=ann)
    page = client.get(f"/games/{gid}").text
    assert "good luck" not in page and 'id="chat-closed"' in page
    whole = client.get(f"/games/{gid}/chat")
    assert whole.status_code == 403 and "good luck" not in whole.text
    assert "good luck" not in client.get(f"/api/games/{gid}", headers=eve).text
    end(client, table)
    after = client.get(f"/api/games/{gid}/chat", headers=eve).json()
    assert [m["text"] for m in after["messages"]] == ["good luck, bob"] and not after["can_write"]
    assert client.get(f"/api/games/{gid}/chat").status_code == 200
    assert client.post(f"/api/games/{gid}/chat", json={"text": "gg"}, headers=bob).status_code == 201
    assert "gg" in client.get(f"/games/{gid}").text


def test_size_and_rate_limits_refuse_and_store_nothing(client: TestClient, table: dict[str, Any]) -> None:
    gid, ann = table["gid"], table["ann"]
    url = f"/api/games/{gid}/chat"
    body = refused(client, "POST", url, 400, "bad_request", json={"text": "x" * (MAX_CHAT_LENGTH + 1)}, headers=ann)
    assert "500" in body["detail"]
    refused(client, "POST", url, 400, "bad_request", json={"text": " \n\t "}, headers=ann)
    # a lone surrogate is no Unicode text: it does not fit the schema's string
    refused(client, "POST", url, 422, "malformed", content=b'{"text": "\\ud800"}',
            headers={**ann, "content-type": "application/json"})
    refused(client, "POST", url, 422, "malformed", json={"text": 5}, headers=ann)
    refused(client, "POST", url, 422, "malformed", json={}, headers=ann)
    in_one_rate_window(60)  # the eleven counted messages within one minute of the counters
    for i in range(10):  # the refusals above did not count against the limit
        assert client.post(url, json={"text": f"message {i}"}, headers=ann).status_code == 201
    r = client.post(url, json={"text": "one too many"}, headers=ann)
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    assert chat_rows(client)[0] == 10
    assert client.post(url, json={"text": "bob has his own limit"}, headers=table["bob"]).status_code == 201


def test_script_html_and_control_characters_are_inert(client: TestClient, table: dict[str, Any]) -> None:
    gid, ann, bob = table["gid"], table["ann"], table["bob"]
    r = client.post(f"/api/games/{gid}/chat", json={"text": EVIL}, headers=ann)
    assert r.status_code == 201 and r.headers["content-type"] == "application/json"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.json()["text"] == STORED
    assert client.get(f"/api/games/{gid}/chat", headers=bob).json()["messages"][0]["text"] == STORED
    client.cookies.clear()
    page_login(client, "bob", register=False)
    for url in (f"/games/{gid}", f"/games/{gid}/chat"):
        html = client.get(url).text
        assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in html, url
        assert "<script>alert" not in html and "<img src=x" not in html and "\x07" not in html and "\x1b" not in html
        assert re.search(r"<bdi class=\"chat-text\">[^<]*evil</bdi>", html), url


def test_chat_goes_live_to_the_table_only(client: TestClient, table: dict[str, Any]) -> None:
    gid, ann, bob = table["gid"], table["ann"], table["bob"]
    token = {n: table[n]["Authorization"].split()[1] for n in ("bob", "eve")}
    with client.websocket_connect(f"/api/games/{gid}/live?token={token['bob']}") as player, \
            client.websocket_connect(f"/games/{gid}/live?token={token['eve']}") as spectator:
        assert player.receive_json()["type"] == "hello" and spectator.receive_json()["type"] == "hello"
        client.post(f"/api/games/{gid}/chat", json={"text": EVIL}, headers=ann)
        heard = player.receive_json()
        assert heard == {"type": "chat", "game": gid, "message": heard["message"]}
        assert heard["message"]["text"] == STORED and heard["message"]["author"] == "ann"
        assert "to" not in heard and "skip" not in heard
        # A move follows: the spectator's next message is that update; the chat never reached them.
        g = client.get(f"/api/games/{gid}", headers=ann).json()
        mover = ann if g["my_turn"] else bob
        client.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": g["seq"]}, headers=mover)
        assert spectator.receive_json()["type"] == "update"
        assert player.receive_json()["type"] == "update"


def test_blocking_hides_the_blocked_players_chat(client: TestClient, table: dict[str, Any]) -> None:
    gid, ann, bob = table["gid"], table["ann"], table["bob"]
    assert client.put("/api/blocks/bob", headers=ann).status_code == 201
    token = table["ann"]["Authorization"].split()[1]
    with client.websocket_connect(f"/api/games/{gid}/live?token={token}") as ws:
        assert ws.receive_json()["type"] == "hello"
        client.post(f"/api/games/{gid}/chat", json={"text": "can you hear me"}, headers=bob)
        client.post(f"/api/games/{gid}/chat", json={"text": "I hear only myself"}, headers=ann)
        assert ws.receive_json()["message"]["text"] == "I hear only myself"
    mine = client.get(f"/api/games/{gid}/chat", headers=ann).json()
    assert [m["text"] for m in mine["messages"]] == ["I hear only myself"] and mine["hidden"] == 1
    assert len(client.get(f"/api/games/{gid}/chat", headers=bob).json()["messages"]) == 2


def test_reports(client: TestClient, table: dict[str, Any]) -> None:
    gid, ann, bob, eve = table["gid"], table["ann"], table["bob"], table["eve"]
    mid = client.post(f"/api/games/{gid}/chat", json={"text": "rude"}, headers=bob).json()["id"]
    r = client.post(f"/api/chat/{mid}/report", json={"reason": "abuse"}, headers=ann)
    assert r.status_code == 201 and r.json()["message"] == mid
    refused(client, "POST", f"/api/chat/{mid}/report", 409, "conflict", json={"reason": "spam"}, headers=ann)
    refused(client, "POST", f"/api/chat/{mid}/report", 400, "bad_request", json={}, headers=bob)
    refused(client, "POST", f"/api/chat/{mid}/report", 404, "not_found", json={}, headers=eve)
    refused(client, "POST", f"/api/chat/{mid + 99}/report", 404, "not_found", json={}, headers=ann)
    refused(client, "POST", f"/api/chat/{mid}/report", 422, "malformed", json={"reason": "boring"}, headers=ann)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    assert [(q.reporter, q.author, q.text) for q in site.chat.chat_reports()] == [("ann", "bob", "rude")]


def test_chat_through_the_pages(client: TestClient, table: dict[str, Any]) -> None:
    gid = table["gid"]
    csrf = page_login(client, "bob", register=False)
    r = client.post(f"/games/{gid}/chat", data={"csrf": csrf, "text": "from the form"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/games/{gid}#chat"
    r = client.post(f"/games/{gid}/chat", data={"csrf": csrf, "text": "by script"}, headers={"X-Ludothek-Fetch": "1"})
    assert r.status_code == 201 and r.json()["text"] == "by script"
    r = client.post(f"/games/{gid}/chat", data={"csrf": csrf, "text": "y" * 501}, headers={"X-Ludothek-Fetch": "1"})
    assert r.status_code == 400 and r.json()["detail"].startswith("A message has at most 500 characters")
    assert client.post(f"/games/{gid}/chat", data={"csrf": "forged", "text": "x"}).status_code == 403
    page = client.get(f"/games/{gid}").text
    assert 'id="chat-form"' in page and "from the form" in page and "by script" in page
    assert chat_rows(client)[0] == 2
    ann_says = client.post(f"/api/games/{gid}/chat", json={"text": "report me"}, headers=table["ann"]).json()["id"]
    r = client.post(f"/chat/{ann_says}/report", data={"csrf": csrf, "reason": "spam", "game": str(gid)},
                    follow_redirects=False)
    assert r.status_code == 303 and f"/games/{gid}/chat?reported={ann_says}" == r.headers["location"]
    assert 'id="notice"' in client.get(r.headers["location"]).text
    r = client.post(f"/chat/{ann_says}/report", data={"csrf": csrf, "reason": "spam"}, headers={"X-Ludothek-Fetch": "1"})
    assert r.status_code == 409 and r.json()["detail"] == "You have reported this message already."


def test_openapi_declares_the_chat_models(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    get = paths["/api/v1/games/{game_id}/chat"]["get"]
    assert get["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/ChatOut")
    assert get["responses"]["403"]["content"]["application/json"]["schema"]["$ref"].endswith("/ApiError")
    assert get["security"] == [{"bearer": []}, {}]  # a login is optional: after the end anyone may read
    post = paths["/api/v1/games/{game_id}/chat"]["post"]["responses"]
    assert post["201"]["content"]["application/json"]["schema"]["$ref"].endswith("/ChatMessageOut")
    assert {"400", "401", "403", "404", "409", "422", "429"} <= set(post)
    assert paths["/api/v1/chat/{message_id}/report"]["post"]["responses"]["201"]["content"]["application/json"][
        "schema"]["$ref"].endswith("/ReportOut")
    assert "/api/games/{game_id}/chat" in paths  # the alias of the current version
    # the pages' forms are not part of the schema (the operator's health and metrics endpoints are)
    assert not [p for p in paths if not p.startswith("/api/") and p not in ("/healthz", "/readyz", "/metrics")]


def test_the_address_limit_counts_every_account_behind_it(db_url: str) -> None:
    from ludothek.portal import create_app
    from tests.portal.conftest import make_settings

    with TestClient(create_app(make_settings(db_url, limit_rules={"chat_addr": "3/minute"}))) as client:
        ann, bob = api_user(client, "ann"), api_user(client, "bob")
        gid = client.post("/api/v1/games", json={"game": "toypig", "players": 2}, headers=ann).json()["id"]
        client.post(f"/api/v1/games/{gid}/join", headers=bob)
        in_one_rate_window(60)  # every counted message, the page's too, within one minute of the counters
        for h in (ann, bob, ann):
            assert client.post(f"/api/v1/games/{gid}/chat", json={"text": "hi"}, headers=h).status_code == 201
        body = refused(client, "POST", f"/api/v1/games/{gid}/chat", 429, "too_many_attempts", json={"text": "hi"},
                       headers=bob)
        assert "address" in body["detail"]
        csrf = page_login(client, "bob", register=False)
        r = client.post(f"/games/{gid}/chat", data={"csrf": csrf, "text": "hi"}, headers={"X-Ludothek-Fetch": "1"})
        assert r.status_code == 429 and r.json()["detail"].startswith("Very many messages come from your address")
