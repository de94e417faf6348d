"""The security regression probe (issue 28): ``python -m benchmarks.probe_security``.

It keeps the figures an independent probe established, on SQLite and PostgreSQL, and fails
(exit status 1) when a regression bar is broken:

- ``races``: conflicting lobby requests on two server processes (`ludothek.devtools.lobbyraces`,
  seven kinds x ``--rounds``).  Bar: 0 inconsistent games, 0 server errors.
- ``kill``: kill -9 one of two server processes under load, PostgreSQL and Redis
  (`ludothek.devtools.killrun`).  Bar: 0 acknowledged moves lost (and every game whole, every seat
  hears its game again, no server error).
- ``schemathesis``: ``schemathesis run --checks all`` in every phase (`ludothek.devtools.apifuzz`).
  Bar: 0 server errors.
- ``floods``: a login flood and a replay-bomb flood, each with the others' move p50/p99 measured on
  the same run (`benchmarks.probe_floods`).  Bar: 0 server errors in the login flood.  Their
  latency and memory targets (login flood: peak < 500 MB, others' p99 < 100 ms; replay flood:
  others' p99 < 200 ms, every bomb answered within 2 s of CPU) are reported, and only fail the run
  with ``--strict``.

The default scale runs in a few minutes on two cores; ``--full`` is the issue's scale (7 kinds x 40
races, a longer kill run, 20,000-entry replay bombs).  See docs/operations.md, "Security regression
probe".
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ludothek.devtools.postgres import postgres_url, reset_database
from ludothek.devtools.services import REDIS, port_open

PARTS = ("races", "kill", "schemathesis", "floods")
REDIS_URL = f"redis://{REDIS[0]}:{REDIS[1]}/0"


@dataclass
class Figure:
    """One line of the table: a figure, its value, and the bar it must meet (if any)."""

    part: str
    db: str
    name: str
    value: str
    bar: str = ""
    ok: bool | None = None  # None: reported only
    strict_only: bool = False


class Table:
    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.rows: list[Figure] = []

    def add(self, part: str, db: str, name: str, value: object, bar: str = "", ok: bool | None = None,
            strict_only: bool = False) -> None:
        text = f"{value:,.1f}" if isinstance(value, float) else f"{value:,}" if isinstance(value, int) else str(value)
        self.rows.append(Figure(part, db, name, text, bar, ok, strict_only))
        print(f"  {part} {db}: {name} = {text} {bar}", file=sys.stderr, flush=True)

    def gating(self, row: Figure) -> bool:
        return row.ok is not None and (self.strict or not row.strict_only)

    @property
    def broken(self) -> list[Figure]:
        return [r for r in self.rows if self.gating(r) and not r.ok]

    def print(self) -> None:
        heads = ("part", "db", "figure", "value", "bar", "")
        cells = [(r.part, r.db, r.name, r.value, r.bar,
                  "" if r.ok is None else ("ok" if r.ok else "BROKEN" if self.gating(r) else "missed (not --strict)"))
                 for r in self.rows]
        widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(heads)]
        line = "  ".join(f"{{:<{w}}}" if i != 3 else f"{{:>{w}}}" for i, w in enumerate(widths))
        print(line.format(*heads))
        print("-" * (sum(widths) + 2 * len(widths)))
        for c in cells:
            print(line.format(*c))


def _races(args: argparse.Namespace, db: str, url: str, work: Path, table: Table) -> None:
    from ludothek.devtools.lobbyraces import KINDS, run_races
    from ludothek.devtools.servers import serve_processes

    env = {"LUDOTHEK_BOT_DELAY": "0", "LUDOTHEK_RATE_LIMITS": "off", "LUDOTHEK_BOT_WORKERS": "0"}
    with serve_processes(url, 2, work, env) as bases:
        report = run_races(bases, url, args.rounds)
    orders = "; ".join(f"{k} {dict(v)}" for k, v in report.outcomes.items())
    table.add("races", db, "lobby races on two processes", report.total, f"{len(KINDS)} kinds x {args.rounds}")
    table.add("races", db, "inconsistent games", report.bad, "= 0", report.bad == 0)
    table.add("races", db, "server errors", len(report.server_errors), "= 0", not report.server_errors)
    print(f"  races {db}: outcomes {orders}", file=sys.stderr)
    for problem in (report.inconsistent + report.lobby_problems + report.server_errors)[:20]:
        print(f"  races {db}: {problem}", file=sys.stderr)


def _kill(args: argparse.Namespace, db: str, url: str, work: Path, table: Table) -> None:
    from ludothek.devtools.killrun import kill_under_load

    if db != "postgres":
        table.add("kill", db, "kill -9 under load", "skipped", "(PostgreSQL only, as in the issue)")
        return
    if not port_open(REDIS):
        table.add("kill", db, "kill -9 under load", "not run", f"needs Redis on {REDIS[0]}:{REDIS[1]}", False)
        return
    r = kill_under_load(url, REDIS_URL, work, args.kill_games, args.kill_before, args.kill_after)
    table.add("kill", db, "acknowledged moves", r.acked, f"{r.after_kill} after the kill; {args.kill_games} games")
    table.add("kill", db, "acknowledged moves lost", len(r.lost), "= 0", not r.lost)
    table.add("kill", db, "games whose rows disagree", len(r.broken), "= 0", not r.broken)
    table.add("kill", db, "seats behind / deaf after the kill", f"{len(r.behind)} / {r.deaf_seats}", "= 0 / 0",
              not r.behind and r.deaf_seats == 0)
    table.add("kill", db, "moves refused with other than 409", len(r.refused), "= 0", not r.refused)
    table.add("kill", db, "living server /readyz", r.ready_after, "= 200", r.ready_after == 200)
    for m in r.lost[:10]:
        print(f"  kill {db}: lost {m}", file=sys.stderr)


def _schemathesis(args: argparse.Namespace, db: str, url: str, work: Path, table: Table) -> None:
    from ludothek.devtools.apifuzz import fuzz

    run = fuzz(work, max_examples=args.examples, seed=args.seed, db_url=url)
    table.add("schemathesis", db, "requests answered", run.requests, f"--checks all, {args.examples} examples")
    table.add("schemathesis", db, "server errors (5xx)", len(run.server_errors), "= 0", not run.server_errors)
    table.add("schemathesis", db, "schemathesis exit codes", str(run.exit_codes), "= [0, 0]",
              all(c == 0 for c in run.exit_codes))
    (work / "schemathesis.out").write_text(run.output)
    for err in sorted(set(run.server_errors))[:20]:
        print(f"  schemathesis {db}: {err}", file=sys.stderr)
    if any(run.exit_codes):
        print(f"  schemathesis {db}: output in {work / 'schemathesis.out'}; its end:\n{run.output[-3000:]}",
              file=sys.stderr)


def _floods(args: argparse.Namespace, db: str, url: str, work: Path, table: Table) -> None:
    from benchmarks.probe_floods import login_flood_figures, replay_flood_figures

    f = login_flood_figures(url, args.flood_seconds, args.flooders, args.flood_games, work / "login-flood.log")
    load = f"{args.flooders} clients, {args.flood_seconds:.0f} s"
    table.add("floods", db, "login flood: server peak memory (MB)", f.peak_mb, "< 500", f.peak_mb < 500, True)
    table.add("floods", db, "login flood: others' move p50 / p99 (ms)", f"{f.others.p50:.1f} / {f.others.p99:.1f}",
              "p99 < 100", f.others.p99 < 100, True)
    table.add("floods", db, "login flood: served / refused 429 / sent", f"{f.served} / {f.refused} / {f.sent}", load)
    table.add("floods", db, "login flood: server errors", f.server_errors, "= 0", f.server_errors == 0)
    if db == "postgres":
        reset_database(url)  # a fresh database for the second flood
    r = replay_flood_figures(url if db == "postgres" else url.replace(".sqlite3", "-replay.sqlite3"),
                             args.replay_moves, args.replay_pairs, args.replay_bombs, args.flood_games,
                             args.replay_timeout, log=work / "replay-flood.log", same=args.replay_same)
    size = f"{r.entries:,} entries, {r.kilobytes:,.0f} KB"
    table.add("floods", db, "replay flood: bombs' answers", " ".join(str(s) for s in r.statuses), size)
    table.add("floods", db, "replay flood: bombs' seconds (max)", max(r.seconds), f"all: {' '.join(f'{s:.1f}' for s in r.seconds)}")
    per_bomb = r.cpu_seconds / max(1, len(r.statuses))
    table.add("floods", db, "replay flood: server CPU s per bomb", per_bomb, "< 2", per_bomb < 2, True)
    table.add("floods", db, "replay flood: server memory start / peak / end (MB)",
              f"{r.start_mb:.0f} / {r.peak_mb:.0f} / {r.end_mb:.0f}", "peak - start < 50 per bomb",
              r.peak_mb - r.start_mb < 50 * len(r.statuses), True)
    table.add("floods", db, "replay flood: others' move p50 / p99 (ms)", f"{r.others.p50:.1f} / {r.others.p99:.1f}",
              f"p99 < 200 ({len(r.others.ms)} moves; calm p99 {r.calm.p99:.1f})", r.others.p99 < 200, True)
    table.add("floods", db, "replay flood: server errors", r.server_errors, "= 0 (only with --strict)",
              r.server_errors == 0, True)
    if r.server_errors:
        print(f"  floods {db}: the server's log: {work / 'replay-flood.log'} (--keep keeps it)", file=sys.stderr)


RUNNERS: dict[str, Callable[[argparse.Namespace, str, str, Path, Table], None]] = {
    "races": _races, "kill": _kill, "schemathesis": _schemathesis, "floods": _floods,
}

#: ``--full``: the issue's scale.
FULL = {"rounds": 40, "kill_games": 12, "kill_before": 100, "kill_after": 20.0, "examples": 20,
        "flood_seconds": 20.0, "replay_pairs": 9850}


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probe_security", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--only", default=",".join(PARTS), help="comma-separated parts: " + ", ".join(PARTS))
    p.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    p.add_argument("--full", action="store_true", help="the issue's scale: " + ", ".join(f"{k}={v}" for k, v in FULL.items()))
    p.add_argument("--strict", action="store_true", help="also fail on the floods' latency, CPU and memory targets")
    p.add_argument("--rounds", type=int, default=10, help="rounds of each of the seven kinds of lobby race")
    p.add_argument("--kill-games", type=int, default=6, help="games played across the two processes")
    p.add_argument("--kill-before", type=int, default=15, help="moves the doomed process acknowledges first")
    p.add_argument("--kill-after", type=float, default=3.0, help="seconds of play on the living process")
    p.add_argument("--examples", type=int, default=5, help="schemathesis examples per operation")
    p.add_argument("--seed", type=int, default=1, help="schemathesis seed")
    p.add_argument("--flood-seconds", type=float, default=8.0, help="the login flood's window")
    p.add_argument("--flooders", type=int, default=40, help="clients in the login flood")
    p.add_argument("--flood-games", type=int, default=5, help="pairs of other players timed during the floods")
    p.add_argument("--replay-moves", type=int, default=300, help="real entries in the replay bomb")
    p.add_argument("--replay-pairs", type=int, default=2000, help="move/undo pairs after them")
    p.add_argument("--replay-bombs", type=int, default=4, help="bombs sent at once")
    p.add_argument("--replay-same", action="store_true", help="every bomb sends the same record (else each its own)")
    p.add_argument("--replay-timeout", type=float, default=600.0, help="seconds a bomb may take")
    p.add_argument("--keep", action="store_true", help="keep the work folder (server logs, schemathesis output)")
    args = p.parse_args(argv)
    if args.full:
        for key, value in FULL.items():
            if getattr(args, key) == p.get_default(key):
                setattr(args, key, value)
    args.parts = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = set(args.parts) - set(PARTS)
    if unknown:
        p.error(f"unknown parts {sorted(unknown)}; choose from {', '.join(PARTS)}")
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    table = Table(args.strict)
    dbs = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    work = Path(tempfile.mkdtemp(prefix="probe-security-"))
    started = time.perf_counter()
    for db in dbs:
        url = postgres_url() if db == "postgres" else None
        if db == "postgres" and url is None:
            table.add("all", db, "PostgreSQL", "unreachable", "needed for --db postgres", False)
            continue
        for part in args.parts:
            folder = work / f"{part}-{db}"
            folder.mkdir()
            part_url = url or f"sqlite:///{folder / 'probe.sqlite3'}"
            if url is not None:
                reset_database(url)
            print(f"running {part} on {db} ...", file=sys.stderr, flush=True)
            begun = time.perf_counter()
            try:
                RUNNERS[part](args, db, part_url, folder, table)
            except Exception as exc:  # a part that could not run is a failure, with its reason
                traceback.print_exc()
                table.add(part, db, "run", f"failed: {exc!r}"[:120], "runs to the end", False)
            print(f"  {part} on {db} took {time.perf_counter() - begun:.0f} s", file=sys.stderr, flush=True)
        if url is not None:
            reset_database(url)
    table.print()
    broken = table.broken
    print(f"\n{len(broken)} bar(s) broken; {time.perf_counter() - started:.0f} s; "
          f"work folder {work if args.keep else '(removed)'}")
    if not args.keep:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
