"""Schemathesis against a live portal: the API does what its OpenAPI schema says (issue 14, part 1).

`fuzz` starts a portal on a fresh SQLite file (or a database given) in a thread (uvicorn on a free loopback port),
registers a user with an API token and starts a game between that user and a second one, then
runs ``schemathesis run`` with every check over every ``/api/v1`` operation (the ``/api`` alias
serves the same handlers and is left out), in the phases asked for, the stateful one included.
A middleware counts every request the server answered and every 5xx among them, so the figures
do not depend on how schemathesis reports.

Two operations are run in a second, separate pass with a disposable token of their own, because
they end the caller's login (``POST /logout-everywhere`` revokes every token of the caller,
``DELETE /tokens/{id}`` may hit the fuzzing token's id): in the main pass they would log the
fuzzer out half-way and leave everything after it unchecked.

Used by ``tests/portal/test_schemathesis.py`` (bounded) and ``benchmarks/bench_portal.py`` (longer).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from argon2 import PasswordHasher

from ludothek.devtools.threaded_server import serving
from ludothek.portal import Settings, create_app

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The operations that end the caller's login: fuzzed apart, each with a disposable token.
LOGIN_ENDING = r"^/api/v1/(logout-everywhere|tokens/\{token_id\})$"
#: Cheap hashing: the fuzzer logs in often.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)

#: Refusals that a schema cannot express, accepted for schema-valid requests (see docs/api.md,
#: "What the schema cannot say"): 400 where the game's own rules decide (its player counts and
#: options) or where a name, password or text is refused by a rule of the site (a reserved name,
#: control characters).  Every other check keeps its defaults.
CONFIG = """\
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]

# The game in progress (id 1): moves, undo, chat, log, record and replays are tried on it, so they
# reach the game's rules instead of "no such game".  Lobby writes (join, leave, cancel, resign,
# abandon) keep random ids: on game 1 they would end the game the rest of the run plays against.
[[operations]]
include-path-regex = '^/api/v1/games/\\{game_id\\}(/(actions|undo|chat|log|log/page|record|record.json|replay/\\{step\\}))?$'
parameters = { "path.game_id" = 1 }

[[operations]]
include-path-regex = '^/api/v1/(games/\\{kind\\}/leaderboard|ratings/\\{name\\}/\\{kind\\})$'
parameters = { "path.kind" = "machikoro", "path.name" = "partner" }
"""


@dataclass
class FuzzRun:
    """What one run did: requests answered, by status, and what schemathesis said."""

    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)
    output: str = ""

    @property
    def passed(self) -> bool:
        return not self.server_errors and all(code == 0 for code in self.exit_codes)


class Counting:
    """ASGI middleware: counts every HTTP answer by status, and remembers each 5xx."""

    def __init__(self, app: ASGIApp, run: FuzzRun) -> None:
        self.app = app
        self.run = run
        self.lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = int(message["status"])
                with self.lock:
                    self.run.requests += 1
                    self.run.statuses[status] += 1
                    if status >= 500:
                        self.run.server_errors.append(f"{scope['method']} {scope['path']} {status}")
            await send(message)

        await self.app(scope, receive, counted)


def _token(base: str, name: str) -> str:
    r = httpx.post(f"{base}/api/v1/users", json={"name": name, "password": "password-" + name}, timeout=30)
    r.raise_for_status()
    token: str = r.json()["token"]
    return token


def prepare(base: str) -> tuple[str, str, int]:
    """A fuzzing user's token, a disposable user's token, and a running game the fuzzing user plays in."""
    fuzzer = _token(base, "fuzzer")
    partner = _token(base, "partner")
    disposable = _token(base, "disposable")
    auth = {"Authorization": f"Bearer {fuzzer}"}
    seats = [{"kind": "me"}, {"kind": "invite", "user": "partner"}]
    r = httpx.post(f"{base}/api/v1/games", json={"game": "machikoro", "players": 2, "seats": seats},
                   headers=auth, timeout=30)
    r.raise_for_status()
    gid: int = r.json()["id"]
    httpx.post(f"{base}/api/v1/games/{gid}/join", headers={"Authorization": f"Bearer {partner}"},
               timeout=30).raise_for_status()
    return fuzzer, disposable, gid


def _schemathesis(base: str, token: str, workdir: Path, name: str, extra: list[str], max_examples: int,
                  phases: str, seed: int, max_time: float | None) -> subprocess.CompletedProcess[str]:
    config = workdir / "schemathesis.toml"
    config.write_text(CONFIG)
    cmd = [
        str(Path(sys.executable).parent / "st"), "--config-file", str(config), "--no-color", "run", f"{base}/openapi.json",
        "--checks", "all", "--phases", phases, "--max-examples", str(max_examples), "--seed", str(seed),
        "--workers", "1", "--exclude-deprecated", "--include-path-regex", "^/api/v1/",
        "-H", f"Authorization: Bearer {token}", "--report", "junit",
        "--report-junit-path", str(workdir / f"{name}.xml"), "--request-timeout", "30",
        *extra,
    ]
    if max_time is not None:
        cmd += ["--max-time", str(int(max_time))]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=workdir, check=False)


def fuzz(workdir: Path, max_examples: int = 10, phases: str = "examples,coverage,fuzzing,stateful",
         seed: int = 1, max_time: float | None = None, db_url: str | None = None) -> FuzzRun:
    """Run schemathesis against a fresh portal; see the module's doc.

    ``db_url``: an empty database to run on (PostgreSQL finds what SQLite lets through, such as an
    integer beyond int4); default: a fresh SQLite file in ``workdir``.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    settings = Settings(db_url=db_url or f"sqlite:///{workdir / 'fuzz.sqlite3'}", bot_delay=0.0, hasher=FAST_HASHER,
                        handover_seconds=0,
                        secret_key="fuzz-secret", mail_interval=0.0, mail_dir=workdir / "mail",
                        access_log=False)
    run = FuzzRun()
    with serving(Counting(create_app(settings), run)) as base:
        fuzzer, disposable, _gid = prepare(base)
        main = _schemathesis(base, fuzzer, workdir, "main", ["--exclude-path-regex", LOGIN_ENDING],
                             max_examples, phases, seed, max_time)
        ending = _schemathesis(base, disposable, workdir, "login-ending", ["--include-path-regex", LOGIN_ENDING],
                               max_examples, phases, seed, max_time)
    run.exit_codes = [main.returncode, ending.returncode]
    run.output = "\n".join(p.stdout + p.stderr for p in (main, ending))
    return run


def main() -> int:
    """``python -m ludothek.devtools.apifuzz [MAX_EXAMPLES]``: one run, its figures and schemathesis's output."""
    import tempfile

    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    with tempfile.TemporaryDirectory() as tmp:
        run = fuzz(Path(tmp), max_examples=examples)
    print(run.output)
    print(f"requests: {run.requests}  by status: {dict(sorted(run.statuses.items()))}")
    print(f"5xx: {run.server_errors or 'none'}  schemathesis exit codes: {run.exit_codes}")
    return 0 if run.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
