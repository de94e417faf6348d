"""The brake on repeated failed logins (sessions and CSRF: ``ludothek.portal.sessions``)."""

from __future__ import annotations

import threading
import time

from ludothek.storage import TooManyAttempts


class LoginThrottle:
    """Slows down guessing: after a few failures for a name or an address, each try must wait longer.

    The wait doubles with every failure past ``free`` (1 s, 2 s, 4 s ... up to
    ``cap``) and a success for that name clears it.  Kept in memory: several
    server processes each keep their own count, which still bounds guessing.
    """

    def __init__(self, free: int = 3, cap: float = 300.0, window: float = 900.0) -> None:
        self.free = free
        self.cap = cap
        self.window = window
        self._fails: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    def _wait(self, key: str, now: float) -> float:
        count, last = self._fails.get(key, (0, 0.0))
        if now - last > self.window:
            return 0.0
        if count < self.free:
            return 0.0
        delay = min(self.cap, 2.0 ** (count - self.free))
        return max(0.0, last + delay - now)

    def check(self, keys: list[str]) -> None:
        """Raise `TooManyAttempts` if any key must still wait."""
        now = time.monotonic()
        with self._lock:
            wait = max((self._wait(k, now) for k in keys), default=0.0)
        if wait > 0:
            seconds = int(wait) + 1
            raise TooManyAttempts(f"too many failed logins; wait {seconds} seconds", retry_after=seconds)

    def failed(self, keys: list[str]) -> None:
        now = time.monotonic()
        with self._lock:
            for k in keys:
                count, last = self._fails.get(k, (0, 0.0))
                if now - last > self.window:
                    count = 0
                self._fails[k] = (count + 1, now)
            if len(self._fails) > 100_000:  # bound memory under a flood
                self._fails.clear()

    def succeeded(self, keys: list[str]) -> None:
        with self._lock:
            for k in keys:
                self._fails.pop(k, None)
