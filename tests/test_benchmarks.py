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


def test_bench_research_smoke_runs() -> None:
    """Issue 33's figures: the overhead rows of every game and a one-game OpenSpiel MCTS match, tiny."""
    from benchmarks import bench_research

    rows = bench_research.run(smoke=True)
    names = [r[0] for r in rows]
    assert sum("PettingZoo random playout" in n for n in names) == 4
    assert names[-1].startswith("research OpenSpiel MCTS vs hard") and all(r[1] >= 0 for r in rows)
