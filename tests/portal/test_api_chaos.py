"""The JSON API under every kind of request at once, from the same few people, on two server processes.

`test_store_chaos.py` does this to the store; here the requests go through the whole stack of two
real ``ludothek serve`` processes (routing, authentication, the caches of each process, the live
hub, the bot workers and the clock jobs they run) on one database.  Three people create, join,
leave and cancel games of all four kinds (some with bots), play, undo, resign, vote to abandon, write in
the chat, report, befriend and block each other, declare vacations and save settings, through the
API and through the pages' forms (logged in with a session, as a browser is), while they and a visitor
read the games, boards, logs, replays, records, profiles and the leaderboard.  Every answer
may refuse (4xx with a reason); none may be a server error.
"""

from __future__ import annotations

import os
import random
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ludothek.engine.registry import GAME_MODULES
from ludothek.storage import make_engine
from ludothek.storage.lobby_check import lobby_problems
from tests.portal.server import serve_processes
from tests.portal.together import run_threads

#: Requests per thread; six threads (each person on each process).  ``CHAOS_STEPS=300`` for a longer hunt.
STEPS = int(os.environ.get("CHAOS_STEPS") or 60)
NAMES = ("anna", "bruno", "carla")
#: Machi Koro most often (short turns, many moves); every game now and then.
GAMES = ("machikoro", "machikoro", *GAME_MODULES)


@pytest.fixture
def two_servers(any_db: str, tmp_path: Path) -> Iterator[tuple[list[str], str]]:
    with serve_processes(any_db, 2, tmp_path, {"LUDOTHEK_BOT_DELAY": "0", "LUDOTHEK_RATE_LIMITS": "off"}) as bases:
        yield bases, any_db


