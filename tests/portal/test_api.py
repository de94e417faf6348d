"""The JSON API: every endpoint, and every refusal leaves the database unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from ludothek.storage.models import ActionRow, ApiToken, GameRow, SeatRow, User
from ludothek.workers.bots import bot_step
from tests.portal.conftest import api_user


def db_snapshot(client: TestClient) -> tuple[Any, ...]:
    """Row counts and game summaries: equal snapshots = nothing was written."""
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    with site.engine.begin() as conn:
        counts = tuple(conn.execute(select(func.count()).select_from(t)).scalar() for t in
                       (User, ApiToken, GameRow, SeatRow, ActionRow))
        games = conn.execute(select(GameRow.id, GameRow.seq, GameRow.status, GameRow.to_move)).all()
        seats = conn.execute(select(SeatRow.game_id, SeatRow.seat, SeatRow.kind, SeatRow.user_id)).all()
    return counts, tuple(games), tuple(sorted(seats))


def refused(client: TestClient, method: str, url: str, status: int, match: str, **kw: Any) -> dict[str, Any]:
    before = db_snapshot(client)
    r = client.request(method, url, **kw)
    assert r.status_code == status, r.text
    body = r.json()
    assert match.lower() in body["detail"].lower(), body
    assert db_snapshot(client) == before, "a refused request changed the database"
    return body


@pytest.fixture
def two(client: TestClient) -> tuple[dict[str, str], dict[str, str]]:
    return api_user(client, "alice"), api_user(client, "bob")


def start_game(client: TestClient, h1: dict[str, str], h2: dict[str, str]) -> int:
    gid = client.post("/api/games", json={"game": "toypig", "players": 2}, headers=h1).json()["id"]
    # Joining fills the last seat and starts the game; its bot may already have played it to the
    # end by the time the answer is read (the bot runner works in its own thread).
    assert client.post(f"/api/games/{gid}/join", headers=h2).json()["status"] in ("running", "finished")
    return gid


def mover(client: TestClient, gid: int, *hs: dict[str, str]) -> tuple[dict[str, str], dict[str, Any]]:
    for h in hs:
        g = client.get(f"/api/games/{gid}", headers=h).json()
        if g["my_turn"]:
            return h, g
    raise AssertionError("nobody is to move")


def test_register_login_me_and_tokens(client: TestClient) -> None:
    h = api_user(client, "alice")
    assert client.get("/api/me", headers=h).json()["name"] == "alice"
    r = client.post("/api/tokens", json={"name": "ALICE", "password": "password-alice", "label": "bot"})
    assert r.status_code == 201
    assert client.get("/api/me", headers={"Authorization": f"Bearer {r.json()['token']}"}).json()["name"] == "alice"
    refused(client, "POST", "/api/users", 409, "taken", json={"name": "Alice", "password": "longenough"})
    refused(client, "POST", "/api/users", 422, "name", json={"name": "a", "password": "longenough"})
    refused(client, "POST", "/api/users", 422, "password", json={"name": "carol", "password": "short"})
    refused(client, "POST", "/api/users", 400, "guest", json={"name": "guest-carol", "password": "longenough"})
    refused(client, "POST", "/api/tokens", 401, "wrong user name or password",
            json={"name": "alice", "password": "nope-nope"})
    refused(client, "GET", "/api/me", 401, "log in")
    refused(client, "GET", "/api/me", 401, "log in", headers={"Authorization": "Bearer ldk_forged"})


def test_guest_account(client: TestClient) -> None:
    r = client.post("/api/guests")
    assert r.status_code == 201
    user = r.json()["user"]
    assert user["guest"] and user["guest_expires_at"]


def test_failed_logins_are_slowed_down(client: TestClient) -> None:
    api_user(client, "alice")
    for _ in range(5):  # five tries per name and address in 15 minutes; each counts before the check
        assert client.post("/api/tokens", json={"name": "alice", "password": "wrong-wrong"}).status_code == 401
    body = refused(client, "POST", "/api/tokens", 429, "too many",
                   json={"name": "alice", "password": "password-alice"})
    assert body["code"] == "too_many_attempts"


def test_catalog_lists_games_with_options(client: TestClient) -> None:
    games = {g["id"]: g for g in client.get("/api/catalog").json()["items"]}
    assert games["toypig"]["options"][0]["label"] == {"de": "Länge", "en": "Length"}


def test_create_join_play_and_record(client: TestClient, two: Any) -> None:
    h1, h2 = two
    r = client.post("/api/games", json={"game": "toypig", "players": 2, "options": {"length": "short"}}, headers=h1)
    assert r.status_code == 201
    gid = r.json()["id"]
    assert [g["id"] for g in client.get("/api/games").json()["items"]] == [gid]
    assert client.get("/api/games?which=mine", headers=h1).json()["items"][0]["status"] == "open"
    # Joining fills the last seat and starts the game; its bot may already have played it to the
    # end by the time the answer is read (the bot runner works in its own thread).
    assert client.post(f"/api/games/{gid}/join", headers=h2).json()["status"] in ("running", "finished")
    assert client.get("/api/games").json() == {"items": [], "next_cursor": None}
    h, g = mover(client, gid, h1, h2)
    assert g["legal"] and {"action", "text"} <= set(g["legal"][0])
    assert client.get("/api/next", headers=h).json() == {"game": gid}
    r = client.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": g["seq"]}, headers=h)
    assert r.status_code == 200, r.text
    assert r.json()["seq"] > g["seq"] and "view" in r.json() and r.json()["log"] is None
    rec = client.get(f"/api/games/{gid}/record", headers=h1).json()
    assert rec["game"] == "toypig" and len(rec["actions"]) == r.json()["seq"]
    log = client.get(f"/api/games/{gid}/log?lang=de&limit=200", headers=h1).json()["items"]
    assert log[-1]["text"].startswith("Aktion") or log[-1]["action"] == "?"


def test_lobby_leave_and_cancel(client: TestClient, two: Any) -> None:
    h1, h2 = two
    gid = client.post("/api/games", json={"game": "toypig", "players": 3}, headers=h1).json()["id"]
    assert client.post(f"/api/games/{gid}/join", headers=h2).json()["status"] == "open"
    refused(client, "POST", f"/api/games/{gid}/join", 409, "already have a seat", headers=h2)
    refused(client, "POST", f"/api/games/{gid}/leave", 409, "cancel it instead", headers=h1)
    refused(client, "POST", f"/api/games/{gid}/cancel", 403, "only the creator", headers=h2)
    assert client.post(f"/api/games/{gid}/leave", headers=h2).status_code == 200
    refused(client, "POST", f"/api/games/{gid}/leave", 403, "no seat", headers=h2)
    assert client.post(f"/api/games/{gid}/cancel", headers=h1).json()["status"] == "cancelled"
    refused(client, "POST", f"/api/games/{gid}/join", 409, "already started or is over", headers=h2)


def test_named_invitations_and_bots(client: TestClient, two: Any) -> None:
    h1, h2 = two
    carol = api_user(client, "carol")
    seats = [{"kind": "me"}, {"kind": "invite", "user": "bob"}, {"kind": "bot"}]
    gid = client.post("/api/games", json={"game": "toypig", "players": 3, "seats": seats}, headers=h1).json()["id"]
    refused(client, "POST", f"/api/games/{gid}/join", 409, "no seat is free", headers=carol)
    assert [g["id"] for g in client.get("/api/games", headers=h2).json()["items"]] == [gid]
    refused(client, "POST", "/api/games", 404, "no user called", headers=h1,
            json={"game": "toypig", "players": 2, "seats": [{"kind": "me"}, {"kind": "invite", "user": "zed"}]})
    refused(client, "POST", "/api/games", 400, "exactly 2 seats", headers=h1,
            json={"game": "toypig", "players": 2, "seats": [{"kind": "me"}]})
    refused(client, "POST", "/api/games", 400, "exactly one seat", headers=h1,
            json={"game": "toypig", "players": 2, "seats": [{"kind": "bot"}, {"kind": "bot"}]})
    # (the refusals come first: once the game runs, its bot moves and the database changes)
    # Joining fills the last seat and starts the game; its bot may already have played it to the
    # end by the time the answer is read (the bot runner works in its own thread).
    assert client.post(f"/api/games/{gid}/join", headers=h2).json()["status"] in ("running", "finished")


def test_refusals_leave_database_unchanged(client: TestClient, two: Any) -> None:
    h1, h2 = two
    stranger = api_user(client, "carol")
    gid = start_game(client, h1, h2)
    h, g = mover(client, gid, h1, h2)
    other = h2 if h is h1 else h1
    seq = g["seq"]
    url = f"/api/games/{gid}/actions"
    refused(client, "POST", url, 401, "log in", json={"action": "hold", "seq": seq})
    refused(client, "POST", url, 403, "do not play", json={"action": "hold", "seq": seq}, headers=stranger)
    refused(client, "POST", url, 409, "not your turn", json={"action": "hold", "seq": seq}, headers=other)
    refused(client, "POST", url, 409, "stale", json={"action": "hold", "seq": seq - 1}, headers=h)
    refused(client, "POST", url, 409, "illegal", json={"action": "fly", "seq": seq}, headers=h)
    refused(client, "POST", url, 400, "malformed json", content=b"{not json", headers={**h, "content-type": "application/json"})
    refused(client, "POST", url, 422, "seq", json={"action": "hold"}, headers=h)
    refused(client, "POST", url, 422, "seq", json={"action": "hold", "seq": "soon"}, headers=h)
    refused(client, "POST", "/api/games/999/actions", 404, "no game 999", json={"action": "hold", "seq": 0}, headers=h)
    refused(client, "GET", "/api/games/999", 404, "no game 999", headers=h)
    refused(client, "POST", "/api/games", 404, "unknown game", json={"game": "chess", "players": 2}, headers=h)
    refused(client, "POST", "/api/games", 400, "2 to 3 players", json={"game": "toypig", "players": 9}, headers=h)
    refused(client, "POST", "/api/games", 400, "must be one of", headers=h,
            json={"game": "toypig", "players": 2, "options": {"length": "endless"}})
    refused(client, "POST", "/api/games", 400, "unknown option", headers=h,
            json={"game": "toypig", "players": 2, "options": {"speed": "fast"}})
    refused(client, "GET", "/api/games?which=mine", 401, "log in")
    # the double click: the same move twice; the second is refused as stale
    assert client.post(url, json={"action": "hold", "seq": seq}, headers=h).status_code == 200
    refused(client, "POST", url, 409, "stale", json={"action": "hold", "seq": seq}, headers=h)


def test_cookie_session_writes_need_csrf_header(client: TestClient) -> None:
    from tests.portal.conftest import page_login

    token = page_login(client, "dora")
    refused(client, "POST", "/api/games", 403, "csrf", json={"game": "toypig", "players": 2})
    r = client.post("/api/games", json={"game": "toypig", "players": 2}, headers={"X-CSRF-Token": token})
    assert r.status_code == 201


def test_finished_game_has_result_and_full_record(client: TestClient) -> None:
    h = api_user(client, "alice")
    seats = [{"kind": "me"}, {"kind": "bot"}]
    gid = client.post("/api/games", json={"game": "toypig", "players": 2, "seats": seats}, headers=h).json()["id"]
    for _ in range(500):
        g = client.get(f"/api/games/{gid}", headers=h).json()
        if g["status"] == "finished":
            break
        if g["my_turn"]:
            client.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": g["seq"]}, headers=h)
        else:
            bot_step(client.app.state.portal.site, gid)  # type: ignore[attr-defined]
    assert g["status"] == "finished"
    assert g["result"] and {r["rank"] for r in g["result"]} <= {1, 2}
    rec = client.get(f"/api/games/{gid}/record").json()
    assert "?" not in [a["action"] for a in rec["actions"]]
    assert rec["result"] == g["result"]
    refused(client, "POST", f"/api/games/{gid}/actions", 409, "over", json={"action": "hold", "seq": g["seq"]},
            headers=h)


def test_openapi_documents_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path in ("/api/games", "/api/games/{game_id}", "/api/games/{game_id}/actions",
                 "/api/games/{game_id}/record", "/api/games/{game_id}/join", "/api/tokens"):
        assert path in schema["paths"]
    assert client.get("/docs").status_code == 200


def test_seats_take_the_bots_the_portal_offers(client: TestClient) -> None:
    h = api_user(client, "alice")
    # The refusal first: once a bot game runs, its bot moves and the database changes.
    # The arena's scripted expert is no portal bot.
    refused(client, "POST", "/api/games", 400, "bots offered here", headers=h,
            json={"game": "toypig", "players": 2, "seats": [{"kind": "me"}, {"kind": "bot", "bot": "expert"}]})
    for bot in ("random", "easy", "medium", "hard"):
        seats = [{"kind": "me"}, {"kind": "bot", "bot": bot}]
        r = client.post("/api/games", json={"game": "toypig", "players": 2, "seats": seats}, headers=h)
        assert r.status_code == 201, r.text
        assert bot in {s["bot"] for s in r.json()["seats"]}


@pytest.mark.parametrize("path", ["/api/v1/games/{id}", "/api/games/{id}", "/api/v1/games/{id}/record",
                                  "/api/v1/games/{id}/log", "/api/v1/games/{id}/chat"])
@pytest.mark.parametrize("huge", [2**31, 2**63, 2**64 + 1, 10**30])
def test_ids_beyond_the_columns_are_not_found(client: TestClient, path: str, huge: int) -> None:
    """Game ids beyond 64 bits once crashed with OverflowError (a 500); now: 404, like any unknown id."""
    h = api_user(client, "alice")
    r = client.get(path.format(id=huge), headers=h)
    assert r.status_code == 404, r.text
    assert r.json()["code"] == "not_found"


@pytest.mark.parametrize("action", ["join", "cancel", "leave", "resign"])
def test_writes_with_huge_ids_are_not_found_and_change_nothing(client: TestClient, action: str) -> None:
    h = api_user(client, "alice")
    refused(client, "POST", f"/api/v1/games/{2**64 + 1}/{action}", 404, "nothing at", headers=h)
    refused(client, "POST", f"/api/v1/games/{2**64 + 1}/actions", 404, "nothing at", headers=h,
            json={"action": "hold", "seq": 0})


def test_out_of_range_body_numbers_are_malformed(client: TestClient, two: Any) -> None:
    h1, h2 = two
    gid = start_game(client, h1, h2)
    refused(client, "POST", f"/api/v1/games/{gid}/actions", 422, "seq", headers=h1,
            json={"action": "hold", "seq": 2**64})
    refused(client, "POST", "/api/v1/games", 422, "players", headers=h1, json={"game": "toypig", "players": 10**20})
    refused(client, "POST", f"/api/v1/games/{gid}/actions", 422, "action", headers=h1,
            json={"action": "x" * 201, "seq": 0})


def test_game_lists_are_keyset_pages_stable_under_inserts(client: TestClient) -> None:
    h = api_user(client, "alice")
    client.app.state.portal.site.lobby.max_open_games = 100  # type: ignore[attr-defined]
    client.app.state.portal.limits.enabled = False  # type: ignore[attr-defined]
    made = [client.post("/api/v1/games", json={"game": "toypig", "players": 2}, headers=h).json()["id"]
            for _ in range(7)]
    first = client.get("/api/v1/games?which=mine&limit=3", headers=h).json()
    assert [g["id"] for g in first["items"]] == made[::-1][:3] and first["next_cursor"]
    made.append(client.post("/api/v1/games", json={"game": "toypig", "players": 2}, headers=h).json()["id"])
    second = client.get(f"/api/v1/games?which=mine&limit=3&cursor={first['next_cursor']}", headers=h).json()
    assert [g["id"] for g in second["items"]] == made[:-1][::-1][3:6]
    third = client.get(f"/api/v1/games?which=mine&limit=3&cursor={second['next_cursor']}", headers=h).json()
    assert [g["id"] for g in third["items"]] == [made[0]] and third["next_cursor"] is None
    assert client.get("/api/v1/games?which=mine&limit=0", headers=h).status_code == 422
    assert client.get("/api/v1/games?which=mine&cursor=NOT-A-CURSOR", headers=h).status_code == 422


def test_token_list_is_a_page(client: TestClient) -> None:
    h = api_user(client, "alice")
    for i in range(3):
        client.post("/api/v1/tokens", json={"name": "alice", "password": "password-alice", "label": f"t{i}"})
    page = client.get("/api/v1/tokens?limit=2", headers=h).json()
    assert [t["label"] for t in page["items"]] == ["t2", "t1"]
    rest = client.get(f"/api/v1/tokens?limit=2&cursor={page['next_cursor']}", headers=h).json()
    assert [t["label"] for t in rest["items"]] == ["t0", "api registration"] and rest["next_cursor"] is None
