"""Portal benchmark: concurrent games through the HTTP API against a server subprocess on loopback.

Scripted players (one coroutine per seat) play Machi Koro through the JSON
API, each listening on the game's WebSocket; some games have a bot seat that
the server plays.  Measured, for SQLite and (when reachable) PostgreSQL:

- moves per second sustained over a fixed window (moves submitted over HTTP,
  and all stored actions including bot moves and chance outcomes); every
  table starts a new game as soon as its game ends, so the load stays the
  same through the window;
- p50/p99 latency from submitting a move to the *other* seat receiving the
  live update, and of the POST itself, at a light and at a steady load near
  the target, and flat out;
- the CPU the server(s), this client, PostgreSQL, Redis and the bot workers
  used (they share the machine's cores), and how much the machine's CPU was
  contended (Linux PSI);
- the server's resident memory with 1,000 games in progress.

Everything is bounded (fixed game counts, a fixed window) and stays on 127.0.0.1.
Run alone: ``python -m benchmarks portal`` (``BENCH_PORTAL_SECONDS`` sets the window).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from benchmarks.machine_cpu import cpu_by_group, shares
from ludothek.devtools.processes import stop

Row = tuple[str, float, str, str]

GAME = "machikoro"
TWO_SEAT_GAMES = 80
BOT_GAMES = 20
WINDOW = float(os.environ.get("BENCH_PORTAL_SECONDS", "10"))
MEMORY_GAMES = 1000
LATENCY_GAMES = 20
#: games at the same think time for the latency near the 500 moves/s target (at most ~10 moves/s each)
STEADY_GAMES = 50
THINK = 0.1


def _client_run(main: Any) -> Any:
    """Run the benchmark's client on uvloop, as the servers run: its CPU counts on the same two cores."""
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


#: Limits far above what the benchmark's two accounts do, so the limiters count every request
#: (their cost is part of the figures) without refusing one.
BENCH_RULES = {"move_user": "1000000/minute", "move_addr": "1000000/minute", "game_user": "1000000/hour",
               "game_addr": "1000000/hour", "guest": "100000/hour"}


class Server:
    """``ludothek.portal.serve`` in a subprocess (bots play without delay), ``workers`` processes on one port.

    Bot seats are played by the bot worker processes ``serve`` starts (``LUDOTHEK_BOT_WORKERS`` in ``env``).

    ``env`` adds environment variables (``LUDOTHEK_SQLITE_SYNC=full``, ``LUDOTHEK_RATE_LIMITS=off``).
    The access log is on, as in production, and goes to /dev/null.
    """

    def __init__(self, db_url: str, redis_url: str | None = None, workers: int = 1,
                 env: dict[str, str] | None = None, start_timeout: float = 60.0) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        code = (
            "from ludothek.portal import serve; "
            f"serve({db_url!r}, '127.0.0.1', {self.port}, workers={workers}, bot_delay=0.0, "
            f"redis_url={redis_url!r}, limit_rules={BENCH_RULES!r}, max_open_games=100000, "
            "sockets_per_user=100000, sockets_per_address=100000)"
        )
        # BENCH_SERVER_LOG=FILE keeps the server's own log (errors) for a look after the run.
        log_path = os.environ.get("BENCH_SERVER_LOG")
        self._log = open(log_path, "ab") if log_path else None  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                                     stderr=self._log or subprocess.DEVNULL,
                                     # turns handed on at once: the scripted players never confirm a turn;
                                     # no open-data export (issue 32) of the benchmark's old games meanwhile
                                     env={**os.environ, "LUDOTHEK_HANDOVER_SECONDS": "0", "LUDOTHEK_EXPORTS": "off",
                                          "LUDOTHEK_STATISTICS": "off", **(env or {})})
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/readyz", timeout=1).status_code == 200 and len(self.pids()) == workers:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("the portal server did not start")

    def pids(self) -> list[int]:
        """The server processes (the worker processes under uvicorn's supervisor when there are several)."""
        if self.workers == 1:
            return [self.proc.pid]
        try:
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                children = [int(p) for p in f.read().split()]
        except OSError:
            return []
        # uvicorn's spawn start method adds a resource tracker: the servers are the ones that listen.
        return [p for p in children if _is_server(p)]

    def stop(self) -> None:
        stop(self.proc)
        if self._log is not None:
            self._log.close()


