"""`make bench` runs every ``benchmarks/bench_*.py`` through its ``run()``: each must have one."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

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
