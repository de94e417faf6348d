"""Do thinking bots delay people's moves?  Human moves' p99 with 20 games of `hard` bots thinking, against none.

One server process on SQLite (``serve``, which starts its bot worker processes at
``nice`` 10).  Twenty scripted people play two-seat Machi Koro games against each
other at 100 ms think time, as in the portal benchmark's latency figure; in the
"hard" runs, 20 more tables play against a `hard` bot, answering at once, so the
bot workers always have a 2-second decision in hand.  Measured for the people:
the POST of a move and the time until the other seat hears of it (p50, p99);
for the bots: how many turns they played and the CPU the workers used.  Runs
alternate (none, hard, none, hard) so the machine's other load hits both alike.

Run alone: ``python -m benchmarks bot_workers`` (``BENCH_BOTS_SECONDS`` sets the window, default 15).
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import tempfile
import time

from benchmarks.bench_portal import (
    GAME,
    THINK,
    GameRun,
    Http,
    Load,
    Server,
    Stats,
    _cpu_seconds,
    _guest,
    _listen,
    _pct,
    _play,
    _play_seat,
    bot_worker_pids,
)

Row = tuple[str, float, str, str]

HARD_GAMES = 20
HUMAN_GAMES = 20
BOT_WORKERS = 2
WINDOW = float(os.environ.get("BENCH_BOTS_SECONDS", "15"))


async def _hard_table(base: str, token: str, stats: Stats, rng: random.Random, stop: asyncio.Event) -> None:
    """A person who answers a `hard` bot at once, starting a new game when one ends: the bot always thinks."""
    owner = Http(base, {"Authorization": f"Bearer {token}"})
    try:
        while not stop.is_set():
            _, game = await owner.request("POST", "/api/v1/games", {
                "game": GAME, "players": 2, "seats": [{"kind": "me"}, {"kind": "bot", "bot": "hard"}]})
            if "id" not in game:
                raise RuntimeError(f"game creation refused: {game}")
            run = GameRun(game["id"])
            listener = asyncio.create_task(_listen(base, run, token, stats, hears_moves=False, counts=True))
            try:
                await asyncio.wait_for(run.listening.wait(), timeout=10)
                await _play_seat(base, token, run, stats, rng, stop, 0.0)
            finally:
                listener.cancel()
                await asyncio.gather(listener, return_exceptions=True)
    finally:
        await owner.close()


async def _measure(server: Server, hard: bool) -> tuple[Load, int, float]:
    """People's figures with (or without) the hard tables running; also bot turns played and workers' CPU."""
    bot_stats = Stats()
    stop = asyncio.Event()
    tables: list[asyncio.Task[None]] = []
    if hard:
        tokens = [await _guest(server.base) for _ in range(HARD_GAMES)]
        rng = random.Random(7)
        tables = [asyncio.create_task(_hard_table(server.base, t, bot_stats, rng, stop)) for t in tokens]
        await asyncio.sleep(3.0)  # every table has a bot thinking by now
    workers = bot_worker_pids(server.proc.pid)
    before = [_cpu_seconds(p) for p in workers]
    bot_stats.measuring = True
    start = time.perf_counter()
    load = await _play([server.base], server.pids(), HUMAN_GAMES, 0, think=THINK)
    elapsed = time.perf_counter() - start
    bot_stats.measuring = False
    worker_cpu = sum(_cpu_seconds(p) - b for p, b in zip(workers, before, strict=True)) / elapsed
    stop.set()
    await asyncio.gather(*tables, return_exceptions=True)
    return load, bot_stats.actions, worker_cpu


def run() -> list[Row]:
    import benchmarks.bench_portal as portal

    portal.WINDOW = WINDOW
    results: dict[bool, list[tuple[Load, int, float]]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(2):
            for hard in (False, True):
                db = f"sqlite:///{tmp}/bots-{round_}-{int(hard)}.sqlite3"
                # A loaded machine (other work, this benchmark at nice 10) can take minutes to start one.
                server = Server(db, env={"LUDOTHEK_BOT_WORKERS": str(BOT_WORKERS)}, start_timeout=300)
                try:
                    load, bot_actions, worker_cpu = asyncio.run(_measure(server, hard))
                finally:
                    server.stop()
                results[hard].append((load, bot_actions, worker_cpu))
                print(f"  bots {'hard' if hard else 'none'}: move->update p99 {_pct(load.stats.update_ms, 99):.0f} ms, "
                      f"POST p99 {_pct(load.stats.post_ms, 99):.0f} ms, bot-game actions {bot_actions}, "
                      f"bot workers {worker_cpu:.0%} of a core; {load.cpu_note()}", file=sys.stderr, flush=True)
    rows: list[Row] = []
    for hard in (False, True):
        name = f"{HARD_GAMES} hard bot games" if hard else "no bot games"
        runs = results[hard]
        update = [x for load, _, _ in runs for x in load.stats.update_ms]
        post = [x for load, _, _ in runs for x in load.stats.post_ms]
        note = (f"{HUMAN_GAMES} two-seat games at {THINK * 1000:.0f} ms think time, SQLite, 1 server process, "
                f"{BOT_WORKERS} bot workers (nice 10); {len(update)} samples over {len(runs)} interleaved runs")
        rows.append((f"bot workers, {name}: move->update p99", _pct(update, 99), "ms", note))
        rows.append((f"bot workers, {name}: move->update p50", _pct(update, 50), "ms", "same runs"))
        rows.append((f"bot workers, {name}: POST p99", _pct(post, 99), "ms", "same runs"))
        if hard:
            turns = sum(a for _, a, _ in runs)
            cpu = sum(c for _, _, c in runs) / len(runs)
            rows.append((f"bot workers, {name}: bot-game actions stored", turns, "actions",
                         f"moves and chance in the hard games during the windows; workers used {cpu:.0%} of a core"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
