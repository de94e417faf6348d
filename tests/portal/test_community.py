"""History, replays, records, profiles and leaderboards through the pages and the JSON API (issue 12)."""

from __future__ import annotations

import json
import random
import re

from fastapi.testclient import TestClient

from ludothek import engine as eng
from tests.portal.conftest import all_pages, api_user, csrf_of, page_login


def finished_game(client: TestClient, game: str = "toypig", players: int = 2,
                  names: tuple[str, ...] = ("alice", "bob"), seed: int = 3, undo_every: int = 0) -> tuple[int, dict[int, dict[str, str]]]:
    """A game played to its end through the API by ``names``; its id and each seat's headers."""
    heads = [api_user(client, n) for n in names[:players]]
    gid = client.post("/api/games", json={"game": game, "players": players}, headers=heads[0]).json()["id"]
    for h in heads[1:]:
        client.post(f"/api/games/{gid}/join", headers=h)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    info = site.games.game(gid)
    by_seat = {info.seat_of(client.get("/api/me", headers=h).json()["id"]): h for h in heads}
    rng = random.Random(seed)
    moves = 0
    while site.games.game(gid).status == "running":
        info = site.games.game(gid)
        h = by_seat[info.to_move]
        g = client.get(f"/api/games/{gid}?log=false", headers=h).json()
        action = rng.choice(g["legal"])["action"]
        r = client.post(f"/api/games/{gid}/actions", json={"action": action, "seq": g["seq"]}, headers=h)
        assert r.status_code == 200, r.text
        moves += 1
        if undo_every and moves % undo_every == 0 and r.json()["can_undo"]:
            r = client.post(f"/api/games/{gid}/undo", json={"seq": r.json()["seq"]}, headers=h)
            assert r.status_code == 200, r.text
    return gid, by_seat


def test_replay_api_matches_the_engine_at_every_step(client: TestClient) -> None:
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    # Machi Koro lets a decision be taken back only now and then, and the store's dice are real: about
    # one game in 400 ends without a chance to undo at an even move.  Then another game is played (new
    # players: each registration counts against the address's limit of ten an hour).
    for attempt in range(4):
        players = ("alice", "bob") if attempt == 0 else (f"alice{attempt}", f"bob{attempt}")
        gid, _by_seat = finished_game(client, game="machikoro", names=players, undo_every=2)
        record = site.play.record(gid)
        if any(a["action"] == "undo" for a in record["actions"]):
            break
    assert any(a["action"] == "undo" for a in record["actions"])
    last = len(record["actions"])
    names = site.games.game(gid).seat_names()
    undos = [i for i, a in enumerate(record["actions"]) if a["action"] == "undo"]
    for step in sorted({0, 1, 2, 5, last // 2, last - 1, last, *range(3, last, 29), *undos[:4], *[u + 1 for u in undos[:4]]}):
        expected = eng.replay(record, upto=step)
        for seat in (0, 1, None):
            q = "" if seat is None else f"?seat={seat}"
            r = client.get(f"/api/games/{gid}/replay/{step}?log=100000{q.replace('?', '&')}")
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["step"] == step and body["last"] == last and body["seat"] == seat
            assert body["view"] == json.loads(json.dumps(expected.view(seat)))
            assert body["log"] == eng.log({**record, "actions": record["actions"][:step]}, "all", "en", names)
    assert client.get(f"/api/games/{gid}/replay/{last + 1}").status_code == 404  # a step the game never reached
    assert client.get(f"/api/games/{gid}/replay/0?seat=5").status_code == 400


def test_replay_page_steps_and_record_download(client: TestClient) -> None:
    gid, _ = finished_game(client)
    page = client.get(f"/games/{gid}/replay?step=0")
    assert page.status_code == 200 and 'id="replay"' in page.text and 'data-step="0"' in page.text
    frame = client.get(f"/games/{gid}/replay?step=3&seat=1&frame=1")
    assert frame.status_code == 200 and frame.text.lstrip().startswith("{#") is False
    assert 'data-step="3"' in frame.text and "<html" not in frame.text
    assert 'data-step="4"' in client.get(f"/games/{gid}/replay?step=3&go=4").text
    download = client.get(f"/games/{gid}/record.json")
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    rec = download.json()
    assert eng.replay(rec).is_terminal() and rec["meta"]["players"]


def test_running_game_replay_only_my_own_seat(client: TestClient) -> None:
    heads = [api_user(client, n) for n in ("alice", "bob")]
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=heads[0]).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=heads[1])
    mine = client.get(f"/api/games/{gid}", headers=heads[0]).json()["my_seat"]
    other = 1 - mine
    assert client.get(f"/api/games/{gid}/replay/2?seat={mine}", headers=heads[0]).status_code == 200
    refused = client.get(f"/api/games/{gid}/replay/2?seat={other}", headers=heads[0])
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert client.get(f"/api/games/{gid}/replay/2?seat={mine}").status_code == 403  # a visitor
    assert client.get(f"/api/games/{gid}/replay/2").status_code == 200  # the spectator's view
    assert client.get(f"/games/{gid}/replay?seat={other}", headers=heads[0]).status_code == 403
    assert client.get(f"/games/{gid}/record.json").status_code == 403


