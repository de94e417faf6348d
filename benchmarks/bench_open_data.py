"""Open data (issue 32): a generated 10,000-game month exported and every record replayed to its result.

- *generate*: 10,000 finished, rated games (random playouts of all four games, with undos, bots and
  players who left; `ludothek.devtools.gamefill`) written straight into a fresh SQLite database.
- *export*: `OpenData.run_month` for the month: claim, records with names, the archive (CPU seconds
  of this process, and the file's size per game).
- *verify*: `verify_dump` on the archive: the checksums, then every record replayed and compared
  with its stored result.  The figure that matters is *replayed to identical results*: it must be
  100 % (a benchmark reports it; the suite's test asserts it for 300 games).

``python -m benchmarks open_data``; ``BENCH_OPEN_DATA_GAMES`` changes the number of games.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from ludothek.devtools.gamefill import add_users, fill
from ludothek.services import Site
from ludothek.services.opendata import verify_dump
from ludothek.storage import make_engine, migrate

Row = tuple[str, float, str, str]

GAMES = int(os.environ.get("BENCH_OPEN_DATA_GAMES", "10000"))
USERS = 500


def run(games: int = GAMES) -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'open_data.sqlite3'}"
        engine = make_engine(url)
        migrate(engine)
        site = Site(engine)
        users = add_users(engine, USERS)
        for uid in users[::10]:  # a tenth of the players opted out: their names become pseudonyms
            site.opendata.set_pseudonymous(uid, True)
        wall, cpu = time.perf_counter(), time.process_time()
        fill(engine, games, users, datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC), seed=32)
        generate = (time.perf_counter() - wall, time.process_time() - cpu)
        after = datetime(2026, 11, 2, 3, tzinfo=UTC)
        wall, cpu = time.perf_counter(), time.process_time()
        info = site.opendata.run_month("2026-10", Path(folder) / "exports", "bench", lambda: after)
        export = (time.perf_counter() - wall, time.process_time() - cpu)
        assert info is not None
        wall, cpu = time.perf_counter(), time.process_time()
        report = verify_dump(Path(folder) / "exports" / info.file)
        verify = (time.perf_counter() - wall, time.process_time() - cpu)
        engine.dispose()
    share = 100.0 * report.ok / max(1, report.games)
    return [
        ("open data: games generated and stored", generate[1], "s CPU", f"{games} games; {generate[0]:.1f} s wall"),
        ("open data: export of the month", export[1], "s CPU",
         f"{info.games} games, {info.bytes / max(1, info.games):.0f} bytes per game; {export[0]:.1f} s wall"),
        ("open data: dump verify", verify[1], "s CPU",
         f"{report.games} records, {report.mismatches} mismatched, {report.corrupt} corrupt; {verify[0]:.1f} s wall"),
        ("open data: replayed to identical results", share, "%", f"{report.ok} of {report.games}; target 100"),
    ]


if __name__ == "__main__":
    for name, value, unit, note in run(int(sys.argv[1]) if len(sys.argv) > 1 else GAMES):
        print(f"{name:45} {value:10.2f} {unit:6} {note}")