class Shared:
    """What the threads share: the games and chat messages so far, and every server error seen."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.games: list[int] = []
        self.messages: list[int] = []
        self.errors: list[str] = []

    def some(self, rng: random.Random, items: list[int]) -> int | None:
        with self.lock:
            return rng.choice(items) if items else None


def _person(base: str, token: str, me: str, shared: Shared, rng: random.Random) -> list[Callable[[], None]]:
    """One closure per kind of request ``me`` sends to the server at ``base``."""
    client = httpx.Client(base_url=base + "/api/v1", headers={"Authorization": f"Bearer {token}"}, timeout=60)
    visitor = httpx.Client(base_url=base, timeout=60)
    others = [n for n in NAMES if n != me]

    browser = httpx.Client(base_url=base, timeout=60)  # the same person in the pages, with a session cookie
    csrf: list[str] = []

    def send(method: str, path: str, body: Any = None, *, anonymous: bool = False) -> httpx.Response:
        r = (visitor if anonymous else client).request(method, path, json=body)
        return checked(r, method, path, body)

    def checked(r: httpx.Response, method: str, path: str, body: Any) -> httpx.Response:
        if r.status_code >= 500:
            with shared.lock:
                shared.errors.append(f"{me}: {method} {path} {body!r} -> {r.status_code} {r.text[:200]}")
        return r

    def logged_in() -> str:
        """The session's CSRF token; the browser logs in through the form the first time."""
        if not csrf:
            found = re.search(r'name="csrf-token" content="([^"]+)"', browser.get("/login").text)
            assert found
            browser.post("/login", data={"csrf": found[1], "name": me, "password": "password-" + me})
            again = re.search(r'name="csrf-token" content="([^"]+)"', browser.get("/").text)
            assert again
            csrf.append(again[1])
        return csrf[0]

    def form(path: str, data: dict[str, str] | None = None) -> httpx.Response:
        """A form the pages send (htmx's header, the session's CSRF token)."""
        body = {"csrf": logged_in(), **(data or {})}
        return checked(browser.post(path, data=body, headers={"HX-Request": "true"}), "POST", path, body)

    def page_move() -> None:
        gid = game()
        r = send("GET", f"/games/{gid}?log=false")
        if r.status_code == 200 and r.json().get("my_turn") and r.json().get("legal"):
            view = r.json()
            form(f"/games/{gid}/act", {"action": rng.choice(view["legal"])["action"], "seq": str(view["seq"])})

    def pages() -> None:
        gid = game()
        logged_in()
        for path in (f"/games/{gid}", "/", "/next", "/new", f"/users/{rng.choice(NAMES)}"):
            checked(browser.get(path), "GET", path, None)
        checked(browser.get(f"/games/{gid}/board", headers={"HX-Request": "true"}), "GET", "board", gid)

    def game() -> int:
        gid = shared.some(rng, shared.games)
        if gid is None:
            create()
            gid = shared.some(rng, shared.games)
        return gid or 1

    def create() -> None:
        seats: list[dict[str, Any]] = [{"kind": "me"}, rng.choice([{"kind": "open"}, {"kind": "invite", "user": rng.choice(others)}])]
        if rng.random() < 0.4:
            seats.append({"kind": "bot", "bot": rng.choice(["easy", "medium"])})
        r = send("POST", "/games", {"game": rng.choice(GAMES), "players": len(seats), "seats": seats,
                                    "time_control": rng.choice(["none", "move:1"])})
        if r.status_code == 201:
            with shared.lock:
                shared.games.append(r.json()["id"])

    def move() -> None:
        gid = game()
        r = send("GET", f"/games/{gid}?log=false")
        if r.status_code == 200 and r.json().get("my_turn") and r.json().get("legal"):
            view = r.json()
            send("POST", f"/games/{gid}/actions", {"action": rng.choice(view["legal"])["action"], "seq": view["seq"]})

    def undo() -> None:
        gid = game()
        r = send("GET", f"/games/{gid}?log=false")
        if r.status_code == 200 and "seq" in r.json():
            send("POST", f"/games/{gid}/undo", {"seq": r.json()["seq"]})

    def chat() -> None:
        r = send("POST", f"/games/{game()}/chat", {"text": f"gg {rng.randrange(100)}"})
        if r.status_code == 201:
            with shared.lock:
                shared.messages.append(r.json()["id"])

    def report() -> None:
        mid = shared.some(rng, shared.messages)
        if mid is not None:
            send("POST", f"/chat/{mid}/report", {"reason": "spam"})

    def reads() -> None:
        gid = game()
        for path in (f"/games/{gid}", f"/games/{gid}/log", f"/games/{gid}/record", f"/games/{gid}/chat",
                     f"/games/{gid}/replay/{rng.randrange(5)}", "/games", "/next", "/me", "/friends", "/blocks",
                     f"/users/{rng.choice(NAMES)}", f"/games/{rng.choice(GAMES)}/leaderboard", "/vacation", "/me/notifications"):
            send("GET", path)
        for path in (f"/games/{gid}", f"/games/{gid}/replay", f"/users/{me}", f"/games/{rng.choice(GAMES)}/leaderboard"):
            send("GET", path, anonymous=True)  # the pages, as a visitor sees them

    return [
        create, create, move, move, move, move, move, move, undo, chat, report, reads, reads,
        page_move, page_move, pages,
        lambda: form(f"/games/{game()}/{rng.choice(['join', 'leave', 'cancel', 'resign'])}"),
        lambda: form(f"/games/{game()}/resign", {"confirm": "yes"}),  # the question's answer (issue 30)
        lambda: form(f"/games/{game()}/abandon", {"agree": rng.choice(["yes", "no"])}),
        lambda: send("POST", f"/games/{game()}/join"), lambda: send("POST", f"/games/{game()}/join"),
        lambda: send("POST", f"/games/{game()}/leave"), lambda: send("POST", f"/games/{game()}/cancel"),
        lambda: send("POST", f"/games/{game()}/resign"),
        lambda: send("POST", f"/games/{game()}/abandon", {"agree": rng.random() < 0.7}),
        lambda: send(rng.choice(["PUT", "DELETE"]), f"/friends/{rng.choice(others)}"),
        lambda: send(rng.choice(["PUT", "DELETE", "DELETE"]), f"/blocks/{rng.choice(others)}"),
        lambda: send("POST", "/vacation", {"days": rng.choice([0.5, 2.0])}),
        lambda: send("PUT", "/me/notifications", {"turns": rng.choice(["each", "digest", "off"])}),
    ]


def test_every_kind_of_request_at_once_on_two_processes_gets_no_server_error(
        two_servers: tuple[list[str], str]) -> None:
    bases, db_url = two_servers
    tokens = {}
    for name in NAMES:
        r = httpx.post(bases[0] + "/api/v1/users", json={"name": name, "password": "password-" + name}, timeout=60)
        assert r.status_code == 201, r.text
        tokens[name] = r.json()["token"]
    shared = Shared()
    barrier = threading.Barrier(len(NAMES) * len(bases))

    def run(base: str, name: str, seed: int) -> None:
        rng = random.Random(seed)
        ops = _person(base, tokens[name], name, shared, rng)
        barrier.wait()
        for _ in range(STEPS):
            try:
                rng.choice(ops)()
            except httpx.HTTPError as exc:  # a dropped connection counts as a failure too
                with shared.lock:
                    shared.errors.append(f"{name}: {exc!r}")

    run_threads(run, ((base, name, 10 * i + j) for i, name in enumerate(NAMES) for j, base in enumerate(bases)))
    assert shared.errors == []
    assert len(shared.games) > 3
    engine = make_engine(db_url)
    try:
        assert lobby_problems(engine) == []
    finally:
        engine.dispose()
