"""The server's CPU per move request, in process: no sockets, no other process, no client's CPU mixed in.

Two guests play Machi Koro through the JSON API, each request handed straight to the application as an
ASGI call (the whole stack: middlewares, routing or the hot path, authentication, the rate limiter, the
store on a fresh SQLite file, the answer's encoding).  What is timed is the CPU time of this process
(all its threads) spent in the ``POST /api/v1/games/{id}/actions`` calls, and in the other seat's
``GET /api/v1/games/{id}?log=false`` that follows a move; HTTP parsing and the kernel's part of the
sockets are not in it.  Steadier than the portal benchmark on a shared machine, since it counts CPU
time of one process doing nothing else.

``python -m benchmarks.bench_move_cpu [MOVES] [--profile FILE] [--pg] [--redis]`` (``FILE``: cProfile's
statistics of the timed calls; ``--pg``: a database of its own on the machine's PostgreSQL instead of an
SQLite file; ``--redis``: the machine's Redis for live updates and rate limits).  On PostgreSQL the time
counted includes the threads that wait for the database; what PostgreSQL's own processes spent is
printed beside it (read from ``/proc``: it counts whatever else used the database meanwhile).
"""

from __future__ import annotations

import asyncio
import cProfile
import json
import random
import sys
import tempfile
import time
from typing import Any

from benchmarks.machine_cpu import database_cpu

Row = tuple[str, float, str, str]

RULES = {"move_user": "1000000/minute", "move_addr": "1000000/minute", "game_user": "1000000/hour",
         "game_addr": "1000000/hour", "guest": "100000/hour"}


async def _call(app: Any, method: str, path: str, body: Any = None, token: str | None = None,
                query: bytes = b"") -> tuple[int, Any]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"bench"), (b"accept", b"*/*")]
    raw = b""
    if body is not None:
        raw = json.dumps(body).encode()
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query,
             "root_path": "", "headers": headers, "client": ("127.0.0.1", 5555), "server": ("127.0.0.1", 8000),
             "state": {}}
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await asyncio.Event().wait()  # the client stays connected
        raise AssertionError

    out: dict[str, Any] = {"status": 0, "body": b""}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    await app(scope, receive, send)
    return out["status"], (json.loads(out["body"]) if out["body"] else None)


async def _play(moves: int, profile: cProfile.Profile | None, db_url: str | None = None,
                redis_url: str | None = None) -> tuple[float, float, int, float]:
    from ludothek.portal import Settings, create_app

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(db_url=db_url or f"sqlite:///{tmp}/cpu.sqlite3", redis_url=redis_url, bot_delay=0.0,
                            handover_seconds=0,
                            limit_rules=RULES, max_open_games=100000, jobs_interval=0, mail_interval=0)
        app = create_app(settings)
        rng = random.Random(1)
        post_cpu = get_cpu = 0.0
        gets = 0
        async with app.router.lifespan_context(app):
            database = database_cpu()
            _, a = await _call(app, "POST", "/api/v1/guests")
            _, b = await _call(app, "POST", "/api/v1/guests")
            tokens = {a["user"]["id"]: a["token"], b["user"]["id"]: b["token"]}
            done = 0
            while done < moves:
                _, game = await _call(app, "POST", "/api/v1/games", {
                    "game": "machikoro", "players": 2,
                    "seats": [{"kind": "me"}, {"kind": "invite", "user": b["user"]["name"]}]}, a["token"])
                gid = game["id"]
                await _call(app, "POST", f"/api/v1/games/{gid}/join", None, b["token"])
                state = {}
                for uid, token in tokens.items():
                    state[uid] = (await _call(app, "GET", f"/api/v1/games/{gid}", None, token, b"log=false"))[1]
                while done < moves:
                    mover = next((u for u, s in state.items() if s["my_turn"]), None)
                    if mover is None or state[mover]["status"] != "running":
                        break
                    seen = state[mover]
                    start = time.process_time()
                    if profile:
                        profile.enable()
                    status, answer = await _call(app, "POST", f"/api/v1/games/{gid}/actions",
                                                 {"action": rng.choice(seen["legal"])["action"], "seq": seen["seq"]},
                                                 tokens[mover])
                    if profile:
                        profile.disable()
                    post_cpu += time.process_time() - start
                    if status != 200:
                        raise RuntimeError(f"move refused: {status} {answer}")
                    done += 1
                    state[mover] = answer
                    if answer["status"] != "running":
                        break
                    other = next(u for u in tokens if u != mover)
                    if answer["my_turn"]:
                        state[other]["my_turn"] = False
                        continue
                    start = time.process_time()
                    state[other] = (await _call(app, "GET", f"/api/v1/games/{gid}", None, tokens[other],
                                                b"log=false"))[1]
                    get_cpu += time.process_time() - start
                    gets += 1
            database = database_cpu() - database
        return post_cpu / moves, get_cpu / max(1, gets), gets, database / moves


def measure(moves: int = 3000, profile: cProfile.Profile | None = None, db_url: str | None = None,
            redis_url: str | None = None) -> tuple[float, float, int, float]:
    """(CPU seconds per move POST, per GET of the other seat, number of GETs, PostgreSQL's CPU seconds
    per move over the whole run, game creation included); SQLite unless ``db_url``."""
    return asyncio.run(_play(moves, profile, db_url, redis_url))


def run() -> list[Row]:
    post, get, gets, _ = measure()
    return [("portal in process: CPU per move POST", post * 1e6, "us", "SQLite, 3,000 moves, no sockets"),
            ("portal in process: CPU per game GET", get * 1e6, "us", f"the other seat's read, {gets} of them")]


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    prof = cProfile.Profile() if "--profile" in sys.argv else None
    url = None
    if "--pg" in sys.argv:
        from ludothek.devtools.postgres import postgres_url
        url = postgres_url()
        if url is None:
            sys.exit("PostgreSQL is not reachable")
    redis = "redis://127.0.0.1:6379/0" if "--redis" in sys.argv else None
    post, get, gets, database = measure(int(args[0]) if args else 3000, prof, url, redis)
    print(f"CPU per move POST {post * 1e6:.0f} us, per game GET {get * 1e6:.0f} us ({gets} GETs)"
          + (f"; PostgreSQL's processes {database * 1e6:.0f} us per move (game creation included)" if url else ""))
    if prof is not None:
        prof.dump_stats(args[1] if len(args) > 1 else "move_cpu.prof")
