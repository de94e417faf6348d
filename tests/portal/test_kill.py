"""Kill -9 one of two server processes under load on PostgreSQL.

Every acknowledged move must be in the database afterwards, the other process must keep serving,
and the live updates must reach every seat (the seats of the dead server reconnect to the living
one, as behind a load balancer).  The run itself is `ludothek.devtools.killrun.kill_under_load`,
which ``python -m benchmarks.probe_security`` runs at a larger scale.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ludothek.devtools.killrun import kill_under_load
from ludothek.devtools.postgres import UNREACHABLE, postgres_url, reset_database
from ludothek.devtools.services import REDIS, port_open
from tests.conftest import needs

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

GAMES = 6
#: Moves the doomed server must have acknowledged before it is killed (it is under load, not idle).
BEFORE_KILL = 15
AFTER_KILL = 3.0
REDIS_URL = f"redis://{REDIS[0]}:{REDIS[1]}/0"


def test_kill_one_of_two_servers_under_load(tmp_path: Path) -> None:
    url = postgres_url()
    needs(None if url else UNREACHABLE)
    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    assert url is not None
    reset_database(url)
    try:
        report = kill_under_load(url, REDIS_URL, tmp_path, GAMES, BEFORE_KILL, AFTER_KILL)
    finally:
        reset_database(url)
    assert report.before_kill_on_doomed >= BEFORE_KILL, "the second server served no load"
    assert report.acked > 20, "too little load to mean anything"
    assert report.after_kill > 0, "the living server served no move after the kill"
    assert report.refused == []
    # Every seat of the dead server got live updates again after the kill (through the living one).
    assert report.deaf_seats == 0
    assert report.behind == [], "seats that never heard their game's last moves"
    assert report.lost == [], "acknowledged moves not in the database"
    assert report.broken == []  # every game whole: its counter and its rows agree
    assert report.ready_after == 200
    assert report.passed
