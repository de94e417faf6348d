"""Swiss simulator (issue 31): how well `pair_swiss` and `standings` do with players of random strength.

Model: each simulated player has a strength θ drawn from a normal distribution with spread ``SIGMA``
(on the log scale of the Plackett–Luce model); at a table the places are drawn one after another,
each remaining player taking the next place with probability proportional to e^θ. With two players
this is the Elo model, so σ = 1.15 is a field whose ratings spread by 200 Elo points (one standard
deviation; ln 10 / 400 · 200). The strongest of 64 such players wins a four-player table of
average players about 85 % of the time; the sensitivity rows show other spreads.

Measured per configuration (entrants, table size, 5 rounds):

* **repeat %**: of all pairs of players seated together, the share who had met before;
* **seat imb.**: the worst player's seat imbalance at the end (most-used seat position minus
  least-used, over all k positions, so it covers who moves first), and the share of players above 1;
* **top 3 %**: how often the strongest player finishes in the top 3 of the standings;
* **pair ms**: the slowest `pair_swiss` call, in CPU time of this process (``wall`` beside it: on a
  shared machine the wall clock also counts other people's work).

Targets (issue 31), for 64 entrants at 4-player tables: repeats ≤ 5 %, seat imbalance ≤ 1 per
player, strongest in the top 3 in ≥ 80 % of runs; pairing 256 entrants in < 1 s.

Run alone: ``python -m benchmarks.bench_tournaments`` (``--quick`` for a fast look; ``--long`` for
events with many rounds).
"""

from __future__ import annotations

import itertools
import math
import random
import sys
import time
from dataclasses import dataclass

from ludothek.services.tournaments.pairing import (
    Entrant,
    PastGame,
    meetings,
    pair_swiss,
    seat_counts,
    seat_imbalance,
)
from ludothek.services.tournaments.standings import standings

Row = tuple[str, float, str, str]
ROUNDS = 5
SIGMA = 1.15  # 200 Elo points (module docstring)
HEADLINE_RUNS = 200
SENSITIVITY_RUNS = 100
GRID_RUNS = {16: 40, 64: 25, 256: 6}


@dataclass
class Outcome:
    """What one configuration measured, summed over its runs."""

    runs: int = 0
    pairs: int = 0
    repeats: int = 0
    worst_imbalance: int = 0
    players: int = 0
    players_over_1: int = 0
    strongest_top3: int = 0
    slowest: float = 0.0  # CPU seconds: the machine running the benchmark may be shared
    slowest_wall: float = 0.0

    @property
    def repeat_pct(self) -> float:
        return 100.0 * self.repeats / max(self.pairs, 1)

    @property
    def top3_pct(self) -> float:
        return 100.0 * self.strongest_top3 / max(self.runs, 1)

    @property
    def over_1_pct(self) -> float:
        return 100.0 * self.players_over_1 / max(self.players, 1)


def places(seats: tuple[int, ...], strength: dict[int, float], rng: random.Random) -> tuple[int, ...]:
    """Plackett–Luce: draw the winner in proportion to e^θ, then second among the rest, and so on."""
    left = list(seats)
    order = []
    while left:
        weights = [math.exp(strength[s]) for s in left]
        pick = rng.random() * sum(weights)
        chosen = len(left) - 1
        for i, w in enumerate(weights):
            pick -= w
            if pick <= 0:
                chosen = i
                break
        order.append(left.pop(chosen))
    rank = {s: i + 1 for i, s in enumerate(order)}
    return tuple(rank[s] for s in seats)


def simulate(n: int, k: int, sigma: float, seed: int, out: Outcome, swiss: bool = True) -> None:
    """One tournament of ``ROUNDS`` rounds; adds its figures to ``out``."""
    rng = random.Random(f"sim/{n}/{k}/{sigma}/{seed}")
    strength = {i: rng.gauss(0.0, sigma) for i in range(n)}
    entrants = [Entrant(i) for i in range(n)]
    history: list[PastGame] = []
    byes: dict[int, int] = {}
    for r in range(1, ROUNDS + 1):
        if swiss:
            start, cpu = time.perf_counter(), time.process_time()
            rnd = pair_swiss(entrants, history, byes, k, r, seed)
            out.slowest = max(out.slowest, time.process_time() - cpu)
            out.slowest_wall = max(out.slowest_wall, time.perf_counter() - start)
            tables = [t.seats for t in rnd.tables]
            sitting_out = list(rnd.byes)
        else:
            ids = list(range(n))
            rng.shuffle(ids)
            cut = n - n % k
            tables = [tuple(ids[i:i + k]) for i in range(0, cut, k)]
            sitting_out = ids[cut:]
        met = meetings(history)
        for seats in tables:
            for a, b in itertools.combinations(seats, 2):
                out.pairs += 1
                out.repeats += 1 if b in met.get(a, {}) else 0
            history.append(PastGame(r, seats, places(seats, strength, rng)))
        for b in sitting_out:
            byes[b] = byes.get(b, 0) + 1
    final = standings(entrants, history, byes, k)
    strongest = max(strength, key=strength.__getitem__)
    out.runs += 1
    out.strongest_top3 += next(s.rank for s in final if s.entrant == strongest) <= 3
    counts = seat_counts(history, k)
    for i in range(n):
        imbalance = seat_imbalance(counts.get(i, [0] * k))
        out.worst_imbalance = max(out.worst_imbalance, imbalance)
        out.players += 1
        out.players_over_1 += imbalance > 1


