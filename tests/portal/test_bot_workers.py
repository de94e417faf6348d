"""Bot turns played by bot worker processes (issue 11, part 3): claimed once, picked up after a crash,
started and stopped by ``serve``, with the strength each seat chose."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from ludothek import bots as bots_module
from ludothek.engine import State
from ludothek.portal import create_app
from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.storage.botturns import LEASE
from ludothek.storage.models import ActionRow, GameRow
from ludothek.workers.bots import BotWorker, play_bot_turn
from tests.portal.conftest import FAST_HASHER, api_user, csrf_of, make_settings, page_login
from tests.portal.server import PortTaken, free_port, wait_until_serving

#: The workers' "now" in these tests: an hour past the wall clock, so every turn the tests set up
#: (stamped with the real time) is due, whatever day the tests run.  A fixed date here once made
#: every turn lie in the future of "now" once that date had passed.
T0 = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)


def new_site(url: str) -> Site:
    engine = make_engine(url)
    migrate(engine)
    return Site(engine, hasher=FAST_HASHER)


def bot_games(site: Site, n: int, bot: str = "random", players: int = 3, all_bots_first: bool = False) -> list[int]:
    """``n`` running games of toypig where every seat but the creator's is a bot, each with a bot to move.

    ``all_bots_first``: every bot is to move before the creator (the seats are drawn at random, so
    without it the bot to move may be the one just before the creator): the seats hold on until the
    creator has held, so the bot after the creator is to move.
    """
    creator = site.accounts.register(f"maker{random.randrange(10**9)}", "password-m")
    games: list[int] = []
    while len(games) < n:
        seats = [{"kind": "me"}] + [{"kind": "bot", "bot": bot}] * (players - 1)
        gid = site.lobby.create_game(creator, "toypig", players, {"length": "long"}, seats)
        info = site.games.game(gid)
        while all_bots_first and info.status == "running" and info.is_bot_seat(info.to_move):
            site.play.submit(gid, "hold", info.seq, seat=info.to_move)  # the bots before the creator pass
            info = site.games.game(gid)
        if info.status == "running" and info.to_move >= 0 and not info.is_bot_seat(info.to_move):
            site.play.submit(gid, "hold", info.seq, seat=info.to_move)  # the creator passes: a bot is to move
            info = site.games.game(gid)
        if info.status == "running" and info.is_bot_seat(info.to_move):
            games.append(gid)
    return games


def _claims_of(site: Site) -> dict[int, tuple[str | None, int | None]]:
    with site.engine.begin() as conn:
        return {r.id: (r.bot_claimed_by, r.bot_claim_seq)
                for r in conn.execute(select(GameRow.id, GameRow.bot_claimed_by, GameRow.bot_claim_seq))}


def test_two_workers_claim_each_turn_exactly_once(any_db: str) -> None:
    """Two workers (two stores, as two processes would have) race for 24 pending turns: each is claimed once."""
    sites = [new_site(any_db), new_site(any_db)]
    games = bot_games(sites[0], 24)
    assert sites[0].bots.count_pending_bot_turns(T0) == 24
    claimed: list[list[int]] = [[], []]
    start = threading.Barrier(2)

    def claim(i: int) -> None:
        start.wait()
        while (turn := sites[i].bots.claim_bot_turn(f"worker-{i}", T0)) is not None:
            claimed[i].append(turn.game_id)

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    every = claimed[0] + claimed[1]
    assert sorted(every) == sorted(games), "every turn claimed, none twice"
    assert sites[0].bots.count_pending_bot_turns(T0) == 0  # the gauge's count: nothing left unclaimed
    owners = _claims_of(sites[0])
    for i in range(2):
        assert all(owners[g][0] == f"worker-{i}" for g in claimed[i])
    for s in sites:
        s.engine.dispose()


def test_a_busy_worker_claims_the_next_turn_without_first_asking_whether_one_is_due(any_db: str) -> None:
    """After a turn it played, the worker's next query is the claim itself; it asks when the next turn is
    due only once a claim found nothing (one query per turn while bots keep moving, not two)."""
    site = new_site(any_db)
    games = bot_games(site, 8, players=3)
    events: list[str] = []
    claim, due = site.bots.claim_bot_turn, site.bots.next_bot_turn_due

    def counted_claim(*args: Any, **kwargs: Any) -> Any:
        turn = claim(*args, **kwargs)
        events.append("claimed" if turn is not None else "none")
        return turn

    def counted_due(*args: Any, **kwargs: Any) -> Any:
        events.append("look")
        return due(*args, **kwargs)

    site.bots.claim_bot_turn = counted_claim  # type: ignore[method-assign]
    site.bots.next_bot_turn_due = counted_due  # type: ignore[method-assign]
    worker = BotWorker(site, delay=0.0, interval=0.01, owner="busy")
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the bots move until every game waits for its creator
            infos = [site.games.game(g) for g in games]
            if all(i.status != "running" or not i.is_bot_seat(i.to_move) for i in infos):
                break
            time.sleep(0.01)
    finally:
        worker.stop()
    assert worker.played >= 8  # every game had a bot to move
    after_a_turn = [events[i + 1] for i, e in enumerate(events[:-1]) if e == "claimed"]
    assert len(after_a_turn) >= 7 and "look" not in after_a_turn


def test_two_workers_play_bots_only_games_to_the_end_without_a_lost_turn(any_db: str) -> None:
    """Two bot workers play ten games to their end; every bot move was thought once and stored once."""
    sites = [new_site(any_db), new_site(any_db)]
    games = bot_games(sites[0], 10, players=2)
    creator = sites[0].games.game(games[0]).seats
    assert creator  # the creator sits in every game and only holds when it is their turn
    workers = [BotWorker(sites[i], delay=0.0, interval=0.01, owner=f"w{i}") for i in range(2)]
    stale: list[int] = []
    for w in workers:
        original = w.play

        def play(turn: Any, original: Any = original) -> bool:
            stored = bool(original(turn))
            if not stored:
                stale.append(turn.game_id)
            return stored

        w.play = play  # type: ignore[method-assign]
    for w in workers:
        w.start()
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            infos = [sites[0].games.game(g) for g in games]
            if all(i.status == "finished" for i in infos):
                break
            for info in infos:  # the human seat: always "hold" at once
                if info.status == "running" and not info.is_bot_seat(info.to_move) and info.to_move >= 0:
                    with contextlib.suppress(Exception):
                        sites[0].play.submit(info.id, "hold", info.seq, seat=info.to_move)
            time.sleep(0.005)
    finally:
        for w in workers:
            w.stop()
    assert all(sites[0].games.game(g).status == "finished" for g in games), "a game stalled"
    with sites[0].engine.begin() as conn:
        rows = conn.execute(select(ActionRow.game_id, ActionRow.seat).where(ActionRow.game_id.in_(games))).all()
    bot_seats = {g: {s.seat for s in sites[0].games.game(g).seats if s.kind == "bot"} for g in games}
    bot_moves = sum(1 for g, seat in rows if seat in bot_seats[g])
    assert workers[0].played + workers[1].played == bot_moves, "each stored bot move was played once"
    assert stale == [], "no worker thought about a turn another worker had"
    for s in sites:
        s.engine.dispose()


def test_a_dead_workers_turn_is_played_after_its_lease_runs_out(tmp_path: Path) -> None:
    """A worker claims a turn and dies: nobody plays it while the lease holds, another worker does after."""
    site = new_site(f"sqlite:///{tmp_path / 'lease.sqlite3'}")
    (gid,) = bot_games(site, 1)
    seq = site.games.game(gid).seq
    dead = site.bots.claim_bot_turn("dead-worker", T0)
    assert dead is not None and dead.game_id == gid  # ... and then it was killed
    living = BotWorker(site, delay=0.0, owner="living")
    assert living.run_once(T0 + LEASE - timedelta(seconds=1)) == 0
    assert site.games.game(gid).seq == seq
    assert site.bots.count_pending_bot_turns(T0 + LEASE - timedelta(seconds=1)) == 0
    assert site.bots.count_pending_bot_turns(T0 + LEASE) == 1
    assert living.run_once(T0 + LEASE) == 1
    assert site.games.game(gid).seq > seq and living.played == 1
    site.engine.dispose()


def _bots_process(db: str, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "LUDOTHEK_LOG_LEVEL": "INFO"}
    return subprocess.Popen([sys.executable, "-m", "ludothek.cli", "bots", "--db", db, "--delay", "0", *extra],
                            stdout=subprocess.DEVNULL, stderr=log.open("wb"), env=env)


def _wait_for(what: str, check: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _real_game_with_hard_bot_to_move(site: Site) -> int:
    """A Roll Through the Ages game (a game the ``ludothek bots`` process knows, unlike the tests' toy
    games) between a person and ``hard``, played by the person until the bot is to move."""
    creator = site.accounts.register(f"maker{random.randrange(10**9)}", "password-m")
    gid = site.lobby.create_game(creator, "rolltheages", 2, {}, [{"kind": "me"}, {"kind": "bot", "bot": "hard"}])
    rng = random.Random(5)
    for _ in range(500):
        info = site.games.game(gid)
        if info.is_bot_seat(info.to_move):
            return gid
        with site.play.state(gid) as (_, tracked):
            assert tracked is not None
            action = rng.choice(tracked.state.legal_actions())
        site.play.submit(gid, action, info.seq, seat=info.to_move)
    raise AssertionError("the bot never came to move")


def test_kill_9_a_bot_worker_mid_thought_and_another_plays_the_turn(tmp_path: Path) -> None:
    """``ludothek bots`` claims a hard bot's turn; kill -9 while it thinks; the claim runs out, another plays.

    ``hard`` thinks for 0.25-0.35 s of CPU about the first decision of a Roll Through the Ages turn
    (200 iterations), and the claim is seen within 50 ms of being made: the kill falls in the thinking.
    """
    db = f"sqlite:///{tmp_path / 'kill.sqlite3'}"
    site = new_site(db)
    gid = _real_game_with_hard_bot_to_move(site)
    seq = site.games.game(gid).seq
    log = tmp_path / "bots.log"
    proc = _bots_process(db, log)
    try:
        owner = _wait_for("the worker's claim", lambda: _claims_of(site)[gid][0])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "bot turn failed" not in log.read_text(), "the worker could play this game: it was killed thinking"
    assert site.games.game(gid).seq == seq, "the killed worker stored nothing"
    assert _claims_of(site)[gid] == (owner, seq)
    now = datetime.now(UTC)
    assert site.bots.claim_bot_turn("early", now) is None  # the dead worker's lease still holds
    after = BotWorker(site, delay=0.0, owner="after")
    assert after.run_once(now + LEASE) == 1
    assert site.games.game(gid).seq > seq
    site.engine.dispose()


def test_a_failing_bot_falls_back_and_the_game_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    """A hard bot that raises: medium decides instead, the failure is logged, the game never stalls."""

    class Broken:
        name = "hard"
        budget = 0.05

        def choose(self, state: State, rng: random.Random) -> str:
            raise RuntimeError("the search fell over")

    monkeypatch.setitem(bots_module.BOTS, "hard", Broken)
    site = new_site(f"sqlite:///{tmp_path / 'fallback.sqlite3'}")
    (gid,) = bot_games(site, 1, bot="hard", players=2)
    worker = BotWorker(site, delay=0.0, owner="w")
    with caplog.at_level(logging.WARNING, logger="ludothek.bots"):
        for _ in range(500):
            info = site.games.game(gid)
            if info.status == "finished":
                break
            if info.is_bot_seat(info.to_move):
                assert worker.run_once() == 1
            else:
                site.play.submit(gid, "hold", info.seq, seat=info.to_move)
    assert site.games.game(gid).status == "finished"
    assert "bot hard failed" in caplog.text
    site.engine.dispose()


def test_a_turn_whose_move_fails_to_store_is_tried_again_after_the_lease(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """An error while playing (the database went away mid-move) leaves the claim to run out: no stall."""
    site = new_site(f"sqlite:///{tmp_path / 'retry.sqlite3'}")
    (gid,) = bot_games(site, 1)
    seq = site.games.game(gid).seq
    worker = BotWorker(site, delay=0.0, owner="w")
    real_submit = site.play.submit
    monkeypatch.setattr(site.play, "submit", lambda *a, **k: (_ for _ in ()).throw(OSError("disk gone")))
    assert worker.run_once(T0) == 1 and site.games.game(gid).seq == seq
    monkeypatch.setattr(site.play, "submit", real_submit)
    assert worker.run_once(T0 + timedelta(seconds=1)) == 0  # still claimed
    assert worker.run_once(T0 + LEASE) == 1
    assert site.games.game(gid).seq > seq
    site.engine.dispose()


def test_the_pause_people_need_is_kept(tmp_path: Path) -> None:
    """A bot turn is claimed only ``delay`` seconds after the seat started waiting."""
    site = new_site(f"sqlite:///{tmp_path / 'pace.sqlite3'}")
    (gid,) = bot_games(site, 1)
    since = site.games.game(gid).turn_since
    assert since is not None
    worker = BotWorker(site, delay=0.4, owner="w")
    assert worker.run_once(since + timedelta(seconds=0.3)) == 0
    wait = site.bots.next_bot_turn_due(since + timedelta(seconds=0.3), 0.4)
    assert wait is not None and 0.05 < wait <= 0.1 + 1e-6
    assert worker.run_once(since + timedelta(seconds=0.4)) == 1
    site.engine.dispose()


def test_resigned_and_timed_out_seats_are_played_by_medium(client: TestClient) -> None:
    """A seat taken over is played by `medium`, by the bot workers, until the game ends."""
    a = api_user(client, "anna")
    b = api_user(client, "bert")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2,
                                          "seats": [{"kind": "me"}, {"kind": "invite", "user": "bert"}]},
                      headers=a).json()["id"]
    assert client.post(f"/api/games/{gid}/join", headers=b).status_code == 200
    assert client.post(f"/api/games/{gid}/resign", headers=b).status_code == 200
    g = client.get(f"/api/games/{gid}", headers=a).json()
    bert = next(s for s in g["seats"] if s["name"].startswith("bert"))
    assert bert["kind"] == "bot" and bert["bot"] == "medium"
    for _ in range(400):
        g = client.get(f"/api/games/{gid}", headers=a).json()
        if g["status"] == "finished":
            break
        if g["my_turn"]:
            client.post(f"/api/games/{gid}/actions", json={"action": "hold", "seq": g["seq"]}, headers=a)
        else:
            time.sleep(0.01)
    assert g["status"] == "finished"
    page = client.get(f"/games/{gid}").text
    assert "(medium)" in page


def test_hard_is_chosen_in_the_new_game_form_and_shown_as_bot_hard(client: TestClient) -> None:
    csrf = page_login(client, "clara")
    form = client.get("/new?game=toypig").text
    choice = re.search(r'<select name="seat1_bot"[^>]*>(.*?)</select>', form, re.S)
    assert choice is not None
    assert re.findall(r'<option value="(\w+)"', choice.group(1)) == ["easy", "medium", "hard"]
    assert 'value="medium" selected' in choice.group(1)  # unless the player picks another
    r = client.post("/new", data={"csrf": csrf, "game": "toypig", "players": "2", "opt_length": "short",
                                  "seat1": "bot", "seat1_bot": "hard"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    gid = int(r.headers["location"].rsplit("/", 1)[1])
    g = client.get(f"/api/games/{gid}").json()
    assert [s["bot"] for s in g["seats"] if s["kind"] == "bot"] == ["hard"]
    assert re.search(r"Bot \d<span class=\"bot-level\"> \(hard\)</span>", client.get(f"/games/{gid}").text)
    assert "(hard)" in client.get("/").text  # the lobby's list of my games
    client.cookies.set("lang", "de")
    # A strength the portal does not offer is refused with the form kept.
    bad = client.post("/new", data={"csrf": csrf_of(client), "game": "toypig", "players": "2",
                                    "seat1": "bot", "seat1_bot": "expert"}, follow_redirects=False)
    assert bad.status_code == 400 and 'name="seat1_bot"' in bad.text


# --------------------------------------------------------------------------- serve and its bot workers

def _children(pid: int) -> list[tuple[int, str]]:
    """The processes whose parent is ``pid``, with their command lines (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            out.append((int(entry.name), cmd))
    return out


def _bot_workers_under(pid: int) -> list[int]:
    """Every ``ludothek bots`` process in the tree under ``pid``."""
    found = []
    stack = [pid]
    while stack:
        for child, cmd in _children(stack.pop()):
            if " bots " in cmd and "ludothek.cli" in cmd:
                found.append(child)
            stack.append(child)
    return found


@pytest.fixture
def serve_proc(tmp_path: Path) -> Iterator[Any]:
    procs: list[subprocess.Popen[bytes]] = []

    def start(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
        full_env = {**os.environ, "LUDOTHEK_SECRET": "bots-test", "LUDOTHEK_RATE_LIMITS": "off",
                    "LUDOTHEK_BOT_DELAY": "0", **(env or {})}
        for attempt in range(3):
            port = free_port()
            log = tmp_path / f"serve-{port}.log"
            proc = subprocess.Popen([sys.executable, "-m", "ludothek.cli", "serve", "--port", str(port), *args],
                                    stdout=subprocess.DEVNULL, stderr=log.open("wb"), env=full_env)
            procs.append(proc)
            base = f"http://127.0.0.1:{port}"
            try:
                wait_until_serving(proc, base, log=log)
            except PortTaken:
                if attempt == 2:
                    raise
                continue
            return proc, base
        raise AssertionError("unreachable")

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _play_against_bots(base: str, bot: str = "medium", rounds: int = 3) -> int:
    """Register, create a Machi Koro game against a bot, and play my first legal action until the bot
    has had ``rounds`` turns (or the game ended); the game's id."""
    with httpx.Client(base_url=base, timeout=30) as http:
        token = http.post("/api/users", json={"name": f"p{random.randrange(10**6)}",
                                              "password": "password-x"}).json()["token"]
        h = {"Authorization": f"Bearer {token}"}
        r = http.post("/api/games", json={"game": "machikoro", "players": 2,
                                           "seats": [{"kind": "me"}, {"kind": "bot", "bot": bot}]}, headers=h)
        assert r.status_code == 201, r.text
        gid = int(r.json()["id"])
        bot_turns = 0
        waiting = False
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            g = http.get(f"/api/games/{gid}", headers=h).json()
            if g["status"] == "finished" or bot_turns >= rounds:
                return gid
            if g["my_turn"]:
                bot_turns += waiting
                waiting = False
                http.post(f"/api/games/{gid}/actions", json={"action": g["legal"][0]["action"], "seq": g["seq"]},
                          headers=h)
            else:
                waiting = True
                time.sleep(0.02)
    raise AssertionError("the bot never moved")


def test_serve_starts_its_bot_workers_and_stops_them(serve_proc: Any, tmp_path: Path) -> None:
    proc, base = serve_proc("--db", f"sqlite:///{tmp_path / 'serve.sqlite3'}", "--bot-workers", "2")
    workers = _wait_for("two bot workers", lambda: len(_bot_workers_under(proc.pid)) == 2 and
                        _bot_workers_under(proc.pid))
    _play_against_bots(base)  # the server thinks for no bot: its workers did
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    for pid in workers:
        _wait_for(f"bot worker {pid} to end", lambda pid=pid: not Path(f"/proc/{pid}").exists()
                  or "Z" in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0])


def test_a_bot_workers_move_reaches_the_live_socket_without_redis(tmp_path: Path) -> None:
    """One server on SQLite, bots in a separate ``ludothek bots`` process: the page hears every bot move."""
    db = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    app = create_app(make_settings(db, bots_in_process=False, db_watch_interval=0.05))
    bots = _bots_process(db, tmp_path / "bots.log")
    try:
        with TestClient(app) as client:
            h = api_user(client, "lena")
            # Machi Koro: a game the separate process knows (the test's toy game lives in this one only).
            gid = client.post("/api/games", json={"game": "machikoro", "players": 2,
                                                   "seats": [{"kind": "me"}, {"kind": "bot", "bot": "easy"}]},
                              headers=h).json()["id"]
            with client.websocket_connect(f"/games/{gid}/live", headers=h) as ws:
                hello = ws.receive_json()
                g = client.get(f"/api/games/{gid}", headers=h).json()
                while g["my_turn"]:
                    g = client.post(f"/api/games/{gid}/actions",
                                    json={"action": g["legal"][0]["action"], "seq": g["seq"]}, headers=h).json()
                    assert ws.receive_json()["seq"] == g["seq"]  # my own move, announced once
                seen = max(hello["seq"], g["seq"])
                while True:  # the bot's moves (and its chance), until it is my turn or over
                    update = ws.receive_json()
                    if update["type"] == "thinking":  # the bot's claim, when the watch looked meanwhile
                        assert update["seq"] == seen and update["seat"] not in (None, g["my_seat"])
                        continue
                    assert update["type"] == "update" and update["seq"] > seen
                    seen = update["seq"]
                    if update["status"] != "running" or (update["to_move"] is not None and \
                            client.get(f"/api/games/{gid}", headers=h).json()["my_turn"]):
                        break
            assert client.get(f"/api/games/{gid}", headers=h).json()["seq"] == seen
    finally:
        bots.send_signal(signal.SIGTERM)
        bots.wait(timeout=30)


@pytest.mark.skipif(sys.platform != "linux", reason="threads have priorities of their own on Linux only")
def test_bots_think_at_a_lower_priority_than_the_worker_stores() -> None:
    """The thinking thread is ``nice`` lower; the thread that claims and stores keeps its priority."""
    from ludothek.bots.fallback import SafeBot

    seen: list[int] = []

    class Watcher:
        name = "watcher"
        budget = 1.0

        def choose(self, state: State, rng: random.Random) -> str:
            seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
            return state.legal_actions()[0]

    from ludothek import engine as eng

    state = eng.load("machikoro").new_state(2, {})
    while state.current_player() < 0:
        from ludothek.engine import sample_chance

        state.apply_action(sample_chance(state, random.Random(1)))
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    SafeBot([Watcher()], nice=5).choose(state, random.Random(1))
    assert seen == [min(19, mine + 5)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine


def test_the_bot_queue_gauge_counts_the_turns_the_workers_would_claim(tmp_path: Path) -> None:
    """``ludothek_bot_queue`` counts pending bot turns by the workers' own definition: a claimed one leaves it."""
    from ludothek.portal.observe import scrape_lines

    app = create_app(make_settings(f"sqlite:///{tmp_path / 'gauge.sqlite3'}", bots_in_process=False))
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        site: Site = app.state.portal.site

        def gauge() -> float:
            body = client.get("/metrics").content
            return next(v for name, _, v in scrape_lines(body) if name == "ludothek_bot_queue")

        assert gauge() == 0
        games = bot_games(site, 3)
        assert gauge() == 3 == site.bots.count_pending_bot_turns()
        turn = site.bots.claim_bot_turn("elsewhere", datetime.now(UTC))
        assert turn is not None and gauge() == 2
        play_bot_turn(site, turn)
        assert gauge() == 2 + int(site.games.game(turn.game_id).is_bot_seat(site.games.game(turn.game_id).to_move))
        assert set(games) >= {turn.game_id}


def test_a_worker_that_keeps_ending_is_started_again_ever_later(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """A worker that cannot run (say, its database is down) is not started again every second forever."""
    from ludothek.portal import botprocs

    assert [botprocs.restart_delay(n) for n in range(9)] == [0, 1, 2, 4, 8, 16, 32, 60, 60]
    procs = botprocs.BotProcesses(make_settings(f"sqlite:///{tmp_path / 'x.sqlite3'}"), 1)
    procs.command = lambda: [sys.executable, "-c", "raise SystemExit(3)"]  # type: ignore[method-assign]
    caplog.set_level(logging.WARNING, logger="ludothek.bots")
    procs.start()
    try:
        _wait_for("two quick ends", lambda: sum("starting it again" in r.message for r in caplog.records) >= 2)
    finally:
        procs.stop()
    waits = [r.message.rsplit(" in ", 1)[1] for r in caplog.records if "starting it again" in r.message]
    assert waits[:2] == ["1 s", "2 s"] and "exit 3" in caplog.records[0].message


def test_a_bot_move_that_meets_a_change_of_seats_is_thought_again_at_once(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """While the bot thinks, another process changes the game's seats at the same move number (here an
    abandonment vote withdrawn): the move is refused as stale, the worker gives its claim back, and the
    turn is played on the next look, not after the lease (it was logged as a failed bot turn before)."""
    url = f"sqlite:///{tmp_path / 'seats.sqlite3'}"
    site, other = new_site(url), new_site(url)
    (gid,) = bot_games(site, 1)
    seq = site.games.game(gid).seq
    creator = other.accounts.user(next(s.user_id for s in site.games.game(gid).seats if s.kind == "player"))
    assert creator is not None
    real_submit = site.play.submit
    changed: list[bool] = []

    def submit(*args: Any, **kwargs: Any) -> Any:
        if not changed:
            other.clocks.vote_abandon(gid, creator, agree=False)  # seats_rev + 1, as another process would
            changed.append(True)
        return real_submit(*args, **kwargs)

    monkeypatch.setattr(site.play, "submit", submit)
    worker = BotWorker(site, delay=0.0, owner="w")
    assert worker.run_once(T0) == 1 and worker.played == 0 and site.games.game(gid).seq == seq
    assert _claims_of(site)[gid] == (None, None)  # given back
    assert worker.run_once(T0 + timedelta(seconds=1)) == 1 and worker.played == 1
    assert site.games.game(gid).seq > seq
    site.engine.dispose()
    other.engine.dispose()


def _person_to_move(site: Site, gid: int) -> bool:
    info = site.games.game(gid)
    return info.status != "running" or not info.is_bot_seat(info.to_move)


def test_a_worker_plays_a_persons_bots_through_before_another_tables(any_db: str) -> None:
    """Issue 29: two tables, each a person with two bots before them.  The worker that takes a table's
    bot plays that table's bots on to its person before it takes the other table's turn, so the person
    never waits while it thinks for the other table; without following it alternated between tables."""
    site = new_site(any_db)
    first, second = bot_games(site, 2, players=3, all_bots_first=True)
    worker = BotWorker(site, delay=0.0, owner="w")
    assert worker.run_once() == 1
    assert worker._last is not None
    followed = worker._last.game_id
    # A bot may also lose its turn to the dice (toypig's 1), so the person can be next already.
    bots_left = not _person_to_move(site, followed)
    played = worker.follow(followed)
    other = second if followed == first else first
    other_seq = site.games.game(other).seq
    assert _person_to_move(site, followed) and played >= bots_left  # on to the person (or the game's end)
    assert site.games.game(other).seq == other_seq  # the other table waited for a free worker, not in between

    # The old order, for comparison: back to the queue after each decision, the next turn is another table's.
    bot_games(site, 2, players=3)
    old = BotWorker(site, delay=0.0, owner="old", follow_tables=False)
    claimed = []
    for _ in range(2):
        assert old.run_once() == 1 and old._last is not None
        claimed.append(old._last.game_id)
    assert claimed[0] != claimed[1]
    site.engine.dispose()


def test_following_waits_for_the_pause_and_leaves_tables_without_people(tmp_path: Path) -> None:
    site = new_site(f"sqlite:///{tmp_path / 'follow.sqlite3'}")
    (gid,) = bot_games(site, 1, players=3)
    info = site.games.game(gid)
    since = info.turn_since
    assert since is not None
    # Not due before the pause, due after it.
    assert site.bots.claim_next_at_table("w", gid, since + timedelta(seconds=0.1), 0.4) is None
    assert site.bots.next_at_table_due(gid, since + timedelta(seconds=0.1), 0.4) == pytest.approx(0.3)
    turn = site.bots.claim_next_at_table("w", gid, since + timedelta(seconds=0.4), 0.4)
    assert turn is not None and turn.seat == info.to_move and site.games.game(gid).thinking_seat(since) == turn.seat
    site.bots.release_bot_turn("w", turn)
    # Everybody left (resigned): a bots-only table is never followed, it cannot hold a worker for a game.
    person = next(s for s in info.seats if s.kind == "player")
    assert person.user_id is not None
    user = site.accounts.user(person.user_id)
    assert user is not None
    site.clocks.resign(gid, user)
    assert not any(s.kind == "player" for s in site.games.game(gid).seats)
    assert site.bots.next_at_table_due(gid, T0, 0.0) is None
    assert site.bots.claim_next_at_table("w", gid, T0, 0.0) is None
    site.engine.dispose()
