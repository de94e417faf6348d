"""CPU time of the other programs a benchmark drives: the database, Redis, the bot workers.

A portal benchmark on one machine shares its cores with PostgreSQL, Redis and
the bot worker processes; how many moves per second the servers reach depends
on what those take, so the benchmarks print it beside the servers' own CPU.
Read from Linux's ``/proc`` (nothing elsewhere).  A process that ends during a
measuring window drops out of it, so the figures suit windows in which the
connections stay open (the servers' pools and the workers live throughout).
"""

from __future__ import annotations

import contextlib
import os

#: The groups reported, in this order.
GROUPS = ("PostgreSQL", "Redis", "bot workers")


def _group(comm: str, pid: str) -> str | None:
    if comm == "postgres":
        return "PostgreSQL"
    if comm == "redis-server":
        return "Redis"
    if comm == "python" or comm.startswith("python3"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"ludothek.cli\0bots" in f.read():
                    return "bot workers"
        except OSError:
            return None
    return None


def cpu_by_group() -> dict[str, float]:
    """CPU seconds (user + system) used so far by the machine's live processes of each group in `GROUPS`."""
    ticks = dict.fromkeys(GROUPS, 0)
    with contextlib.suppress(OSError):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            comm, _, rest = stat.partition(" (")[2].rpartition(") ")
            group = _group(comm, pid)
            if group is not None:
                fields = rest.split()
                ticks[group] += int(fields[11]) + int(fields[12])  # utime, stime
    hz = os.sysconf("SC_CLK_TCK")
    return {group: t / hz for group, t in ticks.items()}


def database_cpu() -> float:
    """CPU seconds used so far by the machine's live PostgreSQL processes."""
    return cpu_by_group()["PostgreSQL"]


def shares(before: dict[str, float], after: dict[str, float], seconds: float) -> dict[str, float]:
    """Each group's share of one core between two readings ``seconds`` apart."""
    return {group: (after[group] - before[group]) / seconds for group in GROUPS}
