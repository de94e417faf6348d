"""``make bench``: run every ``benchmarks/bench_*.py`` and print one table.

Each module has ``run() -> list[Row]``; a row is ``(benchmark, value, unit, note)``.
Pass module names (``python -m benchmarks machikoro``) to run only some.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import benchmarks


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    wanted = [a for a in argv if not a.startswith("-")]
    if wanted:
        names = [n for n in names if any(w in n for w in wanted)]
    rows: list[tuple[str, float, str, str]] = []
    for name in names:
        start = time.perf_counter()
        print(f"running {name} ...", file=sys.stderr, flush=True)
        module = importlib.import_module(f"benchmarks.{name}")
        rows.extend(module.run())
        print(f"  {name} took {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    width = max([len(r[0]) for r in rows] + [9])
    print(f"{'benchmark':<{width}}  {'value':>12}  unit      note")
    print("-" * (width + 40))
    for bench, value, unit, note in rows:
        print(f"{bench:<{width}}  {value:>12,.1f}  {unit:<8}  {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
