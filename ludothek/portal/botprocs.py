"""Bot worker processes: ``ludothek bots`` itself, and how ``ludothek serve`` starts and stops them.

`run_bot_process` is the body of ``ludothek bots``: a `ludothek.workers.bots.BotWorker`
in the foreground, its bots thinking at a lower CPU priority, publishing its moves
the way a server does (Redis when configured).

`BotProcesses` is what ``serve`` (and so ``make run``) uses: it starts
``settings.bot_workers`` such processes next to the server, once, in the
process that supervises (with ``--workers N``, uvicorn's parent, never each
server process), starts a worker again if one dies, and stops them all when the
server stops.  A worker orphaned by a killed parent notices and stops too.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from types import FrameType

from .settings import Settings

log = logging.getLogger("ludothek.bots")

#: How much lower the bots think than the server runs (``nice``): thinking yields the CPU to serving.
DEFAULT_NICE = 10
#: Seconds a stopping worker gets to finish or give back its turn before it is killed.
STOP_GRACE = 15.0
#: A worker that ran this long before ending was healthy: it starts again at once.
STABLE_AFTER = 30.0
#: The longest wait before starting again a worker that keeps ending (a database that is down, say).
MAX_RESTART_DELAY = 60.0


def restart_delay(quick_ends: int) -> float:
    """Seconds before starting again a worker that ended ``quick_ends`` times in a row soon after
    starting: none for a worker that ran a while, then 1, 2, 4 … up to a minute, so a worker that
    cannot run does not fill the log and the CPU with a start every second."""
    if quick_ends <= 0:
        return 0.0
    return min(MAX_RESTART_DELAY, 2.0 ** (quick_ends - 1))


def _end_with_parent() -> None:
    """In the new child, before it runs: Linux sends it SIGTERM when the server that started it dies,
    even by ``kill -9`` (``prctl(PR_SET_PDEATHSIG)``), so no bot worker outlives its server."""
    import ctypes

    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def _interrupt(signum: int, frame: FrameType | None) -> None:
    # Once: a second SIGTERM (the kernel's for a parent gone, and the parent's own) must not cut the
    # giving back of the turn in hand short.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def _watch_parent(parent: int) -> None:
    """Stop this process when the process that started it is gone (killed without stopping us)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            log.warning("the server that started this bot worker is gone; stopping")
            os.kill(os.getpid(), signal.SIGTERM)
            return


def run_bot_process(db_url: str | None, redis_url: str | None = None, delay: float | None = None,
                    nice: int = DEFAULT_NICE, interval: float = 0.25, parent: int | None = None) -> int:
    """``ludothek bots``: play bot turns until interrupted (SIGINT or SIGTERM); several may run at once."""
    from ludothek.services import Site
    from ludothek.storage import make_engine, migrate
    from ludothek.workers.bots import BotWorker

    from .live.hub import RedisHub, turn_listener
    from .observe import configure_logging

    if parent is not None and os.getppid() != parent:
        return 0  # the server that started us is already gone (it stopped while we were starting)
    configure_logging()
    settings = Settings.from_env(db_url)
    if redis_url:
        settings.redis_url = redis_url
    if delay is not None:
        settings.bot_delay = delay
    engine = make_engine(settings.db_url)
    if parent is None:
        migrate(engine)  # alone; under `serve`, the server migrated before starting us
    site = Site(engine)
    hub: RedisHub | None = None
    if settings.redis_url:
        # The live channel is named after the deployment's signing secret, shared through the database.
        secret = settings.secret_key or site.db.meta("session_secret", lambda: secrets.token_urlsafe(48))
        hub = RedisHub(settings.redis_url, deployment=secret)
        site.listeners.append(hub.publish)
        site.listeners.append(turn_listener(site, hub))
        site.bots.thinking_listeners.append(hub.publish_thinking)
    # The bots think `nice` lower (in their own threads); this thread claims and stores at the
    # server's priority, so it never sits on a database lock while starved of CPU.
    worker = BotWorker(site, delay=settings.bot_delay, interval=interval, nice=nice)
    site.listeners.append(worker.on_event)
    signal.signal(signal.SIGTERM, _interrupt)
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent,), name="ludothek-parent-watch", daemon=True).start()
    log.info("Ludothek bot worker %s on %s: bots move %.2g s after their turn begins; live updates %s",
             worker.owner, settings.db_url.split("@")[-1], settings.bot_delay,
             "through Redis" if hub else "seen by the server in the database")
    try:
        worker.run_forever()
    except KeyboardInterrupt:
        worker.release()
    finally:
        log.info("bot worker %s stopping after %d turns", worker.owner, worker.played)
        if hub is not None:
            with contextlib.suppress(Exception):
                hub.close_publisher()  # what the last turns published is sent first
        engine.dispose()
    return 0


