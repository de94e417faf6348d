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
- the CPU the server(s) and this client used (they share the machine's
  cores), and how much the machine's CPU was contended (Linux PSI);
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
from dataclasses import dataclass, field
from typing import Any

import httpx

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


class Server:
    """``ludothek.portal.serve`` in a subprocess (bots play without delay)."""

    def __init__(self, db_url: str, redis_url: str | None = None) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        code = (
            "from ludothek.portal import serve; "
            f"serve({db_url!r}, '127.0.0.1', {self.port}, bot_delay=0.0, redis_url={redis_url!r})"
        )
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/api/catalog", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("the portal server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


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
        return status, json.loads(payload) if payload else None

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

    def cpu_note(self) -> str:
        servers = " + ".join(f"{c:.0%}" for c in self.server_cpu)
        note = f"CPU of one core: server {servers}, benchmark client {self.client_cpu:.0%}"
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
    status, body = await client.request("POST", "/api/guests")
    await client.close()
    if status != 201:
        raise RuntimeError(f"guest account refused: {status} {body}")
    token: str = body["token"]
    return token


async def _listen(base: str, run: GameRun, token: str, stats: Stats, hears_moves: bool, counts: bool) -> None:
    """One seat's WebSocket; ``hears_moves``: time the other seat's moves; ``counts``: count stored actions."""
    from websockets.asyncio.client import connect

    url = base.replace("http", "ws", 1) + f"/api/games/{run.gid}/live?token={token}"
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
    path = f"/api/games/{run.gid}"
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
            _, game = await owner.request("POST", "/api/games", {"game": GAME, "players": 2, "seats": seats})
            run = GameRun(game["id"])
            if not bot:
                await joiner.request("POST", f"/api/games/{run.gid}/join")
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


async def _play(bases: list[str], pids: list[int], two_seat_games: int, bot_games: int, think: float) -> Load:
    """Keep the tables playing for the measuring window (finished games are replaced at once).

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
    await asyncio.sleep(2.0)  # warm up
    cpu_before = [_cpu_seconds(pid) for pid in pids]
    client_before = _cpu_seconds()
    stall_before = _cpu_stall_seconds()
    stats.measuring = True
    start = time.perf_counter()
    await asyncio.sleep(WINDOW)
    stats.measuring = False
    elapsed = time.perf_counter() - start
    stall_after = _cpu_stall_seconds()
    load = Load(
        stats, elapsed, (_cpu_seconds() - client_before) / elapsed,
        [(_cpu_seconds(pid) - before) / elapsed for pid, before in zip(pids, cpu_before, strict=True)],
        None if stall_before is None or stall_after is None else (stall_after - stall_before) / elapsed,
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
            _, game = await owner.request("POST", "/api/games", {"game": GAME, "players": 2})
            gid = game["id"]
            await joiner.request("POST", f"/api/games/{gid}/join")
            for client in (owner, joiner):
                g = await client.get(f"/api/games/{gid}?log=false")
                if g["my_turn"]:
                    await client.request("POST", f"/api/games/{gid}/actions",
                                         {"action": g["legal"][0]["action"], "seq": g["seq"]})
        await owner.close()
        await joiner.close()

    workers = 10
    await asyncio.gather(*(worker(MEMORY_GAMES // workers) for _ in range(workers)))
    return rss_before, _rss_mb(pid)


def _bench(kind: str, db_url: str) -> list[Row]:
    server = Server(db_url)
    pids = [server.proc.pid]
    try:
        busy = asyncio.run(_play([server.base], pids, TWO_SEAT_GAMES, BOT_GAMES, think=0.0))
        server_rss_play = _rss_mb(server.proc.pid)
        calm = asyncio.run(_play([server.base], pids, LATENCY_GAMES, 0, think=THINK))
        steady = asyncio.run(_play([server.base], pids, STEADY_GAMES, 0, think=THINK))
    finally:
        server.stop()
    server = Server(db_url)  # a fresh process for the memory figure
    try:
        rss_before, rss_after = asyncio.run(_memory(server.base, server.proc.pid))
    finally:
        server.stop()
    load = (f"{TWO_SEAT_GAMES}+{BOT_GAMES} {GAME} games kept running flat out, {busy.seconds:.0f} s "
            f"({busy.stats.games_finished} finished and replaced)")
    calm_note = (f"{LATENCY_GAMES} games, {THINK * 1000:.0f} ms think time "
                 f"({calm.stats.moves / calm.seconds:.0f} moves/s)")
    steady_note = (f"{STEADY_GAMES} games, {THINK * 1000:.0f} ms think time "
                   f"({steady.stats.moves / steady.seconds:.0f} moves/s)")
    return [
        (f"portal {kind}: HTTP moves/s", busy.stats.moves / busy.seconds, "moves/s",
         f"{load}; scripted seats only, 1 server process"),
        (f"portal {kind}: stored actions/s", busy.stats.actions / busy.seconds, "actions/s",
         "same run, incl. bot moves and chance"),
        (f"portal {kind}: CPU flat out", 100 * busy.server_cpu[0], "% core", busy.cpu_note()),
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
    ]


def _bench_two_servers(kind: str, db_url: str) -> list[Row]:
    """Two server processes on one database, live updates through Redis: the way to more cores."""
    from ludothek.devtools.services import REDIS, port_open

    if not port_open(REDIS):
        return [(f"portal {kind} x2: HTTP moves/s", float("nan"), "-", "Redis not reachable on 127.0.0.1:6379")]
    redis_url = f"redis://{REDIS[0]}:{REDIS[1]}/0"
    servers = [Server(db_url, redis_url), Server(db_url, redis_url)]
    pids = [srv.proc.pid for srv in servers]
    try:
        bases = [srv.base for srv in servers]
        busy = asyncio.run(_play(bases, pids, TWO_SEAT_GAMES, BOT_GAMES, think=0.0))
        calm = asyncio.run(_play(bases, pids, LATENCY_GAMES, 0, think=THINK))
    finally:
        for srv in servers:
            srv.stop()
    note = "2 server processes + Redis fan-out; each game's seats on different servers"
    return [
        (f"portal {kind} x2: HTTP moves/s", busy.stats.moves / busy.seconds, "moves/s", note),
        (f"portal {kind} x2: stored actions/s", busy.stats.actions / busy.seconds, "actions/s",
         "incl. bot moves and chance"),
        (f"portal {kind} x2: CPU flat out", 100 * sum(busy.server_cpu), "% core", busy.cpu_note()),
        (f"portal {kind} x2: move->update p99", _pct(calm.stats.update_ms, 99), "ms",
         f"{LATENCY_GAMES} games, {THINK * 1000:.0f} ms think time, across processes"),
    ]


def _postgres_url() -> str | None:
    """The local test database, emptied so the benchmark starts from a fresh migration."""
    from ludothek.devtools.postgres import postgres_url, reset_database

    url = postgres_url()
    if url is not None:
        reset_database(url)
    return url


def run() -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        rows += _bench("sqlite", f"sqlite:///{tmp}/bench.sqlite3")
        rows += _bench_two_servers("sqlite", f"sqlite:///{tmp}/bench2.sqlite3")
    pg = _postgres_url()
    if pg is None:
        rows.append(("portal postgres", float("nan"), "-", "PostgreSQL not reachable on 127.0.0.1:5432"))
    else:
        rows += _bench("postgres", pg)
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
