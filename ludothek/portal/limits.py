"""Limits on what one client can take: rate limits, the login brake and the password-hash gate.

Rate limits use the ``limits`` library with a moving window.  Without Redis the
counters live in this process; with ``redis_url`` configured they live in Redis,
so every server process of a deployment shares them (two servers are not two
brakes).  While Redis fails, each process counts on its own again (`RateLimits`):
a request never fails for want of a counter.  A refused request gets 429 with
``Retry-After``.

Load tests may switch the rate limits off with ``LUDOTHEK_RATE_LIMITS=off``;
the hash gate and the body and socket limits stay on regardless.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar

from argon2 import PasswordHasher
from limits import RateLimitItem, parse
from limits.errors import StorageError
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter, SlidingWindowCounterRateLimiter
from redis.exceptions import RedisError

from ludothek.services.workgate import WorkGate
from ludothek.storage import TooManyAttempts

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: Rules counted in fixed windows, so that a counted attempt can be given back (`RateLimits.refund`).
REFUNDABLE = frozenset({"login_addr"})
#: Rules on hot paths, counted in sliding-window counters: two counters per key instead of one entry
#: per request (a move must not pay for a list of its last thousand siblings in Redis).
COUNTERS = frozenset({"move_user", "move_addr", "chat_user", "chat_addr"})
#: With Redis, a process counts the hot-path rules of one key locally and adds them to Redis this many
#: at a time (for limits of at least 20 times as many per window): a move costs a tenth of a Redis
#: round trip instead of two, and the shared count is exact to within ``BATCH - 1`` per process.
BATCH = 10

#: The default limits, per key (documented in docs/security.md, "Limits").
DEFAULT_RULES: dict[str, str] = {
    # Accounts: registrations and guests per address.
    "register": "10/hour",
    "guest": "30/hour",
    # The login brake: attempts per (name, address) pair and per address, counted before the check.
    "login_pair": "5/15minutes",
    "login_addr": "30/15minutes",
    # Games created per user and per address.
    "game_user": "60/hour",
    "game_addr": "200/hour",
    # Moves (API and pages) per user and per address: far above any person or fair program
    # (a person moves a few times a minute), low enough that no client can flood the write path.
    "move_user": "600/minute",
    "move_addr": "3000/minute",
    # Chat messages per user (all games together; issue 12 says 10 a minute) and per address.
    "chat_user": "10/minute",
    "chat_addr": "60/minute",
    # Records replayed from outside (API and the import page), counted only when a record must be
    # replayed (not for the steps of one already in the cache): per user, per address, and for
    # visitors of the import page without a login, per address (docs/security.md, "Replays").
    "replay_user": "20/minute",
    "replay_addr": "60/minute",
    "replay_visitor": "6/minute",
    # Test pushes from the account page (each goes to every device of the user at once).
    "push_test": "5/15minutes",
    # A webhook's "send a test" per user: each is a request to the player's address, at once.
    "webhook_test": "5/minute",
}

#: The translated refusal (``err_<key>`` in the catalogues) of a rule; others use ``err_too_many_attempts``.
CODE_KEYS = {"move_user": "too_many_moves", "move_addr": "too_many_moves",
             "chat_user": "too_many_messages", "chat_addr": "too_many_messages",
             "replay_user": "too_many_replays", "replay_addr": "too_many_replays",
             "replay_visitor": "too_many_replays", "webhook_test": "too_many_webhook_tests"}

MESSAGES = {
    "register": "too many new accounts from your address; try again later",
    "guest": "too many guest accounts from your address; try again later",
    "login_pair": "too many login attempts for this name; wait {seconds} seconds",
    "login_addr": "too many login attempts from your address; wait {seconds} seconds",
    "game_user": "you have created many games in a short time; wait {seconds} seconds",
    "game_addr": "many games were created from your address in a short time; wait {seconds} seconds",
    "move_user": "you are moving faster than anyone plays; wait {seconds} seconds",
    "move_addr": "very many moves come from your address; wait {seconds} seconds",
    "chat_user": "at most 10 chat messages a minute; wait {seconds} seconds",
    "chat_addr": "many messages come from your address; wait {seconds} seconds",
    "replay_user": "you have replayed many records in a short time; wait {seconds} seconds",
    "replay_addr": "many records were replayed from your address in a short time; wait {seconds} seconds",
    "replay_visitor": "many records were replayed from your address; wait {seconds} seconds or log in",
    "push_test": "at most 5 test notifications in 15 minutes; wait {seconds} seconds",
    "webhook_test": "at most 5 webhook tests a minute; wait {seconds} seconds",
}


#: How often (seconds) the in-process counters drop what has expired.
SWEEP_INTERVAL = 1.0


class SweptMemoryStorage(MemoryStorage):
    """The ``limits`` library's in-memory storage, without its expiry thread.

    `MemoryStorage` starts a timer thread 10 ms after every count whenever none is running, so a
    busy server started a new thread up to a hundred times a second; creating and joining them cost
    more CPU than the counting (about 90 us of a move's 440 us in the server).  Counts and windows
    already expire as they are read (a counter past its expiry reads as 0, a moving window looks at
    its own time span only); what the thread did besides is free memory.  Here that sweep runs in
    the counting thread itself, at most once per `SWEEP_INTERVAL`: the same answers, no threads.
    """

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: str) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.timer.cancel()  # the one the library starts in its constructor
        self._next_sweep = time.monotonic() + SWEEP_INTERVAL
        self._sweep_lock = threading.Lock()

    def _MemoryStorage__schedule_expiry(self) -> None:  # replaces the library's private timer start
        now = time.monotonic()
        if now < self._next_sweep or not self._sweep_lock.acquire(blocking=False):
            return
        try:
            self._next_sweep = now + SWEEP_INTERVAL
            self._MemoryStorage__expire_events()  # type: ignore[attr-defined]
        finally:
            self._sweep_lock.release()

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.timer.cancel()
        self._sweep_lock = threading.Lock()


class _Counters:
    """One storage with the three strategies the rules use on it."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.moving = MovingWindowRateLimiter(storage)
        self.fixed = FixedWindowRateLimiter(storage)
        self.counters = SlidingWindowCounterRateLimiter(storage)

    def limiter(self, name: str) -> MovingWindowRateLimiter | FixedWindowRateLimiter | SlidingWindowCounterRateLimiter:
        if name in COUNTERS:
            return self.counters
        return self.fixed if name in REFUNDABLE else self.moving


#: What a Redis that is down, restarting or too slow raises through the ``limits`` library (its own
#: wrapper, or redis-py's errors, or the socket's).
REDIS_FAILURES: tuple[type[BaseException], ...] = (StorageError, RedisError, OSError)


class RateLimits:
    """Named limits; `hit` counts one request and refuses it past the limit.

    With Redis the counts are shared by every process.  When Redis fails (down, restarting, slower
    than ``redis_timeout``), each process counts on its own in memory instead, so that the brakes
    still hold per process and no request fails for want of a counter; it logs the outage once and
    tries Redis again every ``redis_retry`` seconds.  The local counts are not carried over to Redis.
    """

    def __init__(self, redis_url: str | None = None, rules: dict[str, str] | None = None,
                 enabled: bool = True, namespace: str = "ludothek", redis_timeout: float = 1.0,
                 redis_retry: float = 5.0) -> None:
        self.enabled = enabled
        self._local = _Counters(SweptMemoryStorage())
        self._remote: _Counters | None = None
        if redis_url:
            storage = storage_from_string(redis_url, key_prefix=f"{namespace}:limits",
                                          socket_timeout=redis_timeout, socket_connect_timeout=redis_timeout)
            assert isinstance(storage, Storage)  # a synchronous storage (not the asyncio variants)
            self._remote = _Counters(storage)
        #: The shared storage when Redis is configured, else the in-process one.
        self.storage = (self._remote or self._local).storage
        self.rules: dict[str, RateLimitItem] = {k: parse(v) for k, v in (rules or DEFAULT_RULES).items()}
        self.redis_retry = redis_retry
        #: While Redis is failing: the moment (monotonic) to try it again; None while it answers.
        self._redis_retry_at: float | None = None
        self._outage_lock = threading.Lock()
        self._batch_lock = threading.Lock()
        #: Hits counted here but not yet in Redis, and keys refused until a moment (batched rules only).
        self._pending: dict[tuple[str, ...], int] = {}
        self._refused_until: dict[tuple[str, ...], float] = {}

    @property
    def redis_down(self) -> bool:
        """Redis is configured and failed at the last try: the counts are this process's own."""
        return self._redis_retry_at is not None

    def _current(self) -> _Counters:
        """Redis's counters, unless Redis failed less than ``redis_retry`` seconds ago."""
        if self._remote is None:
            return self._local
        retry_at = self._redis_retry_at
        if retry_at is not None and time.monotonic() < retry_at:
            return self._local
        return self._remote

    def _failed(self, exc: BaseException) -> None:
        """Redis failed: count locally until the next try; log once per outage."""
        with self._outage_lock:
            first = self._redis_retry_at is None
            self._redis_retry_at = time.monotonic() + self.redis_retry
        if first:
            log.warning("rate limits: Redis failed (%s: %s); counting in this process until it is back "
                        "(next try in %.0f s)", type(exc).__name__, exc, self.redis_retry)

    def _answered(self) -> None:
        if self._redis_retry_at is not None:
            with self._outage_lock:
                back, self._redis_retry_at = self._redis_retry_at is not None, None
            if back:
                log.warning("rate limits: Redis answers again; counts are shared again")

    def _run(self, call: Callable[[_Counters], _T]) -> _T:
        """``call`` on the current counters; on the process's own when Redis fails (never an error)."""
        counters = self._current()
        if counters is self._local:
            return call(counters)
        try:
            result = call(counters)
        except REDIS_FAILURES as exc:
            self._failed(exc)
            return call(self._local)
        self._answered()
        return result

    def _batch(self, name: str, item: RateLimitItem, counters: _Counters) -> int:
        if counters is self._local or name not in COUNTERS:
            return 1
        return max(1, min(BATCH, item.amount // 20))

    def _take_batch(self, name: str, key: tuple[str, ...], batch: int) -> int:
        """0 if this hit stays local (allowed); else how many hits to add to Redis now.  Refuses a key
        that Redis refused until its window has room again."""
        full = (name, *key)
        now = time.time()
        with self._batch_lock:
            until = self._refused_until.get(full)
            if until is not None:
                if until > now:
                    self._refuse(name, until)
                del self._refused_until[full]
            count = self._pending.get(full, 0) + 1
            if count < batch:
                if len(self._pending) > 100_000:  # keys of long-gone users: forget them
                    self._pending.clear()
                self._pending[full] = count
                return 0
            self._pending.pop(full, None)
            return count

    @staticmethod
    def _refuse(name: str, reset: float) -> None:
        seconds = max(1, math.ceil(reset - time.time()))
        refusal = TooManyAttempts(MESSAGES[name].format(seconds=seconds), retry_after=seconds)
        if name in CODE_KEYS:
            refusal.params["code_key"] = CODE_KEYS[name]
        raise refusal

    def hit(self, name: str, *key: str) -> None:
        """Count one request for ``key`` under limit ``name``; `TooManyAttempts` when it is over the limit."""
        if not self.enabled:
            return
        refused = self._run(lambda counters: self._hit(counters, name, key))
        if refused is not None:
            self._refuse(name, refused)

    def _hit(self, counters: _Counters, name: str, key: tuple[str, ...]) -> float | None:
        """Count the hit on ``counters``; None if allowed, else when the window has room again."""
        item = self.rules[name]
        limiter = counters.limiter(name)
        batch = self._batch(name, item, counters)
        cost = 1 if batch == 1 else self._take_batch(name, key, batch)
        if cost == 0 or limiter.hit(item, name, *key, cost=cost):
            return None
        if name in REFUNDABLE:
            self._refund(counters, name, key)  # a refused attempt checks nothing: it does not count on
        reset: float = limiter.get_window_stats(item, name, *key).reset_time
        if batch > 1:
            with self._batch_lock:
                self._refused_until[(name, *key)] = reset
        return reset

    def refund(self, name: str, *key: str) -> None:
        """Give back one counted request of a `REFUNDABLE` rule (a login that turned out to be right)."""
        if not self.enabled or name not in REFUNDABLE:
            return
        self._run(lambda counters: self._refund(counters, name, key))

    def _refund(self, counters: _Counters, name: str, key: tuple[str, ...]) -> None:
        item = self.rules[name]
        counter = item.key_for(name, *key)
        if counters.storage.get(counter) > 0:
            counters.storage.incr(counter, item.get_expiry(), amount=-1)

    def clear(self, name: str, *key: str) -> None:
        if self.enabled:
            self._run(lambda counters: counters.limiter(name).clear(self.rules[name], name, *key))


class LoginBrake:
    """Slows down password guessing without locking the owner out.

    Every attempt is counted *before* the password is checked, per (name,
    address) pair and per address, so a burst of concurrent guesses cannot
    slip past the count.  A correct password clears its pair and gives its
    attempt back to the address, so what an address has used up is its recent
    failures (plus checks still running): a correct password from an address
    without recent failures is never refused, however many people log in from
    it.  Nothing is counted per name alone: an attacker hammering a name from
    elsewhere never refuses its owner.
    """

    def __init__(self, limits: RateLimits | None = None) -> None:
        self.limits = limits or RateLimits()

    @staticmethod
    def _pair(name: str, address: str) -> tuple[str, str]:
        return (str(name).lower(), address)

    def attempt(self, name: str, address: str) -> None:
        """Count one attempt before the password is checked; `TooManyAttempts` past either limit."""
        self.limits.hit("login_addr", address)
        try:
            self.limits.hit("login_pair", *self._pair(name, address))
        except TooManyAttempts:
            self.limits.refund("login_addr", address)
            raise

    def succeeded(self, name: str, address: str) -> None:
        """The password was right: clear the pair and give the attempt back to the address."""
        self.limits.clear("login_pair", *self._pair(name, address))
        self.limits.refund("login_addr", address)


class HashGate(WorkGate):
    """At most ``concurrency`` password hashes at once per process, at most ``queue`` waiting.

    An argon2 hash costs 64 MiB and about 0.2 s: without a gate, 40 concurrent
    registrations took 2.6 GB and slowed everyone's moves.  Past the queue a
    request is refused at once with 429 instead of piling up.
    """

    def __init__(self, concurrency: int = 2, queue: int = 8) -> None:
        super().__init__(concurrency, queue, message="the server is busy checking passwords; try again in a moment")


#: How much lower than the server's other threads the hashing threads run (Linux ``nice`` steps).
HASH_NICENESS = 10


def _lower_priority() -> None:
    """Run this thread (and the threads argon2 starts from it) at a lower CPU priority.

    On Linux the nice value belongs to each thread and is inherited by the threads it
    starts; elsewhere this does nothing.
    """
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + HASH_NICENESS)


class GatedHasher(PasswordHasher):
    """The configured argon2 hasher: every hash and verification passes the gate and runs
    in one of the gate's own low-priority threads.

    The CPU is what other players' moves wait for: two hashes in flight (four argon2
    threads each) otherwise take every core of a small machine.  At a lower priority
    they use the time the moves leave over.  The caller, a request's worker thread,
    waits for the result; hashing on the event loop itself is refused outright, since
    it would stop every request of the process.
    """

    def __init__(self, inner: PasswordHasher, gate: HashGate) -> None:
        super().__init__(time_cost=inner.time_cost, memory_cost=inner.memory_cost, parallelism=inner.parallelism,
                         hash_len=inner.hash_len, salt_len=inner.salt_len, encoding=inner.encoding, type=inner.type)
        self.inner = inner
        self.gate = gate
        self._pool = ThreadPoolExecutor(max_workers=gate.concurrency, thread_name_prefix="argon2",
                                        initializer=_lower_priority)

    @staticmethod
    def _not_on_event_loop() -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        raise RuntimeError("password hashing must not run on the event loop: call it from a worker thread")

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        self._not_on_event_loop()
        with self.gate.slot():
            return self._pool.submit(self.inner.hash, password, salt=salt).result()

    def check_needs_rehash(self, hash: str | bytes) -> bool:
        return self.inner.check_needs_rehash(hash)

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self._not_on_event_loop()
        with self.gate.slot():
            return self._pool.submit(self.inner.verify, hash, password).result()


class SocketCounter:
    """Live sockets open in this process, per user, per address and in all, with a cap on each.

    The cap on all (``per_process``) keeps the process's descriptors for everything else: every
    socket is an open file, and a process at its open-file limit can accept no HTTP request, open no
    database file and reach no Redis (`socket_cap`).  0: no cap on all.
    """

    def __init__(self, per_user: int = 8, per_address: int = 64, per_process: int = 0) -> None:
        self.per_user = per_user
        self.per_address = per_address
        self.per_process = per_process
        self._lock = threading.Lock()
        self._users: dict[int, int] = {}
        self._addresses: dict[str, int] = {}
        self._total = 0

    def full(self) -> bool:
        """The process holds as many live sockets as it may: refuse new ones before any other work."""
        return 0 < self.per_process <= self._total

    def open(self, user_id: int, address: str) -> bool:
        """Count a new socket; ``False`` (and nothing counted) when a cap is reached (`full` says which)."""
        with self._lock:
            if (self.full() or self._users.get(user_id, 0) >= self.per_user
                    or self._addresses.get(address, 0) >= self.per_address):
                return False
            self._users[user_id] = self._users.get(user_id, 0) + 1
            self._addresses[address] = self._addresses.get(address, 0) + 1
            self._total += 1
            return True

    def close(self, user_id: int, address: str) -> None:
        with self._lock:
            if user_id in self._users:
                self._total -= 1
            _release(self._users, user_id)
            _release(self._addresses, address)

    def total(self) -> int:
        with self._lock:
            return self._total


def open_file_limit() -> int:
    """This process's open-file soft limit (a large number when unlimited or unknown)."""
    try:
        import resource
    except ImportError:  # not on Unix
        return 1 << 20
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)


def socket_cap(files: int, reserve_http: int, reserve_services: int, fixed: int = 0) -> int:
    """How many live sockets one process may hold with ``files`` descriptors: what is left after the
    reserves for HTTP connections and for the rest (database pool, Redis, logs, the process's own
    files), at least 1.  ``fixed`` > 0 is taken as it is, but never above what is left."""
    left = max(1, files - reserve_http - reserve_services)
    return min(fixed, left) if fixed > 0 else left


def _release(table: dict[Any, int], key: Any) -> None:
    left = table.get(key, 0) - 1
    if left > 0:
        table[key] = left
    else:
        table.pop(key, None)


def raise_open_file_limit() -> int:
    """Raise this process's open-file limit to the hard limit; the number of files it may now hold.

    Every connection is a file: the common default soft limit of 1,024 let 1,007 idle
    sockets stop every other request.  Unprivileged processes may go up to the hard limit.
    """
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1_048_576)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        return soft
    return target