class BotProcesses:
    """``count`` bot worker processes for a server: started, restarted when they die, stopped with it."""

    def __init__(self, settings: Settings, count: int, nice: int = DEFAULT_NICE) -> None:
        self.settings = settings
        self.count = count
        self.nice = nice
        self.procs: list[subprocess.Popen[bytes]] = []
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "ludothek.cli", "bots", "--db", self.settings.db_url,
               "--delay", repr(self.settings.bot_delay), "--nice", str(self.nice), "--parent", str(os.getpid())]
        if self.settings.redis_url:
            cmd += ["--redis", self.settings.redis_url]
        return cmd

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        if self.settings.secret_key:
            env["LUDOTHEK_SECRET"] = self.settings.secret_key
        return env

    def _spawn(self) -> subprocess.Popen[bytes]:
        # Their log lines go to the server's standard error, interleaved with its own.
        return subprocess.Popen(self.command(), env=self._env(), stdin=subprocess.DEVNULL,
                                preexec_fn=_end_with_parent if sys.platform == "linux" else None)

    def start(self, after_listening: tuple[str, int] | None = None) -> None:
        """Start the workers; with ``after_listening=(host, port)``, once the server accepts connections
        there (or after a minute), so that starting them never slows the server's own start."""
        if self.count < 1:
            log.info("no bot workers started here: run 'ludothek bots' elsewhere, or bots never move")
            return
        self._thread = threading.Thread(target=self._supervise, args=(after_listening,),
                                        name="ludothek-bot-supervisor", daemon=True)
        self._thread.start()

    def _wait_for_server(self, host: str, port: int) -> None:
        address = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not self._stopping.is_set():
            try:
                with socket.create_connection((address, port), timeout=1):
                    return
            except OSError:
                self._stopping.wait(0.2)

    def _supervise(self, after_listening: tuple[str, int] | None) -> None:
        if after_listening is not None:
            self._wait_for_server(*after_listening)
        with self._lock:
            if self._stopping.is_set():
                return
            self.procs = [self._spawn() for _ in range(self.count)]
        log.info("started %d bot worker process%s (pids %s)", self.count, "es" if self.count > 1 else "",
                 ", ".join(str(p.pid) for p in self.procs))
        started = [time.monotonic()] * self.count
        quick = [0] * self.count  # ends in a row, each soon after its start
        due: list[float | None] = [None] * self.count  # when an ended worker starts again
        while not self._stopping.wait(1.0):
            with self._lock:
                now = time.monotonic()
                for i, proc in enumerate(self.procs):
                    if self._stopping.is_set() or proc.poll() is None:
                        continue
                    if due[i] is None:
                        quick[i] = quick[i] + 1 if now - started[i] < STABLE_AFTER else 0
                        wait = restart_delay(quick[i])
                        due[i] = now + wait
                        log.warning("bot worker %d ended (exit %s); starting it again in %.0f s",
                                    proc.pid, proc.returncode, wait)
                    if now >= (due[i] or now):
                        self.procs[i] = self._spawn()
                        started[i], due[i] = now, None

    def pids(self) -> list[int]:
        with self._lock:
            return [p.pid for p in self.procs]

    def stop(self) -> None:
        """SIGTERM to every worker (each gives back its turn in hand), then kill what is left after a grace."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            procs = list(self.procs)
        for proc in procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("bot worker %d did not stop in time; killing it", proc.pid)
                proc.kill()
                proc.wait()
