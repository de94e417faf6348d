"""The hand-over of a turn in the API and on the pages (issue 29): the pending turn in the state, the
refusal of the next seat, POST confirm, the grace period in ``/api/me/play`` and on the account page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal.app import create_app
from ludothek.storage import GameEvent
from tests.portal.conftest import api_user, make_settings, page_login

DEFAULT = 30


@pytest.fixture
def client(tmp_path: Any) -> Iterator[TestClient]:
    # 30 s: long enough that the app's clock job never hands a turn on before the test confirms it.
    app = create_app(make_settings(f"sqlite:///{tmp_path / 'h.sqlite3'}", handover_seconds=DEFAULT))
    with TestClient(app) as c:
        yield c


def _two_humans(client: TestClient) -> tuple[int, dict[int, dict[str, str]], list[str]]:
    """A Machi Koro game of alice and bob: its id, the headers by seat, the names by seat."""
    heads = {"alice": api_user(client, "alice"), "bob": api_user(client, "bob")}
    gid = client.post("/api/games", json={"game": "machikoro", "players": 2}, headers=heads["alice"]).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=heads["bob"])
    state = client.get(f"/api/games/{gid}", headers=heads["alice"]).json()
    names = [s["name"] for s in state["seats"]]
    return gid, {i: heads[n] for i, n in enumerate(names)}, names


def test_a_turn_waits_for_its_confirmation_in_the_api(client: TestClient) -> None:
    gid, heads, names = _two_humans(client)
    events: list[GameEvent] = []
    client.app.state.portal.site.listeners.append(events.append)  # type: ignore[attr-defined]
    first = client.get(f"/api/games/{gid}", headers=heads[0]).json()
    assert first["to_move"] == 0 and first["handover"] is None and not first["can_confirm"]
    moved = client.post(f"/api/games/{gid}/actions", json={"action": "pass", "seq": first["seq"]},
                        headers=heads[0]).json()
    assert moved["handover"]["seat"] == 0 and moved["handover"]["name"] == names[0]
    assert 0 < moved["handover"]["seconds_left"] <= DEFAULT
    assert moved["can_confirm"] and moved["can_undo"] and moved["to_move"] is None and moved["legal"] == []
    other = client.get(f"/api/games/{gid}", headers=heads[1]).json()
    assert other["handover"]["name"] == names[0] and not other["can_confirm"] and other["legal"] == []
    refused = client.post(f"/api/games/{gid}/actions", json={"action": "pass", "seq": other["seq"]},
                          headers=heads[1])
    assert refused.status_code == 409 and refused.json()["code"] == "handover_pending"
    assert names[0] in refused.json()["detail"]
    assert client.post(f"/api/games/{gid}/confirm", json={"seq": other["seq"]}, headers=heads[1]).status_code == 409
    # Undo during the wait, the same decision again, then confirm: the next roll is drawn now.
    undone = client.post(f"/api/games/{gid}/undo", json={"seq": moved["seq"]}, headers=heads[0]).json()
    assert undone["handover"] is None and undone["to_move"] == 0 and undone["legal"]
    again = client.post(f"/api/games/{gid}/actions", json={"action": "pass", "seq": undone["seq"]},
                        headers=heads[0]).json()
    events.clear()
    confirmed = client.post(f"/api/games/{gid}/confirm", json={"seq": again["seq"]}, headers=heads[0])
    assert confirmed.status_code == 200, confirmed.text
    body = confirmed.json()
    assert body["handover"] is None and body["to_move"] == 1 and not body["can_undo"]
    assert body["seq"] == again["seq"] + 1  # bob's roll
    assert [(e.seq, e.to_move) for e in events] == [(body["seq"], 1)]  # every seat hears of it
    twice = client.post(f"/api/games/{gid}/confirm", json={"seq": body["seq"]}, headers=heads[0])
    assert twice.status_code == 409 and twice.json()["code"] == "conflict"
    record = client.get(f"/api/games/{gid}/record", headers=heads[0]).json()["actions"]
    assert [a["action"] for a in record[-4:-1]] == ["pass", "undo", "pass"] and record[-1]["seat"] == "chance"


def test_my_grace_period_in_the_api(client: TestClient) -> None:
    head = api_user(client, "carla")
    assert client.get("/api/me/play", headers=head).json() == {
        "handover_seconds": None, "in_force": DEFAULT, "choices": [0, 5, 10, 30]}
    assert client.put("/api/me/play", json={"handover_seconds": 5}, headers=head).json()["in_force"] == 5
    assert client.put("/api/me/play", json={"handover_seconds": 7}, headers=head).status_code == 422
    assert client.put("/api/me/play", json={"handover_seconds": "5"}, headers=head).status_code == 422
    assert client.put("/api/me/play", json={"handover_seconds": False}, headers=head).status_code == 422
    assert client.get("/api/me/play", headers=head).json()["handover_seconds"] == 5
    assert client.put("/api/me/play", json={"handover_seconds": None}, headers=head).json()["in_force"] == DEFAULT
    assert client.get("/api/me/play").status_code == 401


def test_pages_show_the_waiting_turn_and_the_account_setting(client: TestClient) -> None:
    csrf = page_login(client, "dora")
    page = client.get("/account").text
    assert 'id="handover-seconds"' in page and "Time to take back a turn" in page
    r = client.post("/account/play", data={"csrf": csrf, "handover_seconds": "10"})
    assert r.status_code == 200 and 'value="10" selected' in r.text
    r = client.post("/account/play", data={"csrf": csrf, "handover_seconds": "default"})
    assert r.status_code == 200 and 'value="default" selected' in r.text
    r = client.post("/account/play", data={"csrf": csrf, "handover_seconds": "11"})
    assert r.status_code == 400 and "0, 5, 10 or 30 seconds" in r.text
    # A game of dora against erik: dora's board offers Confirm and Undo, erik's says whom he waits for.
    erik = TestClient(client.app)
    erik_csrf = page_login(erik, "erik")
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    dora, erik_user = site.accounts.user_by_name("dora"), site.accounts.user_by_name("erik")
    assert dora is not None and erik_user is not None
    game_id = site.lobby.create_game(dora, "machikoro", 2, {})
    site.lobby.join(game_id, erik_user)
    info = site.games.game(game_id)
    mover = info.seat_names()[info.to_move]
    me, them = (client, erik) if mover == "dora" else (erik, client)
    my_csrf = csrf if mover == "dora" else erik_csrf
    me.post(f"/games/{game_id}/act", data={"csrf": my_csrf, "action": "pass", "seq": str(info.seq)})
    mine = me.get(f"/games/{game_id}/board").text
    assert 'id="confirm-turn"' in mine and 'data-action="undo"' in mine and "data-countdown" in mine
    theirs = them.get(f"/games/{game_id}/board").text
    assert f"Waiting for {mover} to confirm their turn" in theirs and 'id="confirm-turn"' not in theirs
    # The next player's roll waits for the hand-over: the board does not claim the dice are rolling.
    assert "dice rolling" not in theirs and "turn ended, waiting to be confirmed" in theirs
    seq = site.games.game(game_id).seq
    done = me.post(f"/games/{game_id}/act", data={"csrf": my_csrf, "action": "!confirm", "seq": str(seq)},
                   headers={"HX-Request": "true"})
    assert done.status_code == 200 and 'id="confirm-turn"' not in done.text
    assert site.games.game(game_id).handover_seat is None
