"""Ludothek against boardgame.io's in-memory server, side by side, driven the same way.

Both servers get the same number of two-seat tables and the same client behaviour: every seat is a
socket client; a seat moves as soon as it is its turn and its previous move has been answered (after
``think`` seconds), picking a random legal move; a finished game is replaced at once.  Measured over
the same window for each: the server process's CPU time (user + system, read from ``/proc``) per
move answered, moves per second, and move -> the other player's update p50/p99 (a move of the first
seat, from being sent to the second seat hearing of it).  The two servers run in turn (Ludothek,
boardgame.io, Ludothek, ...), so a change in the machine's load hits both alike.

boardgame.io (the npm package, version `BGIO_VERSION`, with its lock file ``bgio/package-lock.json``)
is installed by the benchmark itself into ``benchmarks/peers/bgio/node_modules`` (``npm ci``), once;
without node or npm, or when the install fails (no network), its side is skipped and the reason is
printed.  What differs between the two workloads is `WORKLOAD_DIFFERENCES` (printed with the figures).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PEER_DIR = Path(__file__).resolve().parent / "bgio"
BGIO_VERSION = "0.50.2"

WORKLOAD_DIFFERENCES = """\
How the two workloads differ (the client behaviour and the table count are the same):
- Game: Ludothek plays Machi Koro (its full rules: 15 kinds of establishments, 4 landmarks,
  card effects); boardgame.io plays a small roll-and-build game written for this benchmark
  (benchmarks/peers/bgio/game.js: roll one die, everybody earns from the buildings it activates,
  build one of 8 kinds or pass).  A turn is two moves in both (roll, then build or pass; Machi
  Koro adds a choice now and then).
- Durability: Ludothek commits every move to SQLite (WAL, synchronous=NORMAL) before it answers,
  with the seq check, the log and the notices' outbox rows; boardgame.io keeps its matches in
  memory (its default storage): a restart loses every game.
- The move: Ludothek takes an HTTP POST (JSON body with the action and the seq seen) with a
  bearer token and the rate limiter counting it, and answers with the mover's view and legal
  actions in words; boardgame.io takes one socket.io message over the seat's open socket.
- The other seat: Ludothek pushes a small notice over the seat's WebSocket and that seat then
  GETs its view (a second HTTP request per move); boardgame.io pushes the new state (or a patch)
  to both seats' sockets.
- Clients: Ludothek's players are Python (asyncio on uvloop, in the benchmark's own process);
  boardgame.io's are its own JavaScript client (`Client` with the `SocketIO` transport) in a node
  process.  Only the server process's CPU is counted; the clients share the machine's cores.
- Background work: Ludothek's server CPU includes what a deployment runs beside the moves in
  the same process (the notice worker's fan-out of "your turn" notices, the clock job, the bot
  workers' wake-ups); boardgame.io has none of it.  Its two bot worker processes idle (no bot
  seats) and are not counted.
