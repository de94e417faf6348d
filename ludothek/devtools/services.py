"""Make sure the services the tests use are there: Debian's chromium, PostgreSQL, Redis.

``make test`` runs this first.  It installs or starts what it can and says
what it could not; the tests that need a missing service then skip with that
reason (or fail, when ``LUDOTHEK_REQUIRE_SERVICES=1`` as in CI).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import time

CHROMIUM = "/usr/bin/chromium"
POSTGRES = ("127.0.0.1", 5432)
REDIS = ("127.0.0.1", 6379)


def port_open(addr: tuple[str, int], timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection(addr, timeout=timeout):
            return True
    except OSError:
        return False


def _run(cmd: list[str], timeout: float = 600) -> bool:
    try:
        return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def ensure_chromium() -> str | None:
    """Install Debian's chromium when missing; the problem as text, or ``None``."""
    if os.path.exists(CHROMIUM):
        return None
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return "chromium is not installed and this user cannot apt-get install it"
    print("services: installing Debian's chromium for the browser tests ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    ok = subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True).returncode == 0
    ok = ok and subprocess.run(
        ["apt-get", "install", "-y", "-qq", "chromium", "fonts-dejavu-core"], env=env, capture_output=True
    ).returncode == 0
    return None if ok and os.path.exists(CHROMIUM) else "apt-get install chromium failed"


def ensure_postgres() -> str | None:
    if port_open(POSTGRES):
        return None
    versions = [os.path.basename(p) for p in glob.glob("/etc/postgresql/*")]
    if versions and shutil.which("pg_ctlcluster"):
        _run(["pg_ctlcluster", "--skip-systemctl-redirect", versions[0], "main", "start"], 60)
        for _ in range(20):
            if port_open(POSTGRES):
                return None
            time.sleep(0.25)
    return "PostgreSQL is not reachable on 127.0.0.1:5432"


def ensure_redis() -> str | None:
    if port_open(REDIS):
        return None
    if shutil.which("redis-server"):
        _run(["redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port", "6379",
              "--save", "", "--appendonly", "no"], 30)
        for _ in range(20):
            if port_open(REDIS):
                return None
            time.sleep(0.25)
    return "Redis is not reachable on 127.0.0.1:6379"


def main() -> None:
    for name, check in (("chromium", ensure_chromium), ("postgres", ensure_postgres), ("redis", ensure_redis)):
        problem = check()
        print(f"services: {name}: {'ok' if problem is None else problem}", flush=True)


if __name__ == "__main__":
    main()