def measure(n: int, k: int, runs: int, sigma: float = SIGMA, swiss: bool = True) -> Outcome:
    out = Outcome()
    for seed in range(runs):
        simulate(n, k, sigma, seed, out, swiss)
    return out


def run(quick: bool = False) -> list[Row]:
    scale = 0.1 if quick else 1.0
    rows: list[Row] = []
    lines = [f"Swiss simulator: {ROUNDS} rounds, strengths N(0, {SIGMA}²) Plackett–Luce", "",
             f"{'entrants':>8} {'table':>5} {'runs':>5} {'repeat %':>9} {'seat imb.':>9} {'imb>1 %':>8} "
             f"{'top 3 %':>8} {'pair ms':>8} {'wall ms':>8}"]
    for k in (2, 3, 4, 5):
        for n in (16, 64, 256):
            runs = HEADLINE_RUNS if (n, k) == (64, 4) else GRID_RUNS[n]
            runs = max(2, int(runs * scale))
            o = measure(n, k, runs)
            lines.append(f"{n:>8} {k:>5} {runs:>5} {o.repeat_pct:>9.2f} {o.worst_imbalance:>9} "
                         f"{o.over_1_pct:>8.2f} {o.top3_pct:>8.1f} {1000 * o.slowest:>8.0f} {1000 * o.slowest_wall:>8.0f}")
            tag = f"tournaments {n}x{k}p"
            rows.append((f"{tag} repeat opponents", o.repeat_pct, "%", f"{runs} runs; target <= 5 % at 64x4p"))
            rows.append((f"{tag} worst seat imbalance", float(o.worst_imbalance), "seats",
                         f"{o.over_1_pct:.2f} % of players above 1; target <= 1"))
            rows.append((f"{tag} strongest in top 3", o.top3_pct, "%", f"sigma {SIGMA}; target >= 80 % at 64x4p"))
            if n == 256:
                rows.append((f"{tag} slowest pairing", 1000 * o.slowest, "ms",
                             f"CPU; wall {1000 * o.slowest_wall:.0f} ms; target < 1000 ms"))
    lines.append("")
    lines.append("64 entrants, 4-player tables: the strongest in the top 3 by spread of strength")
    base = measure(64, 4, max(2, int(SENSITIVITY_RUNS * scale)), SIGMA, swiss=False)
    lines.append(f"  sigma {SIGMA} (200 Elo), random tables instead of Swiss: {base.top3_pct:.1f} %")
    rows.append(("tournaments 64x4p random tables, top 3", base.top3_pct, "%", "baseline: no Swiss"))
    for sigma, elo in ((0.58, 100), (1.73, 300), (2.3, 400)):
        o = measure(64, 4, max(2, int(SENSITIVITY_RUNS * scale)), sigma)
        lines.append(f"  sigma {sigma} ({elo} Elo): {o.top3_pct:.1f} % (repeats {o.repeat_pct:.2f} %)")
        rows.append((f"tournaments 64x4p sigma {sigma}, top 3", o.top3_pct, "%", f"{elo} Elo spread"))
    print("\n".join(lines), file=sys.stderr, flush=True)
    return rows


def long_events() -> None:
    """Events with many rounds, where repeats become unavoidable: repeated pairs in all, slowest CPU."""
    for n, k, rounds in ((64, 4, 15), (40, 4, 13), (30, 3, 14), (24, 2, 23), (256, 4, 12)):
        rng = random.Random(f"long/{n}/{k}")
        strength = {i: rng.gauss(0.0, SIGMA) for i in range(n)}
        entrants = [Entrant(i) for i in range(n)]
        history: list[PastGame] = []
        byes: dict[int, int] = {}
        worst, repeats = 0.0, 0
        for r in range(1, rounds + 1):
            cpu = time.process_time()
            rnd = pair_swiss(entrants, history, byes, k, r, 1)
            worst = max(worst, time.process_time() - cpu)
            met = meetings(history)
            repeats += sum(1 for t in rnd.tables for a, b in itertools.combinations(t.seats, 2) if b in met.get(a, {}))
            history += [PastGame(r, t.seats, places(t.seats, strength, rng)) for t in rnd.tables]
            for b in rnd.byes:
                byes[b] = byes.get(b, 0) + 1
        print(f"{n} entrants, {k}-player tables, {rounds} rounds: {repeats} repeated pairs, "
              f"slowest pairing {1000 * worst:.0f} ms CPU")


if __name__ == "__main__":
    if "--long" in sys.argv:
        long_events()
        raise SystemExit(0)
    for bench, value, unit, note in run(quick="--quick" in sys.argv):
        print(f"{bench:<45} {value:>10.2f} {unit:<6} {note}")
