"""The bot event stream against a live server, and docs/research.md's bot playing a whole game."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from ludothek.portal.live import botstream
from tests.portal.conftest import make_settings
from tests.portal.server import running_server

DOC = Path(__file__).resolve().parents[2] / "docs" / "research.md"


class Stream:
    """One open ``/bot/stream``, read by a thread into a queue."""

    def __init__(self, base: str, auth: dict[str, str]) -> None:
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.client = httpx.Client(base_url=base, headers=auth, timeout=httpx.Timeout(10, read=None))
        self.response = self.client.send(self.client.build_request("GET", "/api/v1/bot/stream"), stream=True)
        self.status = self.response.status_code
        self.closing = threading.Event()
        self.reader: threading.Thread | None = None
        if self.status == 200:
            self.reader = threading.Thread(target=self._read, daemon=True)
            self.reader.start()

    def _read(self) -> None:
        # The reading thread closes the connection itself: a socket closed by another thread while this
        # one waits in recv() sends nothing until the read returns (the keep-alive lines wake it).
        try:
            for line in self.response.iter_lines():
                if self.closing.is_set():
                    break
                self.events.put(json.loads(line) if line.strip() else {"type": "keep-alive"})
        except (httpx.HTTPError, RuntimeError):
            pass
        finally:
            self.response.close()

    def expect(self, kind: str, timeout: float = 20.0, **fields: Any) -> dict[str, Any]:
        """The next event of ``kind`` with these fields (others on the way are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind} {fields} within {timeout} s"
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if event["type"] == kind and all(event.get(k) == v for k, v in fields.items()):
                return event

    def close(self) -> None:
        self.closing.set()
        if self.reader is not None:
            self.reader.join(10)
        else:
            self.response.close()
        self.client.close()


@contextmanager
def streams() -> Iterator[list[Stream]]:
    opened: list[Stream] = []
    try:
        yield opened
    finally:
        for s in opened:
            s.close()


def register(base: str, name: str) -> dict[str, str]:
    r = httpx.post(f"{base}/api/v1/users", json={"name": name, "password": "password-" + name})
    r.raise_for_status()
    return {"Authorization": f"Bearer {r.json()['token']}"}


def new_bot(base: str, owner: dict[str, str], name: str) -> dict[str, str]:
    r = httpx.post(f"{base}/api/v1/bots", json={"name": name}, headers=owner)
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def invite(base: str, creator: dict[str, str], bot: str, game: str = "toypig") -> int:
    r = httpx.post(f"{base}/api/v1/games", json={"game": game, "players": 2,
                                                 "seats": [{"kind": "me"}, {"kind": "invite", "user": bot}]},
                   headers=creator)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def play_until_not_my_turn(base: str, auth: dict[str, str], gid: int) -> None:
    """The person plays "hold" (or what is legal) until the turn passes."""
    for _ in range(50):
        game = httpx.get(f"{base}/api/v1/games/{gid}", headers=auth).json()
        if not game["my_turn"] or game["status"] != "running":
            return
        legal = [a["action"] for a in game["legal"]]
        action = "hold" if "hold" in legal else legal[0]
        r = httpx.post(f"{base}/api/v1/games/{gid}/actions", json={"action": action, "seq": game["seq"]},
                       headers=auth)
        assert r.status_code == 200, r.text
    raise AssertionError("the turn never passed")


@pytest.fixture
def quick_keepalive(monkeypatch: pytest.MonkeyPatch) -> None:
    """A keep-alive line every 0.5 s (the server runs in this process), so closed streams end quickly."""
    monkeypatch.setattr(botstream, "KEEPALIVE_SECONDS", 0.5)


@pytest.mark.timeout(180)
def test_the_stream_tells_challenges_turns_and_resumes_after_a_reconnect(any_db: str, quick_keepalive: None) -> None:
    with running_server(make_settings(any_db)) as base, streams() as opened:
        ann = register(base, "ann")
        robo = new_bot(base, ann, "robo")
        # A person has no bot stream.
        refused = httpx.get(f"{base}/api/v1/bot/stream", headers=ann)
        assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
        first = Stream(base, robo)
        opened.append(first)
        assert first.status == 200
        assert first.expect("hello")["bot"] == "robo"
        gid = invite(base, ann, "robo")
        event = first.expect("challenge", id=gid)
        assert event["game"] == "toypig" and event["by"] == "ann" and event["players"] == 2
        # A challenge called off, and one declined.
        off = invite(base, ann, "robo")
        first.expect("challenge", id=off)
        httpx.post(f"{base}/api/v1/games/{off}/cancel", headers=ann)
        assert first.expect("challenge_canceled", id=off)["reason"] == "cancelled"
        no = invite(base, ann, "robo")
        first.expect("challenge", id=no)
        assert httpx.post(f"{base}/api/v1/bot/challenge/{no}/decline", headers=robo).status_code == 200
        assert first.expect("challenge_canceled", id=no)["reason"] == "declined"
        # Accepted: the game starts; after ann's move it is the bot's turn.
        assert httpx.post(f"{base}/api/v1/bot/challenge/{gid}/accept", headers=robo).status_code == 200
        start = first.expect("game_start", game=gid)
        play_until_not_my_turn(base, ann, gid)
        seq = httpx.get(f"{base}/api/v1/games/{gid}", headers=robo).json()["seq"]
        turn = first.expect("your_turn", game=gid)
        assert turn["seq"] == seq and start["kind"] == "toypig"
        # Two streams per token; a third is refused until one closes.
        second = Stream(base, robo)
        opened.append(second)
        assert second.status == 200
        third = Stream(base, robo)
        opened.append(third)
        assert third.status == 429 and third.response.headers["retry-after"]
        # A reconnect resends the state: the running game and the turn that waits.
        first.close()
        deadline = time.monotonic() + 10
        while True:
            again = Stream(base, robo)
            opened.append(again)
            if again.status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert again.status == 200
        again.expect("game_start", game=gid)
        assert again.expect("your_turn", game=gid)["seq"] == seq
        # The bot moves; the turn passes back after ann's move, and a new your_turn comes.
        game = httpx.get(f"{base}/api/v1/games/{gid}", headers=robo).json()
        assert "hold" in [a["action"] for a in game["legal"]]
        r = httpx.post(f"{base}/api/v1/games/{gid}/actions", json={"action": "hold", "seq": seq}, headers=robo)
        assert r.status_code == 200, r.text
        play_until_not_my_turn(base, ann, gid)
        now = httpx.get(f"{base}/api/v1/games/{gid}", headers=robo).json()
        if now["status"] == "running":
            assert now["my_turn"]
            assert again.expect("your_turn", game=gid, seq=now["seq"])["seq"] > seq
        else:  # ann's hold won the (short) game: the bot hears of the end instead
            assert again.expect("game_end", game=gid)["status"] == "finished"


