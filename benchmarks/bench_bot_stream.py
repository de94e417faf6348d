"""The bot event stream (issue 33): how soon a bot hears ``your_turn`` after a move gives it the turn.

A portal on a fresh SQLite file (one server, in this process, as the tests start it), a person and a
bot account playing Machi Koro through the JSON API with random legal actions, and the bot's
``/api/v1/bot/stream`` read by a thread.  For every move that makes it the bot's turn (the person's,
or the bot's own when its turn goes on), the time from sending the move to the stream's
``your_turn`` line for that move number.  Nothing polls: the line is written when the move path's
live message wakes the stream.

``python -m benchmarks.bench_bot_stream [moves]`` (default 200).
"""

from __future__ import annotations

import json
import queue
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from argon2 import PasswordHasher

from ludothek.devtools.threaded_server import serving
from ludothek.portal import Settings, create_app


def _settings(path: Path) -> Settings:
    return Settings(db_url=f"sqlite:///{path}", bot_delay=0.0, bots_in_process=True, secret_key="bench",
                    hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


def measure(moves: int = 200, seed: int = 7) -> list[float]:
    """Seconds from sending each move that gives the bot its turn to the stream's ``your_turn``."""
    rng = random.Random(seed)
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as folder, serving(create_app(_settings(Path(folder) / "b.sqlite3"))) as base:
        api = httpx.Client(base_url=base + "/api/v1", timeout=30)
        ann = {"Authorization": "Bearer " + api.post("/users", json={"name": "ann", "password": "password-ann"}
                                                     ).json()["token"]}
        api.put("/me/play", json={"handover_seconds": 0}, headers=ann)
        bot = {"Authorization": "Bearer " + api.post("/bots", json={"name": "robo"}, headers=ann).json()["token"]}
        heard: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        stop = threading.Event()

        def read() -> None:
            with httpx.Client(base_url=base + "/api/v1", headers=bot, timeout=httpx.Timeout(10, read=None)) as c, \
                    c.stream("GET", "/bot/stream") as stream:
                for line in stream.iter_lines():
                    if stop.is_set():
                        return
                    if line.strip():
                        heard.put((time.perf_counter(), json.loads(line)))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        made = 0
        while made < moves:
            gid = api.post("/games", json={"game": "machikoro", "players": 2, "seats": [
                {"kind": "me"}, {"kind": "invite", "user": "robo"}]}, headers=ann).json()["id"]
            api.post(f"/bot/challenge/{gid}/accept", headers=bot)
            while made < moves:
                states = {who: api.get(f"/games/{gid}", params={"log": "false"}, headers=h).json()
                          for who, h in (("ann", ann), ("bot", bot))}
                if states["ann"]["status"] != "running":
                    break
                who = "ann" if states["ann"]["my_turn"] else "bot" if states["bot"]["my_turn"] else None
                if who is None:
                    time.sleep(0.01)
                    continue
                state = states[who]
                sent = time.perf_counter()
                api.post(f"/games/{gid}/actions", headers=ann if who == "ann" else bot,
                                  json={"action": rng.choice(state["legal"])["action"], "seq": state["seq"]})
                made += 1
                after = api.get(f"/games/{gid}", params={"log": "false"}, headers=bot).json()
                if after["status"] == "running" and after["my_turn"]:
                    while True:
                        at, event = heard.get(timeout=10)
                        if event["type"] == "your_turn" and event["game"] == gid and event["seq"] == after["seq"]:
                            latencies.append(at - sent)
                            break
        stop.set()
        api.close()
    return latencies


def run() -> list[tuple[str, float, str, str]]:
    moves = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 200
    lat = sorted(measure(moves))
    p95 = lat[min(len(lat) - 1, int(len(lat) * 0.95))]
    note = f"SQLite, 1 server in-process, {len(lat)} turns of {moves} moves"
    return [("bot stream: move sent → your_turn heard, p50", statistics.median(lat) * 1000, "ms", note),
            ("bot stream: move sent → your_turn heard, p95", p95 * 1000, "ms", note)]


if __name__ == "__main__":
    for row in run():
        print(f"{row[0]:<50} {row[1]:>8.1f} {row[2]}  {row[3]}")
