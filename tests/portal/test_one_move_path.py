"""One move path: a move from a page, from the API (through the hot path and through FastAPI) and from
a bot worker is stored by the same function, `ludothek.services.play.Play.submit`."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.services.play import Play
from ludothek.workers.bots import BotWorker, bot_step
from tests.portal.conftest import api_user, page_login
from tests.portal.test_api import mover, start_game
from tests.portal.test_bot_workers import bot_games, new_site


@pytest.fixture
def submits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The game ids `Play.submit` was called for, in order (whoever called it)."""
    calls: list[int] = []
    real = Play.submit

    def counted(self: Play, game_id: int, *args: Any, **kwargs: Any) -> Any:
        calls.append(game_id)
        return real(self, game_id, *args, **kwargs)

    monkeypatch.setattr(Play, "submit", counted)
    return calls


def test_a_move_from_a_page_goes_through_play_submit(client: TestClient, submits: list[int]) -> None:
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "opt_length": "short",
                                  "seat1": "open"}, follow_redirects=False)
    url = r.headers["location"]
    gid = int(url.rstrip("/").rsplit("/", 1)[1])
    bob = TestClient(client.app)
    bob_token = page_login(bob, "bob")
    assert bob.post(f"{url}/join", data={"csrf": bob_token}, follow_redirects=False).status_code == 303
    pages = {name: (c, tok, c.get(url).text) for name, c, tok in (("a", client, token), ("b", bob, bob_token))}
    c, tok, page = next(v for v in pages.values() if 'data-my-turn="yes"' in v[2])
    seq = re.search(r'data-seq="(\d+)"', page).group(1)  # type: ignore[union-attr]
    before = len(submits)
    r = c.post(f"{url}/act", data={"csrf": tok, "action": "hold", "seq": seq}, headers={"HX-Request": "true"})
    assert r.status_code == 200
    assert submits[before:] == [gid]


def test_a_move_from_the_api_goes_through_play_submit_both_ways(client: TestClient, submits: list[int]) -> None:
    h1, h2 = api_user(client, "alice"), api_user(client, "bob")
    gid = start_game(client, h1, h2)
    settings = client.app.state.portal.settings  # type: ignore[attr-defined]
    try:
        for hot in (True, False):
            settings.hot_path = hot
            who, state = mover(client, gid, h1, h2)
            before = len(submits)
            r = client.post(f"/api/v1/games/{gid}/actions", json={"action": state["legal"][0]["action"],
                                                                  "seq": state["seq"]}, headers=who)
            assert r.status_code == 200, r.text
            assert submits[before:] == [gid], hot
            if r.json()["status"] != "running":
                break
    finally:
        settings.hot_path = True


def test_a_move_from_a_bot_worker_goes_through_play_submit(tmp_path: Any, submits: list[int]) -> None:
    site = new_site(f"sqlite:///{tmp_path / 'bots.sqlite3'}")
    (gid,) = bot_games(site, 1)
    before = len(submits)
    assert BotWorker(site, delay=0.0, owner="w").run_once() == 1
    assert submits[before:] == [gid]
    info = site.games.game(gid)
    if info.status == "running" and info.is_bot_seat(info.to_move):
        before = len(submits)
        assert bot_step(site, gid)
        assert submits[before:] == [gid]
