"""Correspondence clocks, timeouts, resignation, abandoning and vacations (issue 9, part 3).

The clock is injected: deadlines are stored as real timestamps, and the tests
call the clock job with a "now" days ahead, so a week passes in milliseconds.
The portal's own job thread is off (``jobs_interval=0``); its bot runner plays
the seats that bots take over.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek.portal import create_app
from ludothek.services import Site
from ludothek.storage import make_engine
from ludothek.storage.timecontrol import DAY, TimeControl, paused_deadline, placed_last
from ludothek.workers.clocks import ClockJob
from ludothek.workers.runner import Runner
from tests.portal.conftest import api_user, make_settings


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(db_url, jobs_interval=0))) as c:
        yield c


def site_of(client: TestClient) -> Site:
    site: Site = client.app.state.portal.site  # type: ignore[attr-defined]
    return site


def two_player_game(client: TestClient, time_control: Any,
                    names: tuple[str, str] = ("ann", "bob")) -> tuple[int, dict[str, str], dict[str, str]]:
    ann, bob = api_user(client, names[0]), api_user(client, names[1])
    r = client.post("/api/games", json={"game": "toypig", "players": 2, "time_control": time_control}, headers=ann)
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    assert client.post(f"/api/games/{gid}/join", headers=bob).status_code == 200
    return gid, ann, bob


def to_move(client: TestClient, gid: int, *hs: dict[str, str]) -> tuple[dict[str, str], dict[str, Any]]:
    for h in hs:
        g = client.get(f"/api/games/{gid}", headers=h).json()
        if g["my_turn"]:
            return h, g
    raise AssertionError("nobody is to move")


def wait_until(check: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


# ----------------------------------------------------------------------------- choosing a control
@pytest.mark.parametrize("spec", ["move:4", {"kind": "move", "days": 30}, "bank:0+1/14", "bank:3+9/14",
                                  {"kind": "bank", "start_days": "x"}, "hourglass", {"kind": "move"}, 7])
def test_an_unknown_time_control_is_refused_and_nothing_is_created(client: TestClient, spec: Any) -> None:
    h = api_user(client, "ann")
    r = client.post("/api/games", json={"game": "toypig", "players": 2, "time_control": spec}, headers=h)
    assert (r.status_code in (400, 422) and "time control" in r.text.lower()) or r.status_code == 422
    assert client.get("/api/games?which=mine", headers=h).json()["items"] == []


def test_a_fixed_time_per_move_sets_a_deadline_and_the_api_shows_it(client: TestClient) -> None:
    gid, ann, bob = two_player_game(client, "move:2")
    _, g = to_move(client, gid, ann, bob)
    clock = g["clock"]
    assert clock["control"] == {"kind": "move", "days": 2}
    left = next(s for s in clock["seats"] if s["seat"] == g["my_seat"])["remaining_seconds"]
    assert 2 * DAY - 60 < left <= 2 * DAY


# ----------------------------------------------------------------------------- timeouts
def test_a_timeout_hands_the_seat_to_a_bot_and_places_the_player_last(client: TestClient) -> None:
    gid, ann, bob = two_player_game(client, {"kind": "move", "days": 1})
    site = site_of(client)
    slow, g = to_move(client, gid, ann, bob)
    seq = g["seq"]
    assert site.clocks.expire_due(datetime.now(UTC) + timedelta(hours=23)) == []
    assert site.clocks.expire_due(datetime.now(UTC) + timedelta(days=1, minutes=1)) == [gid]
    # The player can no longer act for the seat.
    r = client.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": seq}, headers=slow)
    assert r.status_code in (403, 409)
    # The others play on; the bot plays the taken-over seat.  Play the game out.
    other = bob if slow is ann else ann
    for _ in range(400):
        g = client.get(f"/api/games/{gid}", headers=other).json()
        if g["status"] == "finished":
            break
        if g["my_turn"]:
            client.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": g["seq"]}, headers=other)
        else:
            time.sleep(0.01)
    g = client.get(f"/api/games/{gid}", headers=other).json()
    assert g["status"] == "finished"
    slow_seat = next(s["seat"] for s in g["seats"] if s["kind"] == "bot")
    result = {r["seat"]: r for r in g["result"]}
    assert result[slow_seat]["left"] == "timed_out" and result[slow_seat]["rank"] == 2
    assert result[1 - slow_seat]["rank"] == 1
    assert "(Bot)" in next(s["name"] for s in g["seats"] if s["seat"] == slow_seat)


def test_deadlines_fire_exactly_once_with_two_servers_racing(any_db: str) -> None:
    """Two stores (two servers) run the clock job at the same moment: every timeout fires once."""
    # No bot plays the seats taken over meanwhile: its move would start the other player's clock, a new
    # deadline also due at ``later``, which a clock job that began a few dozen milliseconds late (a busy
    # machine) rightly fires as well, and the game would be counted twice.
    with TestClient(create_app(make_settings(any_db, jobs_interval=0, bots_in_process=False))) as one:
        ann, bob = api_user(one, "ann"), api_user(one, "bob")
        games = []
        for _ in range(6):
            gid = one.post("/api/games", json={"game": "toypig", "players": 2, "time_control": "move:1"},
                           headers=ann).json()["id"]
            assert one.post(f"/api/games/{gid}/join", headers=bob).status_code == 200
            games.append(gid)
        sites = [Site(make_engine(any_db)) for _ in range(2)]
        later = datetime.now(UTC) + timedelta(days=2)
        fired: list[list[int]] = [[], []]
        barrier = threading.Barrier(2)

        def run(i: int) -> None:
            barrier.wait()
            fired[i] = sites[i].clocks.expire_due(later)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(fired[0] + fired[1]) == sorted(games)
        for s in sites:
            s.engine.dispose()


def test_deadlines_survive_a_restart(db_url: str) -> None:
    with TestClient(create_app(make_settings(db_url, jobs_interval=0))) as first:
        gid, _, _ = two_player_game(first, "move:3")
    with TestClient(create_app(make_settings(db_url, jobs_interval=0))) as second:
        site = site_of(second)
        assert site.games.game(gid).deadline is not None
        runner = Runner([ClockJob(site)], clock=lambda: datetime.now(UTC) + timedelta(days=4))
        assert runner.run_once() == 1
        assert any(s.left_as == "timed_out" for s in site.games.game(gid).seats)


def test_bots_only_remainder_plays_itself_to_the_end(client: TestClient) -> None:
    gid, ann, bob = two_player_game(client, "move:1")
    site = site_of(client)
    site.clocks.expire_due(datetime.now(UTC) + timedelta(days=2))
    g = client.get(f"/api/games/{gid}", headers=ann).json()
    other = ann if g["my_seat"] is not None else bob
    r = client.post(f"/api/games/{gid}/resign", headers=other)
    # (the bot may win within its own turn before the other player resigns: then the game is over)
    assert r.status_code == 200 or "only a running game" in r.text, r.text
    wait_until(lambda: site.games.game(gid).status == "finished")
    if r.status_code != 200:
        return
    result = site.games.game(gid).result
    # Everyone left: they share the last place, which is also the only one.
    assert result is not None and {r["left"] for r in result} == {"timed_out", "resigned"}
    assert {r["rank"] for r in result} == {1}


# ----------------------------------------------------------------------------- time banks
def test_a_time_bank_keeps_what_is_left_plus_the_bonus_up_to_the_cap(client: TestClient) -> None:
    gid, ann, bob = two_player_game(client, "bank:3+1/4")
    site = site_of(client)
    h, g = to_move(client, gid, ann, bob)
    me = g["my_seat"]
    while g["my_turn"]:  # until the turn passes (the toy game may hand it straight back)
        assert client.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": g["seq"]},
                           headers=h).status_code == 200
        g = client.get(f"/api/games/{gid}", headers=h).json()
    banks = {s["seat"]: s["remaining_seconds"] for s in site.clocks.clock_view(site.games.game(gid))["seats"]}  # type: ignore[index]
    # About 3 days were left; the bonus of 1 day is capped at 4 days.
    assert 4 * DAY - 60 < banks[me] <= 4 * DAY


def test_time_arithmetic() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    assert paused_deadline(t0, DAY, []) == t0 + timedelta(days=1)
    away = [(t0 + timedelta(hours=12), t0 + timedelta(days=3))]
    assert paused_deadline(t0, DAY, away) == t0 + timedelta(days=3, hours=12)
    assert paused_deadline(t0, DAY, [(t0 + timedelta(days=2), t0 + timedelta(days=5))]) == t0 + timedelta(days=1)
    result = [{"seat": 0, "rank": 1, "score": 9}, {"seat": 1, "rank": 2, "score": 5}, {"seat": 2, "rank": 2, "score": 5}]
    placed = placed_last(result, {0: "resigned"})
    assert [(r["seat"], r["rank"], r.get("left")) for r in placed] == [(0, 3, "resigned"), (1, 1, None), (2, 1, None)]
    assert TimeControl.from_json(TimeControl("bank", 0, 3, 1, 14).to_json()) == TimeControl("bank", 0, 3, 1, 14)


# ----------------------------------------------------------------------------- resigning and abandoning
def test_resigning_and_its_refusals(client: TestClient) -> None:
    gid, ann, _ = two_player_game(client, None)
    carol = api_user(client, "carol")
    assert client.post(f"/api/games/{gid}/resign", headers=carol).status_code == 403
    r = client.post(f"/api/games/{gid}/resign", headers=ann)
    assert r.status_code == 200
    seats = {s["name"]: s for s in r.json()["seats"]}
    assert seats["ann (Bot)"]["kind"] == "bot"
    again = client.post(f"/api/games/{gid}/resign", headers=ann)
    assert again.status_code in (403, 409)
    site = site_of(client)
    wait_until(lambda: site.games.game(gid).status == "finished" or site.games.game(gid).to_move >= 0)
    assert client.post("/api/games/999999/resign", headers=ann).status_code == 404


def test_resigning_a_finished_game_is_refused(client: TestClient) -> None:
    gid, ann, bob = two_player_game(client, None)
    assert client.post(f"/api/games/{gid}/resign", headers=ann).status_code == 200
    # The bot that took ann's seat may win within its own turn; otherwise bob resigns too.
    r = client.post(f"/api/games/{gid}/resign", headers=bob)
    assert r.status_code == 200 or "only a running game" in r.text, r.text
    site = site_of(client)
    wait_until(lambda: site.games.game(gid).status == "finished")
    r = client.post(f"/api/games/{gid}/resign", headers=bob)
    assert r.status_code == 409 and "only a running game" in r.json()["detail"]


def test_abandoning_needs_every_human_and_the_creator_offers(client: TestClient) -> None:
    gid, ann, bob = two_player_game(client, "move:1")
    r = client.post(f"/api/games/{gid}/abandon", json={"agree": True}, headers=bob)
    assert r.status_code == 409 and "only the creator can offer" in r.json()["detail"]
    assert client.post(f"/api/games/{gid}/abandon", json={}, headers=ann).json()["status"] == "running"
    # Bob declines: the offer is withdrawn.
    assert client.post(f"/api/games/{gid}/abandon", json={"agree": False}, headers=bob).status_code == 200
    assert client.post(f"/api/games/{gid}/abandon", json={"agree": True}, headers=bob).status_code == 409
    client.post(f"/api/games/{gid}/abandon", json={}, headers=ann)
    r = client.post(f"/api/games/{gid}/abandon", json={}, headers=bob)
    assert r.status_code == 200 and r.json()["status"] == "abandoned" and r.json()["result"] is None
    # An abandoned game has no clock left to fire.
    assert site_of(client).clocks.expire_due(datetime.now(UTC) + timedelta(days=5)) == []


# ----------------------------------------------------------------------------- vacations
def test_a_vacation_pauses_the_clock_of_a_waiting_game(client: TestClient) -> None:
    gid, ann, bob = two_player_game(client, "move:1")
    site = site_of(client)
    h, _ = to_move(client, gid, ann, bob)
    before = site.games.game(gid).deadline
    assert before is not None
    r = client.post("/api/vacation", json={"days": 5}, headers=h)
    assert r.status_code == 201 and 4.9 < r.json()["used_days"] <= 5.0 and len(r.json()["absences"]) == 1
    after = site.games.game(gid).deadline
    assert after is not None and timedelta(days=4, hours=23) < after - before <= timedelta(days=5)
    assert site.clocks.expire_due(datetime.now(UTC) + timedelta(days=2)) == []
    # Others see why the clock stands still.
    other = bob if h is ann else ann
    seats = client.get(f"/api/games/{gid}", headers=other).json()["clock"]["seats"]
    assert any(s["away_until"] for s in seats)


def test_vacations_are_limited_and_checked(client: TestClient) -> None:
    h = api_user(client, "ann")
    for bad in ({"days": 0}, {"days": 31}, {"days": "x"}, {"days": 3, "starts": "2001-01-01T00:00:00Z"}):
        assert client.post("/api/vacation", json=bad, headers=h).status_code in (400, 422), bad
    assert client.get("/api/vacation", headers=h).json()["used_days"] == 0
    # Early next year: always within the coming 366 days, and one calendar year for all three.
    start = datetime(datetime.now(UTC).year + 1, 1, 10, tzinfo=UTC)
    assert client.post("/api/vacation", json={"days": 20, "starts": start.isoformat()}, headers=h).status_code == 201
    r = client.post("/api/vacation", json={"days": 15, "starts": (start + timedelta(days=21)).isoformat()}, headers=h)
    assert r.status_code == 409 and "vacation days in" in r.json()["detail"]
    r = client.post("/api/vacation", json={"days": 2, "starts": (start + timedelta(days=1)).isoformat()}, headers=h)
    assert r.status_code == 409 and "already have a vacation" in r.json()["detail"]


# ----------------------------------------------------------------------------- pages
@pytest.mark.parametrize("lang", ["de", "en"])
def test_pages_offer_time_controls_show_clocks_and_take_resignations(db_url: str, lang: str) -> None:
    from tests.portal.conftest import page_login

    with TestClient(create_app(make_settings(db_url, jobs_interval=0))) as ann, \
            TestClient(create_app(make_settings(db_url, jobs_interval=0))) as bob:
        token = page_login(ann, "ann")
        ann.post("/lang", data={"csrf": token, "lang": lang, "next": "/"})
        page_login(bob, "bob")
        form = ann.get("/new?game=toypig").text
        assert 'name="time_control"' in form and ("Tage pro Zug" if lang == "de" else "days per move") in form
        assert ("1 Tag pro Zug" if lang == "de" else "1 day per move") in form  # the singular, not "1 days"
        token = ann.get("/new?game=toypig").text.split('name="csrf" value="')[1].split('"')[0]
        r = ann.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "seat1": "invite",
                                   "seat1_name": "bob", "time_control": "move:2"}, follow_redirects=False)
        assert r.status_code == 303, r.text
        gid = int(r.headers["location"].rsplit("/", 1)[1])
        token_b = bob.get(f"/games/{gid}").text.split('name="csrf" value="')[1].split('"')[0]
        assert bob.post(f"/games/{gid}/join", data={"csrf": token_b}).status_code == 200
        page = ann.get(f"/games/{gid}").text
        assert 'class="clock"' in page and ("noch 1 T." if lang == "de" else "1 d 23 h left") in page
        assert 'id="resign"' in page and 'id="abandon"' in page
        token = page.split('name="csrf" value="')[1].split('"')[0]
        assert ann.post(f"/games/{gid}/resign", data={"csrf": token, "confirm": "yes"}).status_code == 200
        seen = bob.get(f"/games/{gid}").text
        assert "ann (Bot)" in seen and ("resigned – a bot plays on" in seen or "Game over" in seen)  # bob reads English
        bad = ann.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "time_control": "move:4"})
        assert bad.status_code == 400 and "move:4" in bad.text
        acc = bob.get("/account").text
        assert 'id="vacation-form"' in acc
        token_b = acc.split('name="csrf" value="')[1].split('"')[0]
        assert bob.post("/account/vacation", data={"csrf": token_b, "days": "3"}).status_code == 200
        assert bob.post("/account/vacation", data={"csrf": token_b, "days": "40"}).status_code == 400


# ----------------------------------------------------------------------------- reminders (issue 30, item 1)
def reminders_of(client: TestClient) -> list[tuple[int | None, int | None]]:
    return [(r["game_id"], r["user_id"]) for r in site_of(client).outbox.mail_rows() if r["kind"] == "reminder"]


def test_a_one_day_turn_is_reminded_when_a_quarter_is_left_never_with_the_turn(client: TestClient) -> None:
    """Issue 30, item 1: with 1 day per move the reminder came with the turn notice (24 h ahead).

    Now it comes when a quarter of the turn's time is left (6 hours of a day), once.
    """
    gid, *_ = two_player_game(client, "move:1")
    site = site_of(client)
    start = datetime.now(UTC)
    assert site.clocks.queue_reminders(start + timedelta(minutes=1)) == []  # the turn notice's moment
    assert site.clocks.queue_reminders(start + timedelta(hours=17)) == []  # 7 hours left: not yet
    assert reminders_of(client) == []
    assert site.clocks.queue_reminders(start + timedelta(hours=18, minutes=5)) == [gid]
    assert site.clocks.queue_reminders(start + timedelta(hours=20)) == []  # once per deadline
    assert len(reminders_of(client)) == 1


def test_long_turns_are_reminded_a_day_ahead_and_time_banks_by_their_balance(client: TestClient) -> None:
    """The lead is a quarter of the turn's time, at most 24 hours: 14 days per move are reminded a day ahead;
    a time bank's turn is the balance it started with (3 days: reminded 18 hours ahead)."""
    long_gid, *_ = two_player_game(client, "move:14")
    bank_gid, *_ = two_player_game(client, "bank:3+1/14", ("cleo", "dirk"))
    site = site_of(client)
    start = datetime.now(UTC)
    assert site.clocks.queue_reminders(start + timedelta(days=12, hours=23)) == []
    assert site.clocks.queue_reminders(start + timedelta(days=2, hours=5)) == []  # 19 hours of the bank left
    assert site.clocks.queue_reminders(start + timedelta(days=2, hours=7)) == [bank_gid]
    assert site.clocks.queue_reminders(start + timedelta(days=13, hours=1)) == [long_gid]
