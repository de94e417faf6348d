"""A replay or the log of a running game never shows another seat's secret, whichever seat or step is asked.

For every registered game a game is played part of the way through the API.  Then each seat and a
spectator ask for replay steps with every seat parameter: another seat's view is refused, and what
is given equals what the engine shows that viewer at that step (``view``, the log by
``engine.log`` with the viewer's seat).  No answer (JSON, replay page, paged log) holds an action
hidden from the viewer.  Like ``test_secrecy.py``, the engine's conformance suite proves the views
hide what they must; this proves the replay adds nothing to them.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from fastapi.testclient import TestClient

from ludothek import engine as eng
from tests.portal.conftest import api_user
from tests.portal.test_secrecy import _hidden_actions, _players, _strip_public

MOVES = 40


def _leaks(body: str, hidden: set[str], public: set[str]) -> list[str]:
    clean = _strip_public(body, public)
    return [a for a in hidden if a not in public and re.search(rf"\b{re.escape(a)}\b", clean)]


#: Every game with something to hide; ``toyrank`` (the ratings tests' game) has no secrets and ends in a few moves.
SECRET_GAMES = [g for g in eng.games() if g != "toyrank"]


@pytest.mark.parametrize("game_id", SECRET_GAMES)
def test_replay_and_log_of_a_running_game_keep_secrets(client: TestClient, game_id: str) -> None:
    n = _players(game_id)
    heads = [api_user(client, f"player{i}") for i in range(n)]
    options = {"length": "long"} if game_id == "toypig" else {}  # the toy game's secret bonus cards, for longer
    gid = client.post("/api/games", json={"game": game_id, "players": n, "options": options},
                      headers=heads[0]).json()["id"]
    for h in heads[1:]:
        client.post(f"/api/games/{gid}/join", headers=h)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    info = site.games.game(gid)
    by_seat = {info.seat_of(client.get("/api/me", headers=h).json()["id"]): h for h in heads}
    rng = random.Random(11)
    for _ in range(3 if game_id == "toypig" else MOVES):
        info = site.games.game(gid)
        if info.status != "running":
            break
        h = by_seat[info.to_move]
        g = client.get(f"/api/games/{gid}?log=false", headers=h).json()
        r = client.post(f"/api/games/{gid}/actions", json={"action": rng.choice(g["legal"])["action"],
                                                           "seq": g["seq"]}, headers=h)
        assert r.status_code == 200, r.text
    info = site.games.game(gid)
    if info.status != "running":
        pytest.skip(f"{game_id} ended within {MOVES} moves")
    record = site.play.record(gid)
    names = info.seat_names()
    last = len(record["actions"])
    steps = sorted({0, 1, last // 3, last // 2, last - 1, last, rng.randrange(last + 1)})
    viewers: list[tuple[int | None, dict[str, str]]] = [*sorted(by_seat.items()), (None, {})]
    for viewer, headers in viewers:
        final = eng.replay(record)
        hidden = _hidden_actions(final, viewer)
        public = {e.action for e in final.history(viewer)}
        for step in steps:
            state = eng.replay(record, upto=step)
            for asked in [*range(n), None]:
                q = "" if asked is None else f"?seat={asked}"
                r = client.get(f"/api/games/{gid}/replay/{step}?log=100000{q.replace('?', '&')}", headers=headers)
                if asked is not None and asked != viewer:
                    assert r.status_code == 403, (viewer, asked, r.text)
                    assert client.get(f"/games/{gid}/replay?step={step}&seat={asked}&frame=1",
                                      headers=headers).status_code == 403
                    continue
                assert r.status_code == 200, r.text
                body = r.json()
                assert body["view"] == json.loads(json.dumps(state.view(asked)))
                partial = {**record, "actions": record["actions"][:step]}
                assert body["log"] == eng.log(partial, viewer=asked, lang="en", names=names)
                page = client.get(f"/games/{gid}/replay?step={step}&seat={'-' if asked is None else asked}&frame=1",
                                  headers=headers).text
                for text in (r.text, page):
                    leaked = _leaks(text, hidden, public | set(state.legal_actions()))
                    assert not leaked, f"viewer {viewer} asking for seat {asked} at step {step} got {leaked}"
        log = client.get(f"/api/games/{gid}/log/page?limit=500", headers=headers)
        assert log.json()["lines"] == eng.log(final, viewer=viewer, lang="en", names=names)
        html = client.get(f"/games/{gid}/log", headers=headers).text
        assert not _leaks(log.text, hidden, public) and not _leaks(html, hidden, public)
