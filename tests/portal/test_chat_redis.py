"""Chat between server processes through Redis: live messages reach the table on every server, spectators
on none, and the rate limit is one for the whole deployment (issue 12, part 4)."""

from __future__ import annotations

from typing import Any

from tests.portal.conftest import api_user
from tests.portal.test_redis import two_servers


def test_chat_crosses_servers_to_the_table_only_and_shares_the_rate_limit(tmp_path: Any) -> None:
    with two_servers(tmp_path) as (a, b):
        ann, bob, eve = (api_user(a, n) for n in ("ann", "bob", "eve"))
        gid = a.post("/api/v1/games", json={"game": "toypig", "players": 2}, headers=ann).json()["id"]
        assert a.post(f"/api/v1/games/{gid}/join", headers=bob).json()["status"] == "running"
        token = {n: h["Authorization"].split()[1] for n, h in (("bob", bob), ("eve", eve))}
        with b.websocket_connect(f"/api/v1/games/{gid}/live?token={token['bob']}") as player, \
                b.websocket_connect(f"/api/v1/games/{gid}/live?token={token['eve']}") as spectator:
            assert player.receive_json()["type"] == "hello" and spectator.receive_json()["type"] == "hello"
            for i in range(10):  # written on server one, heard on server two
                assert a.post(f"/api/v1/games/{gid}/chat", json={"text": f"hello {i}"}, headers=ann).status_code == 201
                assert next_chat(player)["message"]["text"] == f"hello {i}"
            # The eleventh message within the minute is refused by the other server as well.
            r = b.post(f"/api/v1/games/{gid}/chat", json={"text": "one too many"}, headers=ann)
            assert r.status_code == 429 and r.json()["code"] == "too_many_attempts"
            g = a.get(f"/api/v1/games/{gid}", headers=ann).json()
            mover = ann if g["my_turn"] else bob
            a.post(f"/api/v1/games/{gid}/actions", json={"action": "roll", "seq": g["seq"]}, headers=mover)
            # Everything the spectator hears up to that move is an update (the start, the move): never chat.
            heard = [spectator.receive_json()]
            while heard[-1].get("seq", -1) <= g["seq"]:
                heard.append(spectator.receive_json())
            assert {m["type"] for m in heard} == {"update"}, heard
        assert len(b.get(f"/api/v1/games/{gid}/chat", headers=bob).json()["messages"]) == 10


def next_chat(ws: Any) -> dict[str, Any]:
    """The next chat message on a socket (the update of the game's start may come first through Redis)."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "chat":
            return message
        assert message["type"] == "update", message