def bot_source() -> str:
    blocks = re.findall(r"```python\n(# ludobot\.py.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1, "docs/research.md must show exactly one ludobot.py"
    return blocks[0]


def test_the_example_bot_is_about_forty_lines() -> None:
    code = [line for line in bot_source().splitlines() if line.strip() and not line.strip().startswith("#")]
    assert 30 <= len(code) <= 50, len(code)


@pytest.mark.timeout(300)
def test_the_documented_bot_finishes_a_game_on_a_live_server(tmp_path: Path, quick_keepalive: None) -> None:
    script = tmp_path / "ludobot.py"
    script.write_text(bot_source(), encoding="utf-8")
    with running_server(make_settings(f"sqlite:///{tmp_path / 'doc.sqlite3'}")) as base:
        ann = register(base, "ann")
        robo = new_bot(base, ann, "robo")
        token = robo["Authorization"].split()[1]
        run = subprocess.Popen([sys.executable, str(script), base, token, "1"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        try:
            gid = invite(base, ann, "robo")  # the bot accepts it from its stream
            deadline = time.monotonic() + 60
            while (status := httpx.get(f"{base}/api/v1/games/{gid}", headers=ann).json()["status"]) == "open":
                if time.monotonic() > deadline or run.poll() is not None:
                    run.kill()
                    raise AssertionError("the bot never accepted: " + run.communicate()[1][-3000:])
                time.sleep(0.2)
            # Ann holds at every turn (so the bot always gets a turn) until the game is over.
            while status == "running":
                play_until_not_my_turn(base, ann, gid)
                time.sleep(0.05)
                status = httpx.get(f"{base}/api/v1/games/{gid}", headers=ann).json()["status"]
                assert time.monotonic() < deadline + 120, "the game did not end"
            out, err = run.communicate(timeout=240)
        finally:
            if run.poll() is None:
                run.kill()
                run.communicate()
        assert run.returncode == 0, err[-3000:]
        assert out.splitlines() == [f"game {gid}: finished, place {out.split('place ')[-1].strip()}"], out
        record = httpx.get(f"{base}/api/v1/games/{gid}/record", headers=robo).json()
        game = httpx.get(f"{base}/api/v1/games/{gid}", headers=robo).json()
        assert game["status"] == "finished"
        assert any(a["seat"] == game["my_seat"] for a in record["actions"])


@pytest.mark.timeout(180)
def test_the_stream_hears_moves_made_on_another_server_through_redis(tmp_path: Path, quick_keepalive: None) -> None:
    import uuid

    from ludothek.devtools.services import REDIS, port_open
    from tests.conftest import needs

    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    secret = f"test-{uuid.uuid4().hex}"  # this test's own channel on the shared Redis
    settings = [make_settings(db, redis_url=f"redis://{REDIS[0]}:{REDIS[1]}/0") for _ in range(2)]
    for s in settings:
        s.secret_key = secret
    with running_server(settings[0]) as one, running_server(settings[1]) as two, streams() as opened:
        ann = register(one, "ann")
        httpx.put(f"{one}/api/v1/me/play", json={"handover_seconds": 0}, headers=ann)
        robo = new_bot(one, ann, "robo")
        stream = Stream(two, robo)  # the bot listens on server two; everything else happens on server one
        opened.append(stream)
        stream.expect("hello")
        gid = invite(one, ann, "robo")
        stream.expect("challenge", id=gid)
        assert httpx.post(f"{one}/api/v1/bot/challenge/{gid}/accept", headers=robo).status_code == 200
        stream.expect("game_start", game=gid)
        play_until_not_my_turn(one, ann, gid)
        seq = httpx.get(f"{one}/api/v1/games/{gid}", headers=robo).json()["seq"]
        assert stream.expect("your_turn", game=gid)["seq"] == seq
        assert httpx.post(f"{one}/api/v1/games/{gid}/resign", headers=ann).status_code == 200
        # A bot of the site plays on for ann; the outside bot is told of its turns, then of the end.
        for _ in range(200):
            game = httpx.get(f"{one}/api/v1/games/{gid}", headers=robo).json()
            if game["status"] != "running":
                break
            if game["my_turn"]:
                action = "hold" if "hold" in [a["action"] for a in game["legal"]] else game["legal"][0]["action"]
                httpx.post(f"{one}/api/v1/games/{gid}/actions", json={"action": action, "seq": game["seq"]},
                           headers=robo)
            else:
                time.sleep(0.05)
        end = stream.expect("game_end", game=gid)
        assert end["status"] == "finished" and end["place"] in (1, 2)
