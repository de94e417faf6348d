"""`make bench`'s side-by-side comparison with boardgame.io's in-memory server (`benchmarks.peers`).

Installs boardgame.io with npm the first time (skipped, with the reason printed, where node or npm is
missing or the install fails); 3 interleaved rounds of 10 s flat out and 3 at light load for each
server.  ``BENCH_PEERS_ROUNDS`` and ``BENCH_PEERS_SECONDS`` change them.
"""

from __future__ import annotations

import os

from benchmarks.peers.compare import WORKLOAD_DIFFERENCES, measure


def run() -> list[tuple[str, float, str, str]]:
    print(WORKLOAD_DIFFERENCES)
    return measure(rounds=int(os.environ.get("BENCH_PEERS_ROUNDS", "3")),
                   window=float(os.environ.get("BENCH_PEERS_SECONDS", "10")))