def test_paged_log_numbered_by_move_numbers(client: TestClient) -> None:
    gid, _by_seat = finished_game(client, game="machikoro", seed=5)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    seq = site.games.game(gid).seq
    everything = all_pages(client, f"/api/games/{gid}/log")
    assert [e["n"] for e in everything] == list(range(1, seq + 1))
    page = client.get(f"/api/games/{gid}/log/page?limit=5").json()
    assert [line["n"] for line in page["lines"]] == list(range(seq - 4, seq + 1)) and page["earlier"] == seq - 4
    back = client.get(f"/api/games/{gid}/log/page?limit=5&before={page['earlier']}").json()
    assert [line["n"] for line in back["lines"]] == list(range(seq - 9, seq - 4))
    first = client.get(f"/api/games/{gid}/log/page?limit=5&before=3").json()
    assert [line["n"] for line in first["lines"]] == [1, 2] and first["earlier"] is None
    assert client.get(f"/api/games/{gid}/log/page?limit=0").status_code == 422
    html = client.get(f"/games/{gid}/log").text
    assert f'value="{seq}"' in html
    game_page = client.get(f"/games/{gid}").text
    assert f'<li value="{seq}"' in game_page and 'id="whole-log"' in game_page


def test_import_a_record_shows_it_and_stores_nothing(client: TestClient) -> None:
    gid, _ = finished_game(client)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    record = site.play.record(gid)
    games_before = site.lobby.count_games()
    token = page_login(client, "carla")
    r = client.post("/replays/import", data={"csrf": token, "step": "2"},
                    files={"file": ("game.json", json.dumps(record).encode(), "application/json")})
    assert r.status_code == 200 and 'data-step="2"' in r.text and 'data-mode="post"' in r.text
    api = client.post("/api/records/replay", json={"record": record, "step": 4, "seat": 0},
                      headers={"X-CSRF-Token": token})
    assert api.status_code == 200 and api.json()["id"] is None
    assert api.json()["view"] == json.loads(json.dumps(eng.replay(record, upto=4).view(0)))
    # A record with a bad action: a clear message naming it, nothing stored.
    bad = json.loads(json.dumps(record))
    bad["actions"][3]["action"] = "fly"
    r = client.post("/replays/import", data={"csrf": token, "record": json.dumps(bad)})
    assert r.status_code == 400 and "action 4" in r.text and "fly" in r.text
    r = client.post("/api/records/replay", json={"record": bad}, headers={"X-CSRF-Token": token})
    assert r.status_code == 400 and r.json()["code"] == "bad_record" and "action 4" in r.json()["detail"]
    r = client.post("/replays/import", data={"csrf": token, "record": "{not json"})
    assert r.status_code == 400 and "JSON" in r.text
    assert site.lobby.count_games() == games_before


