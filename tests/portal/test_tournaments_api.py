"""Tournaments through the JSON API and the pages (issue 31): create, enter, withdraw, list, standings,
pairings and the organiser's actions; refusals name the reason and change nothing."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.storage import StoreError
from ludothek.storage.models import utcnow
from tests.portal.conftest import api_user, csrf_of, make_settings, page_login
from tests.portal.tournament_support import later, play_to_end


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    # No job thread: the test steps the round job itself.
    with TestClient(create_app(make_settings(db_url, jobs_interval=0))) as c:
        yield c


def body(**kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": "Winter cup", "game": "toypig", "options": {"length": "short"}, "table_size": 2,
                           "rounds": 2, "time_control": "move:3", "max_entrants": 8,
                           "starts_at": (utcnow() + timedelta(hours=1)).isoformat()}
    out.update(kw)
    return out


def test_the_api_runs_a_tournament(client: TestClient) -> None:
    ann, bob, cid = (api_user(client, n) for n in ("ann", "bob", "cid"))
    r = client.post("/api/v1/tournaments", json=body(), headers=ann)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    assert r.json()["state"] == "open" and r.json()["organiser"] == "ann"
    for h in (ann, bob, cid):
        r = client.post(f"/api/v1/tournaments/{tid}/enter", headers=h)
        assert r.status_code == 200 and r.json()["me"] == "entered", r.text
    again = client.post(f"/api/v1/tournaments/{tid}/enter", headers=bob)
    assert again.status_code == 409 and again.json()["code"] == "conflict"
    listed = client.get("/api/v1/tournaments?which=open").json()["items"]
    assert [t["id"] for t in listed] == [tid] and listed[0]["entrants"] == 3
    site = client.app.state.portal.site  # type: ignore[attr-defined]
    site.tournaments.run_due(later())
    assert client.get("/api/v1/tournaments?which=running").json()["items"][0]["current_round"] == 1
    rounds = client.get(f"/api/v1/tournaments/{tid}/pairings").json()["rounds"]
    assert len(rounds) == 1 and len(rounds[0]["tables"]) == 1 and len(rounds[0]["byes"]) == 1
    gid = rounds[0]["tables"][0]["game_id"]
    play_to_end(site, gid)
    site.tournaments.run_due(later())
    standings = client.get(f"/api/v1/tournaments/{tid}/standings").json()["items"]
    assert len(standings) == 3 and standings[0]["rank"] == 1 and "buchholz" in standings[0]["tiebreaks"]
    # cid withdraws; the organiser pauses, resumes, removes bob, then calls it off
    assert client.post(f"/api/v1/tournaments/{tid}/withdraw", headers=cid).json()["me"] == "withdrawn"
    assert client.post(f"/api/v1/tournaments/{tid}/pause", headers=bob).status_code == 403
    assert client.post(f"/api/v1/tournaments/{tid}/pause", headers=ann).json()["state"] == "paused"
    assert client.post(f"/api/v1/tournaments/{tid}/resume", headers=ann).json()["state"] == "running"
    r = client.post(f"/api/v1/tournaments/{tid}/remove", json={"name": "bob"}, headers=ann)
    assert r.status_code == 200, r.text
    assert client.get(f"/api/v1/tournaments/{tid}", headers=bob).json()["me"] == "removed"
    assert client.post(f"/api/v1/tournaments/{tid}/cancel", headers=ann).json()["state"] == "cancelled"
    assert client.get("/api/v1/tournaments?which=finished").json()["items"][0]["id"] == tid


@pytest.mark.parametrize("bad, status", [
    ({"time_control": "none"}, 400), ({"game": "nope"}, 404), ({"table_size": 9}, 422),
    ({"rounds": "2"}, 422), ({"starts_at": "soon"}, 400),
    ({"format": "round_robin", "max_entrants": 25}, 400),
    ({"format": "knockout", "table_size": 3, "min_entrants": 4, "max_entrants": 4}, 400),
])
def test_bad_bodies_are_refused_and_nothing_is_created(client: TestClient, bad: dict[str, Any], status: int) -> None:
    ann = api_user(client, "ann")
    r = client.post("/api/v1/tournaments", json=body(**bad), headers=ann)
    assert r.status_code == status, r.text
    assert r.json().get("message") or r.json().get("detail")
    assert client.get("/api/v1/tournaments").json()["items"] == []


def test_unknown_tournaments_and_anonymous_changes(client: TestClient) -> None:
    assert client.get("/api/v1/tournaments/77").status_code == 404
    assert client.get("/api/v1/tournaments/77/standings").status_code == 404
    assert client.post("/api/v1/tournaments/77/enter").status_code == 401


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_pages_create_enter_and_show_a_tournament(db_url: str, lang: str) -> None:
    with TestClient(create_app(make_settings(db_url, jobs_interval=0))) as client:
        csrf = page_login(client, "ann")
        client.post("/lang", data={"csrf": csrf, "lang": lang, "next": "/"})
        form = client.get("/tournaments/new?game=toypig")
        assert form.status_code == 200 and 'name="time_control"' in form.text and "tc_none" not in form.text
        csrf = csrf_of(client)
        starts = (utcnow() + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
        bad = client.post("/tournaments/new", data={"csrf": csrf, "game": "toypig", "name": "", "table_size": "2",
                                                     "rounds": "2", "time_control": "move:3", "max_entrants": "4",
                                                     "start_rule": "time", "starts_at": starts})
        assert bad.status_code == 400 and 'id="form-error"' in bad.text
        r = client.post("/tournaments/new", data={"csrf": csrf, "game": "toypig", "name": "Pig cup", "table_size": "2",
                                                   "opt_length": "short", "rounds": "2", "time_control": "move:3",
                                                   "max_entrants": "4", "start_rule": "time", "starts_at": starts},
                        follow_redirects=False)
        assert r.status_code == 303, r.text
        page = client.get(r.headers["location"])
        assert page.status_code == 200 and "Pig cup" in page.text and 'id="enter-tournament"' in page.text
        client.post(r.headers["location"] + "/enter", data={"csrf": csrf})
        entered = client.get(r.headers["location"]).text
        assert 'data-me="entered"' in entered and 'id="withdraw-tournament"' in entered
        assert "Pig cup" in client.get("/tournaments").text
        assert "Pig cup" in client.get("/games/toypig").text
        assert "Pig cup" in client.get("/users/ann").text
        assert client.get("/tournaments/999").status_code == 404


def test_a_withdrawn_players_game_is_played_on_by_a_bot_in_the_running_site(db_url: str) -> None:
    """In the app (its bot worker thread running), the seat of a player who withdrew is played by a bot to
    the end; the round then ends and the tournament goes on without them."""
    with TestClient(create_app(make_settings(db_url, jobs_interval=0))) as client:
        ann, bob = (api_user(client, n) for n in ("ann", "bob"))
        # Full with two: it starts at the job's next pass, at the real time (the games' turns start now,
        # so the bot worker, which waits for a turn's time to come, plays at once).
        tid = client.post("/api/v1/tournaments", json=body(rounds=2, start_rule="full", starts_at=None,
                                                             max_entrants=2), headers=ann).json()["id"]
        for h in (ann, bob):
            assert client.post(f"/api/v1/tournaments/{tid}/enter", headers=h).status_code == 200
        site = client.app.state.portal.site  # type: ignore[attr-defined]
        assert site.tournaments.run_due() == 1
        gid = client.get(f"/api/v1/tournaments/{tid}/pairings").json()["rounds"][0]["tables"][0]["game_id"]
        assert client.post(f"/api/v1/tournaments/{tid}/withdraw", headers=bob).status_code == 200
        anna = site.accounts.user_by_name("ann")
        deadline = time.monotonic() + 60
        i = 0
        while site.games.game(gid).status == "running":
            if time.monotonic() > deadline:
                stuck = site.games.game(gid)
                raise AssertionError(f"the game did not end: to move {stuck.to_move}, seq {stuck.seq}, "
                                     f"seats {[(x.seat, x.kind, x.user_id, x.bot, x.left_as) for x in stuck.seats]}")
            info = site.games.game(gid)
            if info.to_move == info.seat_of(anna.id):
                i += 1
                # (a refusal: the bot moved meanwhile, or "hold" was not allowed; look again)
                with contextlib.suppress(StoreError):
                    site.play.submit(gid, "roll" if i % 3 else "hold", info.seq, user_id=anna.id)
            else:
                time.sleep(0.02)  # the bot's turn: the app's bot worker plays it
        result = site.games.game(gid).result
        assert result is not None and any(r.get("left") == "resigned" for r in result)
        site.tournaments.run_due(later())  # round 1 is over; one entrant left: the tournament ends
        assert client.get(f"/api/v1/tournaments/{tid}").json()["state"] == "finished"


@pytest.mark.parametrize("fmt, rounds", [("round_robin", 7), ("knockout", 3)])
def test_round_robin_and_knockout_are_created_with_the_rounds_of_a_full_field(client: TestClient, fmt: str,
                                                                              rounds: int) -> None:
    ann = api_user(client, "ann")
    r = client.post("/api/v1/tournaments", json=body(format=fmt, max_entrants=8, rounds=2), headers=ann)
    assert r.status_code == 201, r.text
    got = client.get(f"/api/v1/tournaments/{r.json()['id']}").json()
    assert (got["format"], got["rounds"]) == (fmt, rounds)  # 8 two-player entrants: 7 rounds; 8 → 4 → 2 → final
