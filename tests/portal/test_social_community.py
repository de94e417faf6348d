"""The chat in replays and the friend and block buttons on profiles (issue 12, parts 1, 3 and 4 together)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.portal.conftest import api_user, page_login
from tests.portal.test_chat_api import EVIL, STORED


def extras(client: TestClient, gid: int, step: int, headers: dict[str, str], seat: int | None = None) -> list[Any]:
    url = f"/api/v1/games/{gid}/replay/{step}" + (f"?seat={seat}" if seat is not None else "")
    r = client.get(url, headers=headers)
    assert r.status_code == 200, r.text
    return [(x["kind"], x["seq"], x["author"], x["text"]) for x in r.json()["extras"]]


def play_to_end(client: TestClient, gid: int, *players: dict[str, str]) -> None:
    for i in range(3000):
        for h in players:
            g = client.get(f"/api/v1/games/{gid}?log=false", headers=h).json()
            if g["status"] != "running":
                return
            if g["my_turn"]:
                actions = [a["action"] for a in g["legal"]]
                action = "hold" if "hold" in actions and i % 3 == 0 else actions[0]
                client.post(f"/api/v1/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=h)
    raise AssertionError("the game did not end")


def test_the_replay_shows_each_message_from_the_move_it_was_written_at(client: TestClient) -> None:
    ann, bob, eve = (api_user(client, n) for n in ("ann", "bob", "eve"))
    gid = client.post("/api/v1/games", json={"game": "toypig", "players": 2}, headers=ann).json()["id"]
    client.post(f"/api/v1/games/{gid}/join", headers=bob)
    first = client.post(f"/api/v1/games/{gid}/chat", json={"text": "hello"}, headers=ann).json()
    g = client.get(f"/api/v1/games/{gid}", headers=ann).json()
    mover = ann if g["my_turn"] else bob
    client.post(f"/api/v1/games/{gid}/actions", json={"action": "roll", "seq": g["seq"]}, headers=mover)
    second = client.post(f"/api/v1/games/{gid}/chat", json={"text": EVIL}, headers=bob).json()
    assert second["seq"] > first["seq"]
    ann_seat = client.get(f"/api/v1/games/{gid}", headers=ann).json()["my_seat"]
    hello = ("chat", first["seq"], "ann", "hello")
    evil = ("chat", second["seq"], "bob", STORED)
    if first["seq"] > 0:
        assert extras(client, gid, first["seq"] - 1, ann, ann_seat) == []
    assert extras(client, gid, first["seq"], ann, ann_seat) == [hello]
    assert extras(client, gid, second["seq"], ann, ann_seat) == [hello, evil]
    assert extras(client, gid, second["seq"], ann) == [hello, evil]  # the spectator's view, but ann's chat
    # A spectator of the running game: the replay carries none of its chat.
    assert extras(client, gid, second["seq"], eve) == []
    assert extras(client, gid, second["seq"], {}) == []
    page = client.get(f"/games/{gid}/replay?step={second['seq']}", headers=eve).text
    assert "hello" not in page
    # Whom ann blocked, ann no longer reads in the replay either.
    client.put("/api/v1/blocks/bob", headers=ann)
    assert extras(client, gid, second["seq"], ann, ann_seat) == [hello]
    client.delete("/api/v1/blocks/bob", headers=ann)
    # Once it has ended, everyone reads it, step by step; the page shows it escaped.
    play_to_end(client, gid, ann, bob)
    assert extras(client, gid, first["seq"], eve) == [hello]
    assert extras(client, gid, second["seq"], {}) == [hello, evil]
    html = client.get(f"/games/{gid}/replay?step={second['seq']}").text
    assert 'id="replay-extras"' in html and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img src=x" not in html and "<script>alert" not in html


def test_profiles_carry_the_friend_and_block_buttons(client: TestClient) -> None:
    api_user(client, "bob")
    csrf = page_login(client, "ann")
    page = client.get("/users/bob").text
    assert 'id="befriend"' in page and 'id="block"' in page and 'id="unfriend"' not in page
    assert 'id="profile-social"' not in client.get("/users/ann").text  # not on one's own profile
    r = client.post("/friends", data={"csrf": csrf, "name": "bob", "back": "/users/bob"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/users/bob"
    page = client.get("/users/bob").text
    assert 'id="unfriend"' in page and 'href="/new?invite=bob"' in page and 'id="befriend"' not in page
    r = client.post("/blocks", data={"csrf": csrf, "name": "bob", "back": "//evil.example/x"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/friends"  # back only to a profile of this site
    page = client.get("/users/bob").text
    assert 'id="blocked-mark"' in page and 'id="unblock"' in page and 'id="invite-friend"' not in page
    client.post("/blocks/remove", data={"csrf": csrf, "name": "bob", "back": "/users/bob"})
    assert 'id="befriend"' in client.get("/users/bob").text  # the block took bob off the list; nothing restored
    client.cookies.clear()
    assert 'id="profile-social"' not in client.get("/users/bob").text  # a visitor gets no buttons
