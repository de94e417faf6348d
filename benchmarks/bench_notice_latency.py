"""From a move to its notice handed to a channel (issue 30): p99 ≤ 2 s at 300 moves/s, PostgreSQL + Redis,
2 processes; and the move's own latency unchanged (within 5 %) with the notice worker running.

Each process is a server's storage side: its own `Site`, live events published to Redis (as a server
does), moves of machikoro games between two players at its share of the rate, and, in the second
phase, the notice worker as a server runs it (`NoticeRunners`, woken by each stored move) with one
stub channel that records when each notice was handed to it.  A notice's latency is that moment
less its outbox row's ``created_at`` (the move's transaction).  The first phase runs the same moves
without the worker: the move latencies of the two phases are compared.

``python -m benchmarks.bench_notice_latency [moves/s] [seconds] [processes]``; without PostgreSQL it
measures SQLite (and says so), without Redis it publishes nowhere (and says so).
"""

from __future__ import annotations

import multiprocessing as mp
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, ClassVar

from argon2 import PasswordHasher

from ludothek.devtools.postgres import postgres_url, reset_database
from ludothek.devtools.services import REDIS, port_open
from ludothek.services import Site
from ludothek.storage import make_engine, migrate
from ludothek.workers.channels.base import Delivery, Message, Outcome, Sent

GAME = "machikoro"
GAMES_PER_PROCESS = 40


class HandOver:
    """A stub channel: records how long after its move each notice reached it."""

    name: ClassVar[str] = "webhook"
    backoff: ClassVar[Sequence[timedelta]] = (timedelta(seconds=1),)
    needs_message: ClassVar[bool] = True

    def __init__(self) -> None:
        self.latencies: list[float] = []

    def enabled(self) -> bool:
        return True

    def targets(self, user_id: int, kind: str) -> Sequence[int]:
        return [0]

    def deliver(self, delivery: Delivery, message: Message, now: datetime) -> Outcome:
        self.latencies.append(time.time() - delivery.notice.created_at.timestamp())
        return Sent()