- Mode: boardgame.io runs with NODE_ENV=production, as deployed (no development checks of each
  move's result); Ludothek as `ludothek serve` runs it, access log on.
- Hand-over: Ludothek runs with LUDOTHEK_HANDOVER_SECONDS=0 (a turn passes on at once, as on
  boardgame.io); with its default grace period a player confirms the turn or waits 5 s.
- Limits and accounts: Ludothek checks a bearer token against the database and counts each move
  against the per-user and per-address limits; boardgame.io checks the seat's credentials
  (in memory) and has no limits.
"""

#: Flat out: as many tables as the issue's comparison (moves as fast as answered).
FLAT_TABLES = 80
#: Light load for the latency: fewer tables, each seat thinking 0.1 s before it moves.
LIGHT_TABLES = 20
LIGHT_THINK = 0.1


@dataclass
class Round:
    """One measuring window of one server."""

    server: str
    tables: int
    think: float
    seconds: float
    moves: int
    server_cpu: float  # seconds of CPU the server process(es) used in the window
    update_ms: list[float] = field(default_factory=list)
    games: int = 0

    @property
    def cpu_per_move_ms(self) -> float:
        return self.server_cpu / self.moves * 1000 if self.moves else float("nan")

    @property
    def rate(self) -> float:
        return self.moves / self.seconds if self.seconds else float("nan")

    def pct(self, p: float) -> float:
        if not self.update_ms:
            return float("nan")
        ordered = sorted(self.update_ms)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def line(self) -> str:
        return (f"{self.server:<12} {self.tables:>3} tables, think {self.think * 1000:.0f} ms: "
                f"{self.rate:7.0f} moves/s, server CPU {self.cpu_per_move_ms:.3f} ms/move "
                f"({self.server_cpu / self.seconds:.0%} of a core), move->other's update "
                f"p50 {self.pct(50):.1f} / p99 {self.pct(99):.1f} ms ({len(self.update_ms)} samples)")


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peer_missing(install: bool = True) -> str | None:
    """None when boardgame.io can run here; else why not (said in the output instead of its figures).

    ``install``: run ``npm ci`` in `PEER_DIR` when the package is not there yet (needs the network
    once); without it a missing package is only reported.
    """
    if shutil.which("node") is None:
        return "boardgame.io skipped: node is not installed (apt-get install nodejs npm)"
    installed = PEER_DIR / "node_modules" / "boardgame.io" / "package.json"
    if installed.exists() and json.loads(installed.read_text()).get("version") == BGIO_VERSION:
        return None
    if not install:
        return (f"boardgame.io skipped: {BGIO_VERSION} is not installed in {PEER_DIR}/node_modules "
                "(python -m benchmarks.peers installs it with npm ci)")
    npm = shutil.which("npm")
    if npm is None:
        return "boardgame.io skipped: npm is not installed (apt-get install npm)"
    print(f"installing boardgame.io {BGIO_VERSION} with npm ci in {PEER_DIR} ...", file=sys.stderr, flush=True)
    try:
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=PEER_DIR, capture_output=True,
                              text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "boardgame.io skipped: npm ci did not finish within 10 minutes"
    if done.returncode != 0 or not installed.exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"boardgame.io skipped: npm ci failed ({last})"
    return None


def run_bgio(tables: int, think: float, window: float, warmup: float = 2.0, seed: int = 1) -> Round:
    """One window against boardgame.io's server (a fresh node process, in-memory storage)."""
    from benchmarks.bench_portal import _free_port

    port = _free_port()
    # As deployed: NODE_ENV=production (no development checks of every move's result, no log lines).
    env = {**os.environ, "NODE_ENV": "production"}
    server = subprocess.Popen(["node", "server.js", str(port)], cwd=PEER_DIR, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=env)
    client: subprocess.Popen[str] | None = None
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError("boardgame.io's server did not start")
        client = subprocess.Popen(["node", "client.js", str(port), str(tables), str(think), str(warmup),
                                   str(window), str(seed)], cwd=PEER_DIR, stdout=subprocess.PIPE, text=True,
                                  env=env)
        assert client.stdout is not None
        before = after = 0.0
        result = None
        for line in client.stdout:
            if line.startswith("window-start"):
                before = _cpu_seconds(server.pid)
            elif line.startswith("window-end"):
                after = _cpu_seconds(server.pid)
            elif line.startswith("{"):
                result = json.loads(line)
        if client.wait(timeout=30) != 0 or result is None:
            raise RuntimeError("boardgame.io's players failed")
        if result["stuck"]:
            print(f"  boardgame.io: {result['stuck']} moves went unanswered for 5 s", file=sys.stderr)
        return Round("boardgame.io", tables, think, result["seconds"], result["moves"], after - before,
                     result["update_ms"], result["games"])
    finally:
        for proc in (client, server):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()


def run_ludothek(tables: int, think: float, window: float, warmup: float = 2.0) -> Round:
    """One window against Ludothek (a fresh server process on a fresh SQLite file), as `bench_portal` drives it."""
    from benchmarks.bench_portal import Server, _client_run, _play

    with tempfile.TemporaryDirectory() as tmp:
        server = Server(f"sqlite:///{tmp}/peers.sqlite3")
        try:
            load = _client_run(_play([server.base], server.pids(), tables, 0, think, window=window, warmup=warmup))
        finally:
            server.stop()
    return Round("Ludothek", tables, think, load.seconds, load.stats.moves, sum(load.server_cpu) * load.seconds,
                 load.stats.update_ms, load.stats.games_finished)


def compare(tables: int, think: float, window: float, rounds: int, peer: bool, warmup: float = 2.0,
            ) -> dict[str, list[Round]]:
    """``rounds`` windows of each server, interleaved; boardgame.io's only when ``peer``."""
    out: dict[str, list[Round]] = {"Ludothek": [], "boardgame.io": []}
    for k in range(rounds):
        out["Ludothek"].append(run_ludothek(tables, think, window, warmup))
        print("  " + out["Ludothek"][-1].line(), file=sys.stderr, flush=True)
        if peer:
            out["boardgame.io"].append(run_bgio(tables, think, window, warmup, seed=k + 1))
            print("  " + out["boardgame.io"][-1].line(), file=sys.stderr, flush=True)
    return out


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _spread(values: list[float], fmt: str = ".3f") -> str:
    return ", ".join(format(v, fmt) for v in values)


Row = tuple[str, float, str, str]


def rows(flat: dict[str, list[Round]], light: dict[str, list[Round]], skipped: str | None) -> list[Row]:
    """The table `make bench` prints: each server's figures, and Ludothek's against boardgame.io's."""
    out: list[Row] = []
    for name in ("Ludothek", "boardgame.io"):
        runs, calm = flat[name], light[name]
        if not runs:
            continue
        label = "Ludothek (SQLite)" if name == "Ludothek" else "boardgame.io (in memory)"
        cpu = [r.cpu_per_move_ms for r in runs]
        out += [
            (f"peers {label}: server CPU per move", _median(cpu), "ms",
             f"{runs[0].tables} tables flat out; rounds {_spread(cpu)}"),
            (f"peers {label}: moves/s", _median([r.rate for r in runs]), "moves/s",
             f"rounds {_spread([r.rate for r in runs], '.0f')}"),
        ]
        if calm:
            out += [
                (f"peers {label}: move->update p50", _median([r.pct(50) for r in calm]), "ms",
                 f"{calm[0].tables} tables, {calm[0].think * 1000:.0f} ms think; "
                 f"rounds {_spread([r.pct(50) for r in calm], '.1f')}"),
                (f"peers {label}: move->update p99", _median([r.pct(99) for r in calm]), "ms",
                 f"rounds {_spread([r.pct(99) for r in calm], '.1f')}"),
            ]
    if skipped:
        out.append(("peers boardgame.io", float("nan"), "-", skipped))
        return out
    ours, theirs = flat["Ludothek"], flat["boardgame.io"]
    if ours and theirs:
        # Pair the rounds (each pair ran back to back), then take the median of the pairs.
        ratios = [a.cpu_per_move_ms / b.cpu_per_move_ms for a, b in zip(ours, theirs, strict=False)]
        out.append(("peers: Ludothek / boardgame.io CPU per move", _median(ratios), "x",
                    f"paired rounds {_spread(ratios, '.2f')}; target <= 1.5"))
        rates = [b.rate / a.rate for a, b in zip(ours, theirs, strict=False)]
        out.append(("peers: boardgame.io / Ludothek moves/s", _median(rates), "x",
                    f"paired rounds {_spread(rates, '.2f')}"))
    return out


def measure(rounds: int = 3, window: float = 10.0, install: bool = True, light: bool = True,
            tables: int = FLAT_TABLES, warmup: float = 2.0) -> list[Row]:
    """Flat out with ``tables`` tables, then (``light``) the latency at light load; both servers interleaved."""
    skipped = peer_missing(install)
    if skipped:
        print(skipped, file=sys.stderr, flush=True)
    flat = compare(tables, 0.0, window, rounds, skipped is None, warmup)
    calm: dict[str, list[Round]] = {"Ludothek": [], "boardgame.io": []}
    if light:
        calm = compare(min(tables, LIGHT_TABLES), LIGHT_THINK, window, rounds, skipped is None, warmup)
    return rows(flat, calm, skipped)


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.peers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved windows of each server (3)")
    parser.add_argument("--window", type=float, default=10.0, help="seconds measured per window (10)")
    parser.add_argument("--tables", type=int, default=FLAT_TABLES, help=f"two-seat tables flat out ({FLAT_TABLES})")
    parser.add_argument("--no-light", action="store_true", help="skip the light-load latency windows")
    parser.add_argument("--no-install", action="store_true", help="never run npm; skip boardgame.io if missing")
    args = parser.parse_args(argv)
    print(WORKLOAD_DIFFERENCES)
    started = time.perf_counter()
    got = measure(args.rounds, args.window, not args.no_install, not args.no_light, args.tables)
    width = max(len(r[0]) for r in got)
    for bench, value, unit, note in got:
        print(f"{bench:<{width}}  {value:>9,.3f} {unit:<8} {note}")
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0