def _is_server(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
    except OSError:
        return False
    # Besides the servers, the supervisor starts a resource tracker and the bot worker processes.
    return b"resource_tracker" not in cmd and b"ludothek.cli\0bots" not in cmd


def bot_worker_pids(parent: int) -> list[int]:
    """The ``ludothek bots`` processes ``serve`` started under ``parent`` (by any of its threads)."""
    import glob

    children = []
    for path in glob.glob(f"/proc/{parent}/task/*/children"):
        try:
            with open(path) as f:
                children += [int(p) for p in f.read().split()]
        except OSError:
            pass
    out = []
    for pid in children:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"ludothek.cli\0bots" in f.read():
                    out.append(pid)
        except OSError:
            pass
    return out


class Http:
    """A minimal HTTP/1.1 keep-alive client: the benchmark must measure the server, not httpx's overhead."""

    def __init__(self, base: str, headers: dict[str, str] | None = None) -> None:
        hostport = base.split("://", 1)[1]
        self.host, port = hostport.split(":")
        self.port = int(port)
        self.headers = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{self.headers}"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        elif method == "POST":
            head += "Content-Length: 0\r\n"
        for _ in range(2):
            if self._writer is None:
                self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
            assert self._reader is not None
            try:
                self._writer.write(head.encode() + b"\r\n" + data)
                status_line = await self._reader.readline()
            except (ConnectionResetError, BrokenPipeError):
                status_line = b""  # an idle connection the server had already closed
            if status_line:
                break
            # the server closed an idle keep-alive connection before reading this request: reconnect
            await self.close()
        else:
            raise ConnectionError("the server closed the connection")
        assert self._reader is not None
        status = int(status_line.split()[1])
        length, chunked = 0, False
        while True:
            line = await self._reader.readline()
            if line in (b"\r\n", b""):
                break
            key, _, value = line.decode("latin-1").partition(":")
            key = key.strip().lower()
            if key == "content-length":
                length = int(value)
            elif key == "transfer-encoding" and "chunked" in value:
                chunked = True
        if chunked:
            parts = []
            while True:
                size = int((await self._reader.readline()).strip(), 16)
                chunk = await self._reader.readexactly(size + 2)
                if size == 0:
                    break
                parts.append(chunk[:-2])
            payload = b"".join(parts)
        else:
            payload = await self._reader.readexactly(length)
        try:
            return status, json.loads(payload) if payload else None
        except ValueError:  # say what came instead (a server error's page, say)
            raise RuntimeError(f"{method} {path}: {status}, not JSON: {payload[:300]!r}") from None

    async def get(self, path: str) -> Any:
        return (await self.request("GET", path))[1]

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
        self._reader = self._writer = None


@dataclass
class Stats:
    moves: int = 0
    #: stored actions (moves, bot moves, chance outcomes) heard during the window
    actions: int = 0
    post_ms: list[float] = field(default_factory=list)
    update_ms: list[float] = field(default_factory=list)
    errors: int = 0
    games_finished: int = 0
    measuring: bool = False


@dataclass
class Load:
    """What one measuring window saw: the players' figures plus the CPU the processes used."""

    stats: Stats
    seconds: float
    client_cpu: float  # share of one core used by this benchmark process during the window
    server_cpu: list[float]  # the same for each server process

    #: share of the window in which some runnable task of the machine waited for a CPU (Linux PSI)
    cpu_pressure: float | None = None
    #: the same share of one core for the database, Redis and the bot workers (`benchmarks.machine_cpu`)
    others: dict[str, float] = field(default_factory=dict)

    def errors_note(self) -> str:
        return f"{self.stats.errors} moves refused (stale or limited)"

    def cpu_note(self) -> str:
        servers = " + ".join(f"{c:.0%}" for c in self.server_cpu)
        note = f"CPU of one core: server {servers}, benchmark client {self.client_cpu:.0%}"
        used = [f"{group} {share:.0%}" for group, share in self.others.items() if share >= 0.005]
        if used:
            note += ", " + ", ".join(used)
        if self.cpu_pressure is not None:
            note += f"; machine CPU pressure {self.cpu_pressure:.0%}"
        return note


@dataclass
class GameRun:
    gid: int
    #: base seq -> time the move against it was sent (waiting for the other seat to hear of it)
    pending: dict[int, float] = field(default_factory=dict)
    seq: int = 0
    to_move: int | None = None
    status: str = "running"
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    listening: asyncio.Event = field(default_factory=asyncio.Event)


def _cpu_stall_seconds() -> float | None:
    """Seconds in which some task waited for a CPU (``/proc/pressure/cpu``): other work on the machine."""
    try:
        with open("/proc/pressure/cpu") as f:
            some = f.readline().split()
        return int(some[-1].split("=")[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return None


def _cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU seconds of a process (``None``: this one)."""
    if pid is None:
        times = os.times()
        return times.user + times.system
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _guest(base: str) -> str:
    client = Http(base)
    status, body = await client.request("POST", "/api/v1/guests")
    await client.close()
    if status != 201:
        raise RuntimeError(f"guest account refused: {status} {body}")
    token: str = body["token"]
    return token


async def _listen(base: str, run: GameRun, token: str, stats: Stats, hears_moves: bool, counts: bool) -> None:
    """One seat's WebSocket; ``hears_moves``: time the other seat's moves; ``counts``: count stored actions."""
    from websockets.asyncio.client import connect

    url = base.replace("http", "ws", 1) + f"/api/v1/games/{run.gid}/live?token={token}"
    async with connect(url) as ws:
        heard = 0
        async for raw in ws:
            msg = json.loads(raw)
            now = time.perf_counter()
            if msg.get("type") != "update":
                heard = msg["seq"]
                run.listening.set()
                continue
            if counts:
                if stats.measuring:
                    stats.actions += msg["seq"] - heard
                heard = max(heard, msg["seq"])
            if hears_moves:
                for base_seq in [s for s in run.pending if s < msg["seq"]]:
                    sent = run.pending.pop(base_seq)
                    if stats.measuring:
                        stats.update_ms.append((now - sent) * 1000)
            if msg["seq"] > run.seq:
                run.seq, run.to_move, run.status = msg["seq"], msg["to_move"], msg["status"]
                run.changed.set()
            if msg["status"] != "running":
                return


async def _play_seat(base: str, token: str, run: GameRun, stats: Stats, rng: random.Random,
                     stop: asyncio.Event, think: float) -> None:
    """A scripted player: a random legal action whenever it is this seat's turn."""
    client = Http(base, {"Authorization": f"Bearer {token}"})
    path = f"/api/v1/games/{run.gid}"
    try:
        state = await client.get(f"{path}?log=false")
        while not stop.is_set() and state["status"] == "running":
            if not state["my_turn"]:
                run.changed.clear()
                timed_out = False
                if run.seq <= state["seq"] and run.status == "running":
                    try:
                        await asyncio.wait_for(run.changed.wait(), timeout=1.0)
                    except TimeoutError:
                        timed_out = True  # an update may have been missed: look again
                if timed_out or run.seq > state["seq"] or run.status != "running":
                    state = await client.get(f"{path}?log=false")
                continue
            if think:
                await asyncio.sleep(think)
            action = rng.choice(state["legal"])["action"]
            sent = time.perf_counter()
            run.pending[state["seq"]] = sent
            status, body = await client.request("POST", f"{path}/actions", {"action": action, "seq": state["seq"]})
            done = time.perf_counter()
            if status != 200:
                stats.errors += 1
                run.pending.pop(state["seq"], None)
                state = await client.get(f"{path}?log=false")
                continue
            if stats.measuring:
                stats.moves += 1
                stats.post_ms.append((done - sent) * 1000)
            state = body
    finally:
        await client.close()


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def _table(seat_base: dict[str, str], a: str, b: str, bot: bool, stats: Stats, rng: random.Random,
                 stop: asyncio.Event, think: float, started: asyncio.Event) -> None:
    """One table: a game between ``a`` and ``b`` (or ``a`` and a bot), and a new one whenever it ends.

    Replacing finished games keeps the load constant through the window (a
    random Machi Koro game lasts only a few seconds at full speed).
    """
    owner = Http(seat_base[a], {"Authorization": f"Bearer {a}"})
    joiner = Http(seat_base[b], {"Authorization": f"Bearer {b}"})
    try:
        while not stop.is_set():
            seats = [{"kind": "me"}, {"kind": "bot"}] if bot else None
            _, game = await owner.request("POST", "/api/v1/games", {"game": GAME, "players": 2, "seats": seats})
            if "id" not in game:
                raise RuntimeError(f"game creation refused: {game}")
            run = GameRun(game["id"])
            if not bot:
                await joiner.request("POST", f"/api/v1/games/{run.gid}/join")
            players = [a] if bot else [a, b]
            # seat b listens to hear a's moves arrive (a hears b's, but one sample per move is enough);
            # one listener per game counts the stored actions
            listeners = [
                asyncio.create_task(_listen(seat_base[t], run, t, stats, hears_moves=(t == b), counts=(t == players[-1])))
                for t in players
            ]
            try:
                await asyncio.wait_for(run.listening.wait(), timeout=10)
                started.set()
                await asyncio.gather(*(_play_seat(seat_base[t], t, run, stats, rng, stop, think) for t in players))
                if run.status != "running" and stats.measuring:
                    stats.games_finished += 1
            finally:
                for task in listeners:
                    task.cancel()
                results = await asyncio.gather(*listeners, return_exceptions=True)
            for r in results:
                if isinstance(r, Exception) and not isinstance(r, asyncio.CancelledError):
                    raise r
    finally:
        await owner.close()
        await joiner.close()


async def _play(bases: list[str], pids: list[int], two_seat_games: int, bot_games: int, think: float,
                window: float | None = None, warmup: float = 2.0,
                on_window: Callable[[str], None] | None = None) -> Load:
    """Keep the tables playing for the measuring window (finished games are replaced at once).

    ``window`` (seconds; default `WINDOW`) and ``warmup`` let other benchmarks (`benchmarks.peers`) set
    their own lengths; ``on_window("start")`` and ``on_window("end")`` are called at its edges.

    With two servers, the first seat of every game talks to the first and the second seat to the
    second, so every move reaches the other seat through Redis.
    """
    base = bases[0]
    a, b = await _guest(base), await _guest(base)
    seat_base = {a: bases[0], b: bases[-1]}
    stats = Stats()
    stop = asyncio.Event()
    rng = random.Random(1)
    tables: list[asyncio.Task[None]] = []
    started = [asyncio.Event() for _ in range(two_seat_games + bot_games)]
    # All tables open at once: opening them one by one gets slower with every table already playing.
    for i, event in enumerate(started):
        tables.append(asyncio.create_task(
            _table(seat_base, a, b, i >= two_seat_games, stats, rng, stop, think, event)))
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in started)), timeout=120)
    await asyncio.sleep(warmup)
    cpu_before = [_cpu_seconds(pid) for pid in pids]
    client_before = _cpu_seconds()
    others_before = cpu_by_group()
    stall_before = _cpu_stall_seconds()
    if on_window is not None:
        on_window("start")
    stats.measuring = True
    start = time.perf_counter()
    await asyncio.sleep(WINDOW if window is None else window)
    stats.measuring = False
    if on_window is not None:
        on_window("end")
    elapsed = time.perf_counter() - start
    stall_after = _cpu_stall_seconds()
    others = shares(others_before, cpu_by_group(), elapsed)
    load = Load(
        stats, elapsed, (_cpu_seconds() - client_before) / elapsed,
        [(_cpu_seconds(pid) - before) / elapsed for pid, before in zip(pids, cpu_before, strict=True)],
        None if stall_before is None or stall_after is None else (stall_after - stall_before) / elapsed,
        others,
    )
    stop.set()
    results = await asyncio.gather(*tables, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    if failures:
        raise RuntimeError(f"{len(failures)} benchmark tables failed, first: {failures[0]!r}")
    return load


async def _memory(base: str, pid: int) -> tuple[float, float]:
    a, b = await _guest(base), await _guest(base)
    rss_before = _rss_mb(pid)

    async def worker(k: int) -> None:
        owner = Http(base, {"Authorization": f"Bearer {a}"})
        joiner = Http(base, {"Authorization": f"Bearer {b}"})
        for _ in range(k):
            _, game = await owner.request("POST", "/api/v1/games", {"game": GAME, "players": 2})
            gid = game["id"]
            await joiner.request("POST", f"/api/v1/games/{gid}/join")
            for client in (owner, joiner):
                g = await client.get(f"/api/v1/games/{gid}?log=false")
                if g["my_turn"]:
                    await client.request("POST", f"/api/v1/games/{gid}/actions",
                                         {"action": g["legal"][0]["action"], "seq": g["seq"]})
        await owner.close()
        await joiner.close()

    workers = 10
    await asyncio.gather(*(worker(MEMORY_GAMES // workers) for _ in range(workers)))
    return rss_before, _rss_mb(pid)


def _bench(kind: str, db_url: str, redis_url: str | None = None) -> tuple[list[Row], float]:
    """The full set of figures for one server process; also its moves/s flat out."""
    server = Server(db_url, redis_url)
    pids = server.pids()
    try:
        busy = _client_run(_play([server.base], pids, TWO_SEAT_GAMES, BOT_GAMES, think=0.0))
        server_rss_play = _rss_mb(server.proc.pid)
        calm = _client_run(_play([server.base], pids, LATENCY_GAMES, 0, think=THINK))
        steady = _client_run(_play([server.base], pids, STEADY_GAMES, 0, think=THINK))
    finally:
        server.stop()
    server = Server(db_url, redis_url)  # a fresh process for the memory figure
    try:
        rss_before, rss_after = _client_run(_memory(server.base, server.proc.pid))
    finally:
        server.stop()
    load = (f"{TWO_SEAT_GAMES}+{BOT_GAMES} {GAME} games kept running flat out, {busy.seconds:.0f} s "
            f"({busy.stats.games_finished} finished and replaced)")
    calm_note = (f"{LATENCY_GAMES} games, {THINK * 1000:.0f} ms think time "
                 f"({calm.stats.moves / calm.seconds:.0f} moves/s)")
    steady_note = (f"{STEADY_GAMES} games, {THINK * 1000:.0f} ms think time "
                   f"({steady.stats.moves / steady.seconds:.0f} moves/s)")
    rate = busy.stats.moves / busy.seconds
    return [
        (f"portal {kind}: HTTP moves/s", rate, "moves/s",
         f"{load}; scripted seats only, 1 server process; {busy.errors_note()}"),
        (f"portal {kind}: stored actions/s", busy.stats.actions / busy.seconds, "actions/s",
         "same run, incl. bot moves and chance"),
        (f"portal {kind}: CPU flat out", 100 * sum(busy.server_cpu), "% core", busy.cpu_note()),
        (f"portal {kind}: POST p50 flat out", _pct(busy.stats.post_ms, 50), "ms", "queueing at saturation"),
        (f"portal {kind}: move->update p99 flat out", _pct(busy.stats.update_ms, 99), "ms", "queueing at saturation"),
        (f"portal {kind}: move->update p50", _pct(calm.stats.update_ms, 50), "ms", calm_note),
        (f"portal {kind}: move->update p99", _pct(calm.stats.update_ms, 99), "ms",
         f"{len(calm.stats.update_ms)} samples"),
        (f"portal {kind}: POST p99", _pct(calm.stats.post_ms, 99), "ms", calm_note),
        (f"portal {kind}: move->update p50 steady", _pct(steady.stats.update_ms, 50), "ms", steady_note),
        (f"portal {kind}: move->update p99 steady", _pct(steady.stats.update_ms, 99), "ms",
         f"{len(steady.stats.update_ms)} samples; {steady.cpu_note()}"),
        (f"portal {kind}: server RSS while playing", server_rss_play, "MB", load),
        (f"portal {kind}: server RSS, {MEMORY_GAMES} games", rss_after, "MB",
         f"{rss_before:.0f} MB at start; {MEMORY_GAMES} games running, all states cached"),
    ], rate


def _flat_out(db_url: str, workers: int = 1, redis_url: str | None = None,
              env: dict[str, str] | None = None) -> Load:
    """Moves/s flat out for one configuration (a fresh server, or ``workers`` of them on one port)."""
    server = Server(db_url, redis_url, workers=workers, env=env)
    try:
        return _client_run(_play([server.base], server.pids(), TWO_SEAT_GAMES, BOT_GAMES, think=0.0))
    finally:
        server.stop()


def _at_load(db_url: str, workers: int, redis_url: str | None, moves_per_second: float) -> Load:
    """Latency at a given load: enough games at `THINK` think time to make about ``moves_per_second``."""
    # Each game makes about one move per (think time + the move's own round trips).
    games = max(1, round(moves_per_second * (THINK + 0.008)))
    server = Server(db_url, redis_url, workers=workers)
    try:
        return _client_run(_play([server.base], server.pids(), games, 0, think=THINK))
    finally:
        server.stop()


def _rate(load: Load) -> float:
    return load.stats.moves / load.seconds


def _paired(label: str, runs: list[tuple[str, dict[str, Any]]], rounds: int = 2) -> dict[str, list[Load]]:
    """Interleave the configurations (a b a b ...) so a change in the machine's load hits both alike."""
    out: dict[str, list[Load]] = {name: [] for name, _ in runs}
    for _ in range(rounds):
        for name, kwargs in runs:
            out[name].append(_flat_out(**kwargs))
            print(f"  {label} {name}: {_rate(out[name][-1]):.0f} moves/s", file=sys.stderr, flush=True)
    return out


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _scaling(kind: str, db_url: str, redis_url: str, reset: Any) -> tuple[list[Row], dict[int, float]]:
    """Moves/s with 1 and 2 server processes (``serve --workers N``, Redis for both), interleaved."""
    rates: dict[int, list[float]] = {1: [], 2: []}
    notes: dict[int, str] = {}
    for _ in range(2):
        for workers in (1, 2):
            reset()
            load = _flat_out(db_url, workers, redis_url)
            rates[workers].append(_rate(load))
            notes[workers] = load.cpu_note()
            print(f"  {kind} x{workers}: {rates[workers][-1]:.0f} moves/s; {load.cpu_note()}",
                  file=sys.stderr, flush=True)
    medians = {w: _median(r) for w, r in rates.items()}
    rows: list[Row] = [
        (f"portal {kind}: moves/s, {w} process{'es' if w > 1 else ''} + Redis", medians[w], "moves/s",
         f"serve --workers {w}; median of {', '.join(f'{r:.0f}' for r in rates[w])}; last run: {notes[w]}")
        for w in (1, 2)
    ]
    return rows, medians


def _latency_half_load(kind: str, db_url: str, redis_url: str, rate: float) -> list[Row]:
    load = _at_load(db_url, 2, redis_url, rate / 2)
    return [
        (f"portal {kind} x2: move->update p50 at half load", _pct(load.stats.update_ms, 50), "ms",
         f"{_rate(load):.0f} moves/s (half of {rate:.0f}); {len(load.stats.update_ms)} samples"),
        (f"portal {kind} x2: move->update p99 at half load", _pct(load.stats.update_ms, 99), "ms",
         f"2 processes + Redis; {load.cpu_note()}"),
    ]


def _sync_cost(db_dir: str) -> list[Row]:
    """SQLite ``synchronous=NORMAL`` against ``FULL`` (power-cut safety), interleaved on fresh files."""
    runs = _paired("sqlite sync", [
        ("normal", {"db_url": f"sqlite:///{db_dir}/sync-normal.sqlite3"}),
        ("full", {"db_url": f"sqlite:///{db_dir}/sync-full.sqlite3", "env": {"LUDOTHEK_SQLITE_SYNC": "full"}}),
    ])
    normal = _median([_rate(x) for x in runs["normal"]])
    full = _median([_rate(x) for x in runs["full"]])
    return [
        ("portal sqlite: moves/s, synchronous=NORMAL", normal, "moves/s",
         "runs " + ", ".join(f"{_rate(x):.0f}" for x in runs["normal"]) + "; interleaved with FULL"),
        ("portal sqlite: moves/s, LUDOTHEK_SQLITE_SYNC=full", full, "moves/s",
         "runs " + ", ".join(f"{_rate(x):.0f}" for x in runs["full"])
         + f"; costs {100 * (1 - full / normal):.0f} % of NORMAL's moves/s"),
    ]


def _limiter_cost(kind: str, db_url: str, workers: int, redis_url: str | None, reset: Any) -> list[Row]:
    """Moves/s with the rate limits counting every move and game (as deployed) against switched off."""
    rates: dict[str, list[float]] = {"on": [], "off": []}
    for _ in range(2):
        for mode in ("on", "off"):
            reset()
            env = {"LUDOTHEK_RATE_LIMITS": "off"} if mode == "off" else None
            rates[mode].append(_rate(_flat_out(db_url, workers, redis_url, env=env)))
            print(f"  {kind} limits {mode}: {rates[mode][-1]:.0f} moves/s", file=sys.stderr, flush=True)
    on, off = _median(rates["on"]), _median(rates["off"])
    where = f"{workers} process{'es' if workers > 1 else ''}" + (", counters in Redis" if redis_url else ", in memory")
    return [(f"portal {kind}: rate limiter cost", 100 * (1 - on / off), "% moves/s",
             f"{where}: on {', '.join(f'{r:.0f}' for r in rates['on'])} vs off "
             f"{', '.join(f'{r:.0f}' for r in rates['off'])} moves/s (2 hits per move: user, address)")]


def _postgres_url() -> str | None:
    """The local test database, emptied so the benchmark starts from a fresh migration."""
    from ludothek.devtools.postgres import postgres_url, reset_database

    url = postgres_url()
    if url is not None:
        reset_database(url)
    return url


def _limiter_micro(redis_url: str | None) -> list[Row]:
    """What the move limiter costs one move (two hits: user and address), in memory and in Redis."""
    from ludothek.portal.limits import RateLimits

    rows: list[Row] = []
    for where, url in (("in memory", None), ("Redis", redis_url)):
        if where == "Redis" and url is None:
            continue
        limits = RateLimits(url, {"move_user": "1000000/minute", "move_addr": "1000000/minute"},
                            namespace=f"bench-{os.getpid()}")
        n = 2000 if url else 20000
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(n):
            limits.hit("move_user", str(i % 100))
            limits.hit("move_addr", "127.0.0.1")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rows.append((f"portal: move limiter, {where}", wall / n * 1e6, "us/move",
                     f"two hits per move (user, address), sliding-window counters; CPU {cpu / n * 1e6:.0f} us/move"))
    return rows


def _redis_url() -> str | None:
    from ludothek.devtools.services import REDIS, port_open

    return f"redis://{REDIS[0]}:{REDIS[1]}/0" if port_open(REDIS) else None


def run() -> list[Row]:
    rows: list[Row] = []
    redis_url = _redis_url()
    pg = _postgres_url()
    rows += _limiter_micro(redis_url)
    table: dict[str, dict[int, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        full, _ = _bench("sqlite", f"sqlite:///{tmp}/bench.sqlite3")
        rows += full
        rows += _sync_cost(tmp)
        rows += _limiter_cost("sqlite", f"sqlite:///{tmp}/limits.sqlite3", 1, None, lambda: None)
        if redis_url is None:
            rows.append(("portal sqlite x2", float("nan"), "-", "Redis not reachable on 127.0.0.1:6379"))
        else:
            url = f"sqlite:///{tmp}/scale.sqlite3"
            scaled, table["sqlite"] = _scaling("sqlite", url, redis_url, lambda: _fresh_sqlite(tmp, "scale.sqlite3"))
            rows += scaled
    if pg is None:
        rows.append(("portal postgres", float("nan"), "-", "PostgreSQL not reachable on 127.0.0.1:5432"))
        return rows
    from ludothek.devtools.postgres import reset_database

    full, _ = _bench("postgres", pg)
    rows += full
    if redis_url is None:
        rows.append(("portal postgres x2", float("nan"), "-", "Redis not reachable on 127.0.0.1:6379"))
        return rows
    scaled, table["postgres"] = _scaling("postgres", pg, redis_url, lambda: reset_database(pg))
    rows += scaled
    reset_database(pg)
    rows += _latency_half_load("postgres", pg, redis_url, table["postgres"][2])
    rows += _limiter_cost("postgres", pg, 2, redis_url, lambda: reset_database(pg))
    rows.append(("portal: moves/s by processes", float("nan"), "-", "; ".join(
        f"{kind}: 1 -> {t[1]:.0f}, 2 -> {t[2]:.0f} ({t[2] / t[1]:.2f}x)" for kind, t in table.items())))
    return rows


# ----------------------------------------------------------------------------- CPU per move of everything
#: The load of the CPU-per-move comparison (issue 34): PostgreSQL + Redis with 2 server processes
#: against SQLite with one, at the same rate; and its move -> other's update target there.
CPU_RATE = 300.0


def _own_backends(db_url: str) -> list[int]:
    """The PostgreSQL backends connected to this benchmark's own database (not other people's)."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    engine = create_engine(db_url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                                     "AND pid <> pg_backend_pid()")).all()
    finally:
        engine.dispose()
    return [r[0] for r in rows]


def _proc_cpu(pids: list[int]) -> dict[int, float]:
    out = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            out[pid] = _cpu_seconds(pid)
    return out


def _redis_cpu() -> float:
    return cpu_by_group()["Redis"]


async def _play_counting(bases: list[str], server: Server, db_url: str, tables: int,
                         server_redis: bool) -> tuple[Load, dict[str, float]]:
    """`_play` at `THINK` think time, and the CPU seconds of every process a move passes through during the
    window: the servers, their bot workers, the database backends of this benchmark's database (read at
    the window's edges: the pools keep them open throughout), Redis (the whole server: it may serve others).
    """
    pg = db_url.startswith("postgresql")
    groups: dict[str, float] = {}
    marks: dict[str, Any] = {}

    def read() -> dict[str, Any]:
        return {"servers": _proc_cpu(server.pids()), "bot workers": _proc_cpu(bot_worker_pids(server.proc.pid)),
                "PostgreSQL": _proc_cpu(_own_backends(db_url)) if pg else {}, "Redis": _redis_cpu()}

    def edge(which: str) -> None:
        marks[which] = read()

    load = await _play(bases, server.pids(), tables, 0, think=THINK, on_window=edge)
    before, after = marks["start"], marks["end"]
    for group in ("servers", "bot workers", "PostgreSQL"):
        b, a = before[group], after[group]
        assert isinstance(b, dict) and isinstance(a, dict)
        groups[group] = sum(a[p] - b.get(p, 0.0) for p in a)
    if server_redis:  # the machine's Redis is shared: counted only where this deployment uses it
        groups["Redis"] = after["Redis"] - before["Redis"]
    return load, groups


def cpu_per_move(kind: str, workers: int, rate: float = CPU_RATE) -> tuple[Load, dict[str, float]] | str:
    """All processes' CPU per move at about ``rate`` moves/s: ``sqlite`` (one process) or ``postgres-redis``
    (``workers`` processes); a sentence instead when a service is missing."""
    games = max(1, round(rate * (THINK + 0.008)))
    with tempfile.TemporaryDirectory() as tmp:
        redis_url = None
        if kind == "postgres-redis":
            redis_url = _redis_url()
            db_url = _postgres_url()
            if redis_url is None or db_url is None:
                return "PostgreSQL or Redis not reachable"
        else:
            db_url = f"sqlite:///{tmp}/cpu.sqlite3"
        server = Server(db_url, redis_url, workers=workers)
        try:
            bases = [server.base]
            return _client_run(_play_counting(bases, server, db_url, games, redis_url is not None))
        finally:
            server.stop()


def cpu_rows(rate: float = CPU_RATE) -> list[Row]:
    """SQLite (1 process) and PostgreSQL + Redis (2 processes) at the same rate: every process's CPU per
    move, side by side, and the move -> other's update latency (target p99 < 50 ms on PostgreSQL)."""
    rows: list[Row] = []
    for kind, workers in (("sqlite", 1), ("postgres-redis", 2)):
        got = cpu_per_move(kind, workers, rate)
        if isinstance(got, str):
            rows.append((f"portal {kind} x{workers}: all CPU per move", float("nan"), "-", got))
            continue
        load, groups = got
        moves = max(1, load.stats.moves)
        total = sum(groups.values())
        parts = ", ".join(f"{g} {v / moves * 1000:.2f}" for g, v in groups.items() if v > 0)
        client = load.client_cpu * load.seconds / moves * 1000
        rows += [
            (f"portal {kind} x{workers}: all CPU per move", total / moves * 1000, "ms",
             f"{_rate(load):.0f} moves/s ({rate:.0f} asked); {parts}; benchmark client {client:.2f} not counted"
             + ("; Redis is the machine's whole server" if kind != "sqlite" else "")),
            (f"portal {kind} x{workers}: move->update p50 at {rate:.0f}/s", _pct(load.stats.update_ms, 50), "ms",
             f"{len(load.stats.update_ms)} samples"),
            (f"portal {kind} x{workers}: move->update p99 at {rate:.0f}/s", _pct(load.stats.update_ms, 99), "ms",
             "target < 50 on PostgreSQL + Redis, 2 processes" if kind != "sqlite" else "for comparison"),
        ]
    return rows


def _fresh_sqlite(directory: str, name: str) -> None:
    """Start a scaling run on an empty SQLite file (the same URL each time)."""
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(directory, name + suffix))


def one(config: str, workers: int = 1) -> str:
    """One flat-out window of one configuration (``sqlite``, ``sqlite-redis`` or ``postgres-redis``), for
    comparing two versions of the code run after one another: moves/s and the server CPU per move."""
    redis_url = _redis_url() if config.endswith("-redis") else None
    if config.endswith("-redis") and redis_url is None:
        return f"{config}: Redis not reachable"
    with tempfile.TemporaryDirectory() as tmp:
        db_url = _postgres_url() if config.startswith("postgres") else f"sqlite:///{tmp}/one.sqlite3"
        if db_url is None:
            return f"{config}: PostgreSQL not reachable"
        load = _flat_out(db_url, workers, redis_url)
    cpu_per_move = sum(load.server_cpu) * load.seconds / max(1, load.stats.moves)
    return (f"{config} x{workers}: {_rate(load):.0f} moves/s, server CPU {cpu_per_move * 1000:.2f} ms per move; "
            f"{load.cpu_note()}; move->update p50 {_pct(load.stats.update_ms, 50):.1f} ms, "
            f"p99 {_pct(load.stats.update_ms, 99):.1f} ms; {load.errors_note()}")


if __name__ == "__main__":
    # `python -m benchmarks.bench_portal sqlite-redis 2`: one configuration; `cpu`: every process's CPU per
    # move at 300 moves/s, SQLite beside PostgreSQL + Redis x2; without arguments, everything.
    if sys.argv[1:2] == ["cpu"]:
        for row in cpu_rows(float(sys.argv[2]) if len(sys.argv) > 2 else CPU_RATE):
            print(f"{row[0]:<50} {row[1]:>8.2f} {row[2]:<4} {row[3]}")
    elif len(sys.argv) > 1:
        print(one(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1))
    else:
        for row in run():
            print(row)