def test_profile_about_me_languages_and_refusals(client: TestClient) -> None:
    gid, by_seat = finished_game(client)
    h = next(iter(by_seat.values()))
    name = client.get("/api/me", headers=h).json()["name"]
    profile = client.get(f"/api/users/{name.upper()}").json()
    assert profile["name"] == name and not profile["guest"]
    assert profile["games"][0]["game"] == "toypig" and profile["games"][0]["played"] == 1
    assert profile["finished"][0]["id"] == gid
    r = client.put("/api/me/profile", json={"about": "Hi <b>there</b>\nline two", "languages": ["de", "fr"]}, headers=h)
    assert r.status_code == 200 and r.json()["about"] == "Hi <b>there</b>\nline two"
    assert r.json()["languages"] == ["de", "fr"]
    for bad, code in (("x" * 501, "bad_request"), ("bell\x07", "bad_request"), ("rtl \u202e", "bad_request")):
        r = client.put("/api/me/profile", json={"about": bad}, headers=h)
        assert r.status_code == 400 and r.json()["code"] == code, r.text
    assert client.put("/api/me/profile", json={"languages": ["xx"]}, headers=h).status_code == 422  # not in the schema's list
    assert client.get(f"/api/users/{name}").json()["about"] == "Hi <b>there</b>\nline two"
    page = client.get(f"/users/{name}").text
    assert "Hi &lt;b&gt;there&lt;/b&gt;" in page and "<b>there</b>" not in page
    assert client.get("/users/nobody-here").status_code == 404
    assert client.get("/api/users/nobody-here").status_code == 404
    guest = client.post("/api/guests").json()["user"]["name"]
    assert client.get(f"/api/users/{guest}").json()["guest"] is True
    assert 'id="guest-mark"' in client.get(f"/users/{guest}").text


def test_profile_form_keeps_everything_on_a_refusal(client: TestClient) -> None:
    token = page_login(client, "dora")
    r = client.post("/account/profile", data={"csrf": token, "about": "hello", "languages": ["en"]},
                    follow_redirects=False)
    assert r.status_code == 303
    r = client.post("/account/profile", data={"csrf": token, "about": "bad\x1b[31m", "languages": ["de"]})
    assert r.status_code == 400 and 'id="profile-error"' in r.text
    profile = client.get("/api/users/dora").json()
    assert profile["about"] == "hello" and profile["languages"] == ["en"]


def test_leaderboard_and_rating_endpoints(client: TestClient) -> None:
    finished_game(client)
    board = client.get("/api/games/toypig/leaderboard").json()
    assert board == {"game": "toypig", "total": 0, "offset": 0, "rows": []}
    hist = client.get("/api/ratings/alice/toypig").json()
    assert hist["rating"]["games"] == 1 and len(hist["history"]) == 1
    assert client.get("/api/games/nosuchgame/leaderboard").status_code == 404
    assert client.get("/api/ratings/nobody-here/toypig").status_code == 404
    page = client.get("/games/toypig/leaderboard")
    assert page.status_code == 200 and 'id="leaderboard-empty"' in page.text
    profile = client.get("/users/alice").text
    assert "rating-chart" in profile and 'role="img"' in profile


