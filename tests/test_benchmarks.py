"""`make bench` runs every ``benchmarks/bench_*.py`` through its ``run()``: each must have one."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

import benchmarks


def test_every_benchmark_module_has_a_run_function_for_make_bench() -> None:
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    assert len(names) > 10
    missing = []
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        run = getattr(module, "run", None)
        needed = [] if run is None else [p for p in inspect.signature(run).parameters.values()
                                         if p.default is inspect.Parameter.empty]
        if run is None or not callable(run) or needed:
            missing.append(name)
    assert not missing, f"benchmarks without a run() that make bench can call: {missing}"


def test_bench_research_smoke_runs() -> None:
    """Issue 33's figures: the overhead rows of every game and a one-game OpenSpiel MCTS match, tiny."""
    from benchmarks import bench_research

    rows = bench_research.run(smoke=True)
    names = [r[0] for r in rows]
    assert sum("PettingZoo random playout" in n for n in names) == 4
    assert names[-1].startswith("research OpenSpiel MCTS vs hard") and all(r[1] >= 0 for r in rows)
def test_the_peer_comparison_runs_small_and_says_why_boardgame_io_is_missing(monkeypatch: Any) -> None:
    """`benchmarks.peers` end to end at a tiny size, without the network: Ludothek's side is measured; the
    boardgame.io side runs when an earlier `make bench` installed it, else it is skipped with the reason."""
    from benchmarks.peers import compare

    rows = {r[0]: r for r in compare.measure(rounds=1, window=1.0, install=False, light=False, tables=2,
                                             warmup=0.5)}
    ours = rows["peers Ludothek (SQLite): server CPU per move"]
    assert ours[1] > 0 and rows["peers Ludothek (SQLite): moves/s"][1] > 0
    missing = compare.peer_missing(install=False)
    if missing is None:
        assert rows["peers boardgame.io (in memory): moves/s"][1] > 0
        assert "peers: Ludothek / boardgame.io CPU per move" in rows
    else:
        assert rows["peers boardgame.io"][3] == missing
    monkeypatch.setattr(compare.shutil, "which", lambda name: None)
    assert compare.peer_missing(install=True) == "boardgame.io skipped: node is not installed (apt-get install nodejs npm)"


def test_the_peer_comparison_says_how_the_workloads_differ() -> None:
    from benchmarks.peers.compare import WORKLOAD_DIFFERENCES

    for topic in ("Game:", "Durability:", "The move:", "The other seat:", "Clients:"):
        assert topic in WORKLOAD_DIFFERENCES
def test_the_open_data_benchmark_runs_small() -> None:
    """`benchmarks/bench_open_data.py` at a tiny size: every record of its dump replays to its result."""
    from benchmarks import bench_open_data

    rows = {name: (value, note) for name, value, _unit, note in bench_open_data.run(games=12)}
    assert rows["open data: replayed to identical results"][0] == 100.0
    assert "12 records, 0 mismatched, 0 corrupt" in rows["open data: dump verify"][1]


def test_the_statistics_benchmark_runs_small() -> None:
    """`benchmarks/bench_statistics.py` at a tiny size: the rebuild counts every stored game."""
    from benchmarks import bench_statistics

    [(name, value, unit, note)] = bench_statistics.run(games=20)
    assert name == "statistics: rebuild" and unit == "s CPU" and value >= 0 and note.startswith("20 games")