def _site(url: str) -> Site:
    engine = make_engine(url)
    migrate(engine)
    return Site(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


def _player(url: str, redis_url: str | None, index: int, rate: float, seconds: float, notices: bool,
            out: Any) -> None:
    """One process: moves at ``rate`` for ``seconds``; puts (move latencies, notice latencies, moves) on ``out``."""
    from ludothek.workers.notices import NoticeJob, NoticeRunners

    site = _site(url)
    if redis_url:
        from ludothek.portal.live.hub import RedisHub

        hub = RedisHub(redis_url, deployment="bench-notices")
        site.listeners.append(hub.publish)
        site.user_messages.append(hub.publish_user)
    stub = HandOver()
    runners = None
    if notices:
        runners = NoticeRunners(NoticeJob(site, [stub]), interval=0.5)
        site.listeners.append(runners.on_event)
        runners.start()
    rng = random.Random(index)
    stamp = f"{index}{'n' if notices else 'q'}{int(time.time() * 1000) % 10**7}"
    users = [site.accounts.register(f"b{stamp}{i}", f"password-{i}") for i in range(2)]

    def new_game() -> int:
        gid = site.lobby.create_game(users[0], GAME, 2, {})
        site.lobby.join(gid, users[1])
        return gid

    gids = [new_game() for _ in range(GAMES_PER_PROCESS)]
    moves: list[float] = []
    start = time.perf_counter()
    k = 0
    while time.perf_counter() - start < seconds:
        due = start + len(moves) / rate
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        k = (k + 1) % len(gids)
        with site.play.state(gids[k]) as (info, tracked):
            if info.status != "running" or tracked is None:
                gids[k] = new_game()
                continue
            action = rng.choice(tracked.state.legal_actions())
            mover = info.seats[info.to_move].user_id
        assert mover is not None
        t0 = time.perf_counter()
        site.play.submit_as(gids[k], mover, action, info.seq)
        moves.append(time.perf_counter() - t0)
    if runners is not None:
        time.sleep(3)  # the last notices
        runners.stop()
    out.put((moves, stub.latencies, len(moves) / (time.perf_counter() - start)))
    site.engine.dispose()


def _worker(url: str, redis_url: str, seconds: float, out: Any, ready: Any) -> None:
    """The notice worker in a process of its own (``ludothek worker``), woken through Redis by each move."""
    import threading

    from ludothek.portal.live.hub import RedisHub
    from ludothek.workers.notices import NoticeJob, NoticeRunners, wake_on_redis

    site = _site(url)
    stub = HandOver()
    runners = NoticeRunners(NoticeJob(site, [stub]), interval=0.5)
    stop = threading.Event()
    wake_on_redis(redis_url, RedisHub(redis_url, deployment="bench-notices").channel, runners.wake, stop)
    runners.start()
    ready.set()
    time.sleep(seconds + 3)
    stop.set()
    runners.stop()
    out.put(([], stub.latencies, 0.0))
    site.engine.dispose()


def _phase(url: str, redis_url: str | None, rate: float, seconds: float, processes: int,
           notices: bool, worker: bool = False) -> tuple[list[float], list[float], float]:
    """Moves in ``processes`` processes; notices by their own workers, or (``worker``) by one of its own."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    extra = []
    if worker and redis_url:
        ready = ctx.Event()
        extra = [ctx.Process(target=_worker, args=(url, redis_url, seconds + 5, out, ready))]
        extra[0].start()
        ready.wait(120)
    procs = [ctx.Process(target=_player, args=(url, redis_url, i, rate / processes, seconds, notices and not worker,
                                               out)) for i in range(processes)]
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 300) for _ in procs + extra]
    for p in procs + extra:
        p.join(timeout=60)
    moves = [m for r in results for m in r[0]]
    handed = [h for r in results for h in r[1]]
    return moves, handed, sum(r[2] for r in results)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _forget_queued(url: str) -> None:
    from sqlalchemy import update

    from ludothek.storage.models import OutboxRow

    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(update(OutboxRow).where(OutboxRow.status == "pending").values(status="skipped"))
    engine.dispose()


def measure(url: str, redis_url: str | None, rate: float = 300, seconds: float = 20,
            processes: int = 2, worker: bool = False) -> dict[str, float]:
    """Both phases; the figures in milliseconds (and the rates reached, in moves/s).  ``worker``: the
    notices are handed over by a worker process of its own (woken through Redis), not by the movers."""
    _site(url).engine.dispose()  # migrated once, before the processes start
    quiet, _, quiet_rate = _phase(url, redis_url, rate, seconds, processes, notices=False)
    _forget_queued(url)  # the first phase's notices are nobody's: not counted in the second
    moves, handed, rate_on = _phase(url, redis_url, rate, seconds, processes, notices=True, worker=worker)
    return {
        "handover_p50": pct(handed, 0.50) * 1000, "handover_p99": pct(handed, 0.99) * 1000,
        "handover_max": max(handed, default=float("nan")) * 1000, "notices": float(len(handed)),
        "move_p50_off": pct(quiet, 0.5) * 1000, "move_p50_on": pct(moves, 0.5) * 1000,
        "move_mean_off": statistics.fmean(quiet) * 1000 if quiet else float("nan"),
        "move_mean_on": statistics.fmean(moves) * 1000 if moves else float("nan"),
        "rate_off": quiet_rate, "rate_on": rate_on,
    }


def rows(label: str, got: dict[str, float], rate: float, processes: int) -> list[tuple[str, float, str, str]]:
    change = (got["move_p50_on"] / got["move_p50_off"] - 1) * 100 if got["move_p50_off"] else float("nan")
    note = f"{label}, {processes} processes, {got['rate_on']:.0f} of {rate:.0f} moves/s reached"
    return [
        ("notice hand-over p50", got["handover_p50"], "ms", note),
        ("notice hand-over p99", got["handover_p99"], "ms", note + "; target ≤ 2000"),
        ("notices handed over", got["notices"], "count", note),
        ("move p50 without notices", got["move_p50_off"], "ms", note),
        ("move p50 with notices", got["move_p50_on"], "ms", note),
        ("move p50 change", change, "%", "target within 5 %"),
    ]


def run(rate: float = 300, seconds: float = 20, processes: int = 2) -> list[tuple[str, float, str, str]]:
    """The rows `make bench` prints: PostgreSQL (+ Redis when reachable), else SQLite.  With Redis, both
    ways a deployment runs the worker: in the server processes, and in a ``ludothek worker`` of its own."""
    redis_url = f"redis://{REDIS[0]}:{REDIS[1]}/0" if port_open(REDIS) else None
    label = "Redis" if redis_url else "no Redis"
    url = postgres_url()
    if url is not None:
        out = []
        for worker in ([False, True] if redis_url else [False]):
            reset_database(url)
            try:
                got = measure(url, redis_url, rate, seconds, processes, worker)
            finally:
                reset_database(url)
            how = "worker process of its own" if worker else "worker in the moving processes"
            out += [(f"{name} ({how})", value, unit, note)
                    for name, value, unit, note in rows(f"PostgreSQL + {label}", got, rate, processes)]
        return out
    with tempfile.TemporaryDirectory() as tmp:
        got = measure(f"sqlite:///{tmp}/bench.sqlite3", redis_url, rate, seconds, processes)
    return rows(f"SQLite (no PostgreSQL) + {label}", got, rate, processes)


if __name__ == "__main__":
    args = [float(a) for a in sys.argv[1:4]]
    for bench, value, unit, note in run(*args[:2], *[int(a) for a in args[2:3]]):
        print(f"{bench:<60} {value:>10,.1f} {unit:<6} {note}")
