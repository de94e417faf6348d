"""No page, API answer or live update gives a seat or a spectator what it may not see.

For every registered game, a game is played through the API by real seats.
At checkpoints, everything each seat and a spectator receive is compared with
what the engine says that viewer may see: ``state.view(seat)``, the legal
actions only on the seat's own turn, ``engine.log(state, viewer=seat)`` and
``history(seat)`` in records.  The engine's conformance suite proves those
hide what they must; this test proves the portal adds nothing to them.  The
toy game's secret bonus card is also checked literally.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from fastapi.testclient import TestClient

from ludothek import engine as eng
from ludothek.engine import InvalidOptions
from tests.portal.conftest import api_user


def _players(game_id: str) -> int:
    game = eng.load(game_id)
    for n in range(max(2, game.min_players), game.max_players + 1):
        try:
            game.validate_options(n, {})
            return n
        except InvalidOptions:
            continue
    return game.min_players


def _hidden_actions(state: eng.State, viewer: int | None) -> set[str]:
    return {e.action for e in state.history() if not e.visible(viewer)}


def _strip_public(text: str, public: set[str]) -> str:
    for action in public:
        text = text.replace(action, "")
    return text


@pytest.mark.parametrize("game_id", eng.games())
def test_no_response_leaks_hidden_information(client: TestClient, game_id: str) -> None:
    n = _players(game_id)
    heads = [api_user(client, f"player{i}") for i in range(n)]
    gid = client.post("/api/games", json={"game": game_id, "players": n}, headers=heads[0]).json()["id"]
    for h in heads[1:]:
        client.post(f"/api/games/{gid}/join", headers=h)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    info = site.games.game(gid)
    by_seat = {info.seat_of(client.get("/api/me", headers=h).json()["id"]): h for h in heads}
    viewers: list[tuple[int | None, dict[str, str]]] = [*sorted(by_seat.items()), (None, {})]
    rng = random.Random(7)
    for step in range(80):
        info = site.games.game(gid)
        if step % 16 == 0 or info.status == "finished":
            check_viewers(client, gid, viewers)
        if info.status == "finished":
            break
        h = by_seat[info.to_move]
        g = client.get(f"/api/games/{gid}", headers=h).json()
        action = rng.choice(g["legal"])["action"]
        r = client.post(f"/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=h)
        assert r.status_code == 200, r.text


def check_viewers(client: TestClient, gid: int, viewers: list[tuple[int | None, dict[str, str]]]) -> None:
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    with site.play.state(gid) as (info, tracked):
        state = tracked.state.clone()
        names = info.seat_names()
    for seat, headers in viewers:
        lang = "de" if seat == 1 else "en"
        api = client.get(f"/api/games/{gid}?lang={lang}", headers=headers).json()
        assert api["my_seat"] == seat
        assert api["view"] == json.loads(json.dumps(state.view(seat)))
        assert api["log"] == eng.log(state, viewer=seat, lang=lang, names=names)
        if seat is None or state.current_player() != seat:
            assert api["legal"] == []
        else:
            assert [a["action"] for a in api["legal"]] == state.legal_actions()
        rec = client.get(f"/api/games/{gid}/record", headers=headers).json()
        if not state.is_terminal():
            assert [a["action"] for a in rec["actions"]] == [e.action for e in state.history(seat)]
        hidden = _hidden_actions(state, seat) if not state.is_terminal() else set()
        public = {e.action for e in state.history(seat)} | set(state.legal_actions())
        page = client.get(f"/games/{gid}/board", headers=headers).text
        for body in (json.dumps(api), json.dumps(rec), page):
            clean = _strip_public(body, public)
            leaked = [a for a in hidden if a not in public and re.search(rf"\b{re.escape(a)}\b", clean)]
            assert not leaked, f"seat {seat} received hidden outcomes {leaked}"


def test_toy_game_secret_bonus_never_reaches_others(client: TestClient) -> None:
    """The toy game deals each seat a secret bonus card; opponents and spectators never see it."""
    h0, h1 = api_user(client, "alice"), api_user(client, "bob")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=h0).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=h1)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    with site.play.state(gid) as (_info, tracked):
        bonus = list(tracked.state.bonus)
    seats = {client.get(f"/api/games/{gid}", headers=h).json()["my_seat"]: h for h in (h0, h1)}
    for seat, h in seats.items():
        other = 1 - seat
        g = client.get(f"/api/games/{gid}", headers=h).json()
        assert g["view"]["my_bonus"] == bonus[seat]
        texts = [e for e in g["log"] if e["n"] == other + 1]
        assert texts[0]["action"] == "?"
        assert f"bonus:{bonus[other]}" not in json.dumps(texts)
        rec = client.get(f"/api/games/{gid}/record", headers=h).json()
        assert rec["actions"][other]["action"] == "?" and rec["redacted"]
    spectator = client.get(f"/api/games/{gid}").json()
    assert spectator["view"]["my_bonus"] is None
    assert [e["action"] for e in spectator["log"][:2]] == ["?", "?"]
    assert "bonus:" not in client.get(f"/api/games/{gid}/record").text


def test_live_updates_carry_only_public_facts(client: TestClient) -> None:
    h0, h1 = api_user(client, "alice"), api_user(client, "bob")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=h0).json()["id"]
    token = h1["Authorization"].split()[1]
    with client.websocket_connect(f"/api/games/{gid}/live?token={token}") as ws:
        hello = ws.receive_json()
        assert hello["type"] == "hello" and hello["seq"] == 0
        client.post(f"/api/games/{gid}/join", headers=h1)
        update = ws.receive_json()
        assert set(update) == {"type", "game", "seq", "to_move", "status"}
        assert update["status"] == "running" and update["seq"] >= 3
    # a page from another origin may not listen with the visitor's cookie
    with pytest.raises(Exception), client.websocket_connect(  # noqa: B017
        f"/games/{gid}/live", headers={"origin": "http://evil.example"}
    ) as ws:
        ws.receive_json()