def test_new_endpoints_are_documented_with_response_models(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    for path, method in [("/api/games/{game_id}/replay/{step}", "get"), ("/api/games/{game_id}/log/page", "get"),
                         ("/api/users/{name}", "get"), ("/api/me/profile", "put"),
                         ("/api/games/{kind}/leaderboard", "get"), ("/api/ratings/{name}/{kind}", "get"),
                         ("/api/records/replay", "post")]:
        ok = paths[path][method]["responses"]["200"]["content"]["application/json"]["schema"]
        assert "$ref" in ok, (path, ok)


def test_user_names_link_to_profiles(client: TestClient) -> None:
    gid, _ = finished_game(client)
    page = client.get(f"/games/{gid}").text
    assert re.search(r'href="/users/alice"', page) and 'id="replay-link"' in page
    assert 'href="/users/alice"' in client.get("/games/toypig").text
    csrf_of(client)


def test_an_abandoned_game_is_over_for_replays_records_and_profiles(client: TestClient) -> None:
    heads = [api_user(client, n) for n in ("alice", "bob")]
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=heads[0]).json()["id"]
    client.post(f"/api/games/{gid}/join", headers=heads[1])
    views = [client.get(f"/api/games/{gid}", headers=h).json() for h in heads]
    mover = next(i for i, v in enumerate(views) if v["legal"])
    move = {"action": views[mover]["legal"][0]["action"], "seq": views[mover]["seq"]}
    assert client.post(f"/api/games/{gid}/actions", json=move, headers=heads[mover]).status_code == 200
    for h in heads:
        assert client.post(f"/api/games/{gid}/abandon", json={"agree": True}, headers=h).status_code == 200
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    info_now = site.games.game(gid)
    assert info_now.status == "abandoned" and info_now.result is None
    last = info_now.seq
    # Every seat's view, for anyone, at any step; the record is public; nothing can be played.
    for seat in ("0", "1", "-"):
        assert client.get(f"/games/{gid}/replay?step=1&seat={seat}").status_code == 200
    body = client.get(f"/api/games/{gid}/replay/{last}?seat=1").json()
    assert body["step"] == last == body["last"]
    record = client.get(f"/games/{gid}/record.json")
    assert record.status_code == 200 and len(record.json()["actions"]) == last
    assert client.get(f"/api/games/{gid}/record").json()["actions"] == record.json()["actions"]
    page = client.get(f"/games/{gid}", headers=heads[0]).text
    assert 'id="abandoned-note"' in page and f'/games/{gid}/replay?step=0' in page and 'class="act"' not in page
    # On both players' profiles among the last games, with its replay, and counted for nobody.
    for name in ("alice", "bob"):
        profile = client.get(f"/users/{name}").text
        assert f'data-game="{gid}"' in profile and f'href="/games/{gid}/replay"' in profile
        assert client.get(f"/api/users/{name}").json()["finished"][0]["id"] == gid
    assert client.get("/api/users/alice").json()["games"] == []


def test_profile_leaderboard_and_import_read_well_in_german_and_english(client: TestClient) -> None:
    """Dates, ratings and column heads as people of each language write them; import errors in German too."""
    gid, _ = finished_game(client)
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    since = site.profiles.profile("alice").member_since
    de = client.get("/users/alice?lang=de", headers={"Accept-Language": "de"}).text
    en = client.get("/users/alice?lang=en").text
    assert since.strftime("%d.%m.%Y") in de and since.strftime("%Y-%m-%d") not in de
    assert since.strftime("%b %-d, %Y") in en
    assert "<th>Gespielt</th><th>Gewonnen</th>" in de and "<th>Played</th><th>Won</th>" in en
    rating = site.ratings.ratings_of(site.profiles.profile("alice").user_id)["toypig"].conservative
    assert f"<strong>{rating:.1f}</strong>".replace(".", ",") in de and f"<strong>{rating:.1f}</strong>" in en
    # One rated game: the chart is a line from the starting rating 0, labelled in the reader's notation.
    assert f"Wertung nach 1 Partie: {rating:.1f}".replace(".", ",") in de
    assert re.search(r'<polyline points="[\d.]+,[\d.]+ [\d.]+,[\d.]+"', de)
    # A record that does not replay: the first bad action named in the reader's language.
    record = site.play.record(gid)
    record["actions"][3]["action"] = "fly"
    token = page_login(client, "dora")
    r = client.post("/replays/import", data={"csrf": token, "record": json.dumps(record)})
    assert r.status_code == 400 and "action 4 (&#39;fly&#39;)" in r.text  # English: the engine's own words
    client.post("/lang", data={"csrf": token, "lang": "de"})
    r = client.post("/replays/import", data={"csrf": token, "record": json.dumps(record)})
    text = re.sub(r"\s+", " ", r.text)
    assert r.status_code == 400 and "Aktion 4 („fly“) ist an dieser Stelle nicht möglich" in text
    assert "is made by" not in text
    r = client.post("/replays/import", data={"csrf": token, "record": "[1, 2]"})
    assert r.status_code == 400 and "JSON-Objekt" in r.text
