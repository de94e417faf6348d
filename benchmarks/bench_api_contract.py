"""The API contract under a longer schemathesis run than ``make test`` makes (issue 14, part 1).

`ludothek.devtools.apifuzz` with more examples per operation (``BENCH_API_EXAMPLES``, default 25):
every check, every phase including the stateful one, against a live portal with a logged-in user
and a game in progress.  Reported: the requests the server answered, the 5xx among them (0 is the
contract) and the failures schemathesis found (0).  Run alone: ``python -m benchmarks api_contract``.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from ludothek.devtools.apifuzz import fuzz

Row = tuple[str, float, str, str]
EXAMPLES = int(os.environ.get("BENCH_API_EXAMPLES", "25"))


def run() -> list[Row]:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        result = fuzz(Path(tmp), max_examples=EXAMPLES, seed=2)
    took = time.perf_counter() - start
    failed = sum(1 for code in result.exit_codes if code != 0)
    note = f"{EXAMPLES} examples/operation, all checks, stateful included, {took:.0f} s"
    rows: list[Row] = [
        ("api contract: requests answered", float(result.requests), "requests", note),
        ("api contract: 5xx answers", float(len(result.server_errors)), "answers", "must be 0"),
        ("api contract: schemathesis passes failing", float(failed), "passes", "must be 0 (of 2 passes)"),
    ]
    if failed or result.server_errors:
        print(result.output[-8000:])
    return rows
