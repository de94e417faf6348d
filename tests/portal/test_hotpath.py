"""The hot path (`ludothek.portal.hotpath`) answers exactly as FastAPI's routes do.

Each request that changes nothing is sent twice, through the hot path and through FastAPI
(``Settings.hot_path`` off), and the two answers must be the same: status, body and headers.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal.observe import scrape_lines
from ludothek.storage.models import MAX_ID
from tests.portal.conftest import api_user
from tests.portal.test_api import mover, start_game


def both(client: TestClient, method: str, url: str, **kw: Any) -> tuple[int, Any, dict[str, str]]:
    """The answer through FastAPI and through the hot path, which must be the same."""
    settings = client.app.state.portal.settings  # type: ignore[attr-defined]
    answers = []
    for hot in (False, True):
        settings.hot_path = hot
        try:
            r = client.request(method, url, **kw)
        finally:
            settings.hot_path = True
        headers = {k: v for k, v in r.headers.items() if k != "date"}
        answers.append((r.status_code, r.content, headers))
    assert answers[0] == answers[1], (method, url, kw)
    status, content, headers = answers[1]
    return status, content, headers


@pytest.fixture
def game(client: TestClient) -> tuple[int, dict[str, str], dict[str, str], dict[str, Any]]:
    h1, h2 = api_user(client, "alice"), api_user(client, "bob")
    gid = start_game(client, h1, h2)
    me, state = mover(client, gid, h1, h2)
    other = h2 if me is h1 else h1
    return gid, me, other, state


def test_refused_and_malformed_moves_answer_alike(client: TestClient, game: Any) -> None:
    gid, me, other, state = game
    seq = state["seq"]
    action = state["legal"][0]["action"]
    for prefix in ("/api/v1", "/api"):
        url = f"{prefix}/games/{gid}/actions"
        cases: list[tuple[str, dict[str, Any], int]] = [
            (url, {"json": {"action": action, "seq": seq + 5}, "headers": me}, 409),  # stale
            (url, {"json": {"action": action, "seq": seq}, "headers": other}, 409),  # not my turn
            (url, {"json": {"action": "no-such-action", "seq": seq}, "headers": me}, 409),  # illegal
            (url, {"json": {"action": action, "seq": seq}}, 401),  # no token
            (url, {"json": {"action": action, "seq": seq}, "headers": {"Authorization": "Bearer nope"}}, 401),
            (url, {"json": {"action": action, "seq": "1"}, "headers": me}, 422),  # strict types
            (url, {"json": {"action": action, "seq": True}, "headers": me}, 422),
            (url, {"json": {"action": "", "seq": seq}, "headers": me}, 422),
            (url, {"json": {"action": action, "seq": -1}, "headers": me}, 422),
            (url, {"json": {"action": action}, "headers": me}, 422),
            (url, {"json": [action, seq], "headers": me}, 422),
            (url, {"content": b"{not json", "headers": {**me, "Content-Type": "application/json"}}, 400),
            (url, {"content": b"", "headers": {**me, "Content-Type": "application/json"}}, 422),
            (url, {"content": b'{"action": "x", "seq": 1}', "headers": {**me, "Content-Type": "text/plain"}}, 422),
            (url + "?lang=fr", {"json": {"action": action, "seq": seq + 5}, "headers": me}, 422),
            (url + "?lang=de", {"json": {"action": action, "seq": seq + 5}, "headers": me}, 409),
            (url + "?lang=de&lang=en", {"json": {"action": action, "seq": seq + 5}, "headers": me}, 409),
            (url + "?other=1", {"json": {"action": action, "seq": seq + 5}, "headers": me}, 409),
            (f"{prefix}/games/{MAX_ID + 1}/actions", {"json": {"action": action, "seq": seq}, "headers": me}, 404),
            (f"{prefix}/games/0/actions", {"json": {"action": action, "seq": seq}, "headers": me}, 404),
            (f"{prefix}/games/0{gid}/actions", {"json": {"action": action, "seq": seq + 5}, "headers": me}, 409),
            (f"{prefix}/games/{MAX_ID}/actions", {"json": {"action": action, "seq": seq}, "headers": me}, 404),
        ]
        for path, kw, status in cases:
            assert both(client, "POST", path, **kw)[0] == status, (path, kw)
    assert client.get(f"/api/v1/games/{gid}", headers=me).json()["seq"] == seq  # nothing moved


def test_reading_a_game_answers_alike(client: TestClient, game: Any) -> None:
    gid, me, other, _state = game
    for prefix in ("/api/v1", "/api"):
        for query in ("", "?log=false", "?log=true", "?lang=de", "?lang=en&log=false", "?log=false&lang=de",
                      "?log=no", "?log=0", "?lang=xx", "?log=false&log=true", "?x=1"):
            for headers in (me, other, {}, {"Authorization": "Bearer nope"}):
                both(client, "GET", f"{prefix}/games/{gid}{query}", headers=headers)
        for path in (f"{prefix}/games/{MAX_ID}", f"{prefix}/games/{MAX_ID + 1}", f"{prefix}/games/0"):
            assert both(client, "GET", path, headers=me)[0] == 404


def test_moves_through_the_hot_path(client: TestClient, game: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from ludothek.portal import hotpath
    from ludothek.portal.routes import play as api

    gid, me, other, state = game
    served: list[int] = []

    def counted_move(*args: Any) -> Any:
        served.append(args[1])
        return api.move_answer(*args)

    class CountingApi:  # the hot path's view of the api module, with its moves counted
        def __getattr__(self, name: str) -> Any:
            return counted_move if name == "move_answer" else getattr(api, name)

    monkeypatch.setattr(hotpath, "play", CountingApi())
    settings = client.app.state.portal.settings  # type: ignore[attr-defined]
    shapes = []
    for hot in (True, False):
        settings.hot_path = hot
        who, state = mover(client, gid, me, other)
        r = client.post(f"/api/v1/games/{gid}/actions", json={"action": state["legal"][0]["action"],
                                                              "seq": state["seq"]}, headers=who)
        assert r.status_code == 200, r.text
        assert r.json()["seq"] > state["seq"]
        shapes.append((sorted(r.json()), sorted(k for k in r.headers if k != "date")))
        if r.json()["status"] != "running":
            break
    settings.hot_path = True
    assert served == [gid]  # the first move went through the hot path, the second through FastAPI
    assert len(set(map(repr, shapes))) == 1  # the same fields and headers both ways
    # Counted and logged under the route's template, like any request FastAPI answers.
    scraped = client.app.state.portal.metrics.exposition()  # type: ignore[attr-defined]
    counted = {labels["status"]: value for name, labels, value in scrape_lines(scraped)
               if name == "ludothek_http_requests_total" and labels["route"] == "/api/v1/games/{game_id}/actions"}
    assert counted["200"] >= 1


def test_cookie_moves_still_need_the_csrf_header(client: TestClient) -> None:
    from tests.portal.conftest import page_login

    h2 = api_user(client, "bob")
    token = page_login(client, "dora")  # a browser session: writes need the X-CSRF-Token header
    gid = client.post("/api/v1/games", json={"game": "toypig", "players": 2},
                      headers={"X-CSRF-Token": token}).json()["id"]
    client.post(f"/api/v1/games/{gid}/join", headers=h2)
    who, state = mover(client, gid, {}, h2)
    action = state["legal"][0]["action"]
    if who:  # bob is to move: dora's move is refused for the CSRF header before her turn is looked at
        status, body, _ = both(client, "POST", f"/api/v1/games/{gid}/actions", json={"action": action, "seq": 0})
    else:
        status, body, _ = both(client, "POST", f"/api/v1/games/{gid}/actions",
                               json={"action": action, "seq": state["seq"]})
    assert status == 403 and b'"csrf"' in body
    r = client.post(f"/api/v1/games/{gid}/actions", json={"action": action, "seq": state["seq"]},
                    headers={**who, "X-CSRF-Token": token})
    assert r.status_code == 200, r.text
