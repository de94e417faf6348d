"""Open data (issue 32): the monthly export on SQLite and PostgreSQL, exactly once, never published half
written, with stable pseudonyms; and ``ludothek dump verify`` on good, tampered and corrupt files."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
import tarfile
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete, select

from ludothek.devtools.gamefill import add_users, fill
from ludothek.services import Site
from ludothek.services.opendata import LostClaim, verify_dump
from ludothek.services.opendata.exports import LEASE
from ludothek.services.opendata.layout import PSEUDONYM_PREFIX, pseudonym
from ludothek.storage import make_engine, migrate
from ludothek.storage.models import OpenDataExport
from ludothek.workers.exports import ExportJob

OCT = datetime(2026, 10, 1, tzinfo=UTC)
NOV = datetime(2026, 11, 1, tzinfo=UTC)
AFTER = datetime(2026, 11, 2, 3, 0, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[2]


def site_with_games(url: str, games: int = 40, seed: int = 1) -> tuple[Site, list[int]]:
    engine = make_engine(url)
    migrate(engine)
    site = Site(engine)
    users = add_users(engine, 12)
    fill(engine, games, users, OCT, NOV, seed=seed)
    return site, users


def records_of(archive: Path) -> list[dict[str, Any]]:
    with tarfile.open(archive) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("games.jsonl.gz"))
        data = tar.extractfile(member).read()  # type: ignore[union-attr]
    return [json.loads(line) for line in gzip.decompress(data).splitlines()]


def test_a_month_is_exported_once_with_readme_checksums_and_records_that_replay(any_db: str, tmp_path: Path) -> None:
    site, _ = site_with_games(any_db)
    fill(site.engine, 3, add_users(site.engine, 4, "late"), NOV, NOV + timedelta(days=3), seed=9)  # next month's
    assert site.opendata.due_months(NOV + timedelta(minutes=30)) == []  # not settled yet
    assert site.opendata.due_months(AFTER) == ["2026-10"]
    job = ExportJob(site, tmp_path, clock=lambda: AFTER)
    assert job.run_once(AFTER) == 1
    assert job.run_once(AFTER) == 0  # nothing more is due
    [info] = site.opendata.published()
    assert (info.month, info.games) == ("2026-10", 40)
    archive = tmp_path / info.file
    assert archive.stat().st_size == info.bytes and info.file.endswith(".tar")
    with tarfile.open(archive) as tar:
        names = sorted(m.name for m in tar.getmembers())
        readme = tar.extractfile("ludothek-games-2026-10/README.md").read().decode()  # type: ignore[union-attr]
        sums = tar.extractfile("ludothek-games-2026-10/SHA256SUMS").read().decode()  # type: ignore[union-attr]
    assert names == [f"ludothek-games-2026-10/{n}" for n in ("README.md", "SHA256SUMS", "games.jsonl.gz")]
    assert "ludothek dump verify" in readme and "CC0" in readme and "40 games" in readme
    assert "games.jsonl.gz" in sums and "README.md" in sums
    records = records_of(archive)
    assert len(records) == 40 and all(r["format"] == "ludothek-record/1" for r in records)
    finished = [r["meta"]["finished_at"] for r in records]
    assert finished == sorted(finished) and all(f.startswith("2026-10") for f in finished)
    report = verify_dump(archive)
    assert report.passed and report.ok == 40, report.problems
    # `sha256sum -c` agrees with the checksum file inside.
    subprocess.run(["tar", "xf", str(archive), "-C", str(tmp_path)], check=True)
    check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=tmp_path / "ludothek-games-2026-10",
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_same_games_give_the_same_bytes(tmp_path: Path) -> None:
    """The archive is deterministic: writing a month again gives the very same file (and checksum)."""
    url = f"sqlite:///{tmp_path / 'a.sqlite3'}"
    site, _ = site_with_games(url, games=10)
    first = site.opendata.run_month("2026-10", tmp_path / "one", "w1", lambda: AFTER)
    with site.engine.begin() as conn:
        conn.execute(delete(OpenDataExport))
    second = site.opendata.run_month("2026-10", tmp_path / "two", "w2", lambda: AFTER + timedelta(hours=5))
    assert first is not None and second is not None
    assert first.sha256 == second.sha256 and first.file == second.file


def test_exactly_once_when_many_workers_race(any_db: str, tmp_path: Path) -> None:
    site, _ = site_with_games(any_db, games=30)
    out = tmp_path / "out"
    results: list[Any] = []
    barrier = threading.Barrier(4)

    def worker(n: int) -> None:
        own = Site(make_engine(any_db))  # a process of its own, as far as the database can tell
        barrier.wait()
        try:
            results.append(own.opendata.run_month("2026-10", out, f"w{n}", lambda: AFTER))
        finally:
            own.engine.dispose()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done = [r for r in results if r is not None]
    assert len(results) == 4 and len(done) == 1
    assert [p.name for p in out.iterdir()] == [done[0].file]
    with site.engine.begin() as conn:
        rows = conn.execute(select(OpenDataExport.month, OpenDataExport.attempts, OpenDataExport.status)).all()
    assert [tuple(r) for r in rows] == [("2026-10", 1, "done")]


def test_exactly_once_across_processes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'p.sqlite3'}"
    site, _ = site_with_games(url, games=30)
    folder = tmp_path / "exports"
    code = ("import sys; from datetime import datetime, UTC; from ludothek.services import Site; "
            "from ludothek.storage import make_engine; from ludothek.workers.exports import ExportJob; "
            "now = datetime(2026, 11, 2, 3, tzinfo=UTC); "
            f"job = ExportJob(Site(make_engine({url!r})), {str(folder)!r}, clock=lambda: now); "
            "print(job.run_once(now))")
    procs = [subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True)
             for _ in range(3)]
    outputs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert sorted(outputs) == ["0", "0", "1"], outputs
    assert len(site.opendata.published()) == 1 and len(list(folder.iterdir())) == 1


def test_a_writer_that_dies_publishes_nothing_and_the_month_is_written_again(any_db: str, tmp_path: Path) -> None:
    site, _ = site_with_games(any_db, games=30)
    tmp_path = tmp_path / "out"

    def die(count: int) -> None:
        if count == 20:
            raise KeyboardInterrupt  # as a kill would stop it: mid-way through the records

    site.opendata.progress = die
    with pytest.raises(KeyboardInterrupt):
        site.opendata.run_month("2026-10", tmp_path, "doomed", lambda: AFTER)
    site.opendata.progress = None
    assert site.opendata.published() == [] and list(tmp_path.iterdir()) == []
    # A partial file of a writer killed outright (left behind) is never listed, and is swept by the next claim.
    (tmp_path / ".ludothek-games-2026-10.dead.partial").write_bytes(b"half a file")
    # The claim still holds until its lease runs out: nobody else writes meanwhile.
    assert site.opendata.run_month("2026-10", tmp_path, "other", lambda: AFTER + LEASE / 2) is None
    later = AFTER + LEASE + timedelta(seconds=1)
    info = site.opendata.run_month("2026-10", tmp_path, "other", lambda: later)
    assert info is not None and info.games == 30
    assert [p.name for p in tmp_path.iterdir()] == [info.file]
    assert verify_dump(tmp_path / info.file).passed
    with site.engine.begin() as conn:
        assert conn.execute(select(OpenDataExport.attempts)).scalar() == 2


def test_a_writer_killed_by_a_signal_leaves_nothing_published(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    site, _ = site_with_games(url, games=30)
    folder = tmp_path / "exports"
    ready = tmp_path / "ready"
    code = ("import time, pathlib; from datetime import datetime, UTC; from ludothek.services import Site; "
            "from ludothek.storage import make_engine; "
            f"site = Site(make_engine({url!r})); now = datetime(2026, 11, 2, 3, tzinfo=UTC); "
            f"site.opendata.progress = lambda n: (pathlib.Path({str(ready)!r}).touch(), time.sleep(60)) if n == 10 "
            "else None; "
            f"site.opendata.run_month('2026-10', pathlib.Path({str(folder)!r}), 'victim', lambda: now)")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO)
    try:
        for _ in range(600):
            if ready.exists():
                break
            threading.Event().wait(0.1)
        assert ready.exists()
        proc.kill()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert site.opendata.published() == []
    assert not [p for p in folder.iterdir() if not p.name.startswith(".")]  # only a hidden partial, if any
    info = site.opendata.run_month("2026-10", folder, "next", lambda: AFTER + LEASE + timedelta(minutes=1))
    assert info is not None and [p.name for p in folder.iterdir()] == [info.file]


def test_a_writer_that_lost_its_claim_publishes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.sqlite3'}"
    site, _ = site_with_games(url, games=10)
    other = Site(make_engine(url))

    def overtaken(count: int) -> None:
        if count == 5:  # meanwhile this writer stalled past its lease, and another took the month over
            assert other.opendata.claim("2026-10", "thief", AFTER + LEASE * 2)

    site.opendata.progress = overtaken
    with pytest.raises(LostClaim):
        site.opendata.run_month("2026-10", tmp_path / "out", "slow", lambda: AFTER)
    assert site.opendata.published() == [] and list((tmp_path / "out").iterdir()) == []


def test_opted_out_players_have_a_stable_pseudonym(any_db: str, tmp_path: Path) -> None:
    site, users = site_with_games(any_db, games=40)
    hidden = users[0]
    site.opendata.set_pseudonymous(hidden, True)
    assert site.opendata.pseudonymous(hidden) and not site.opendata.pseudonymous(users[1])
    fill(site.engine, 40, users, NOV, datetime(2026, 12, 1, tzinfo=UTC), seed=2)
    job = ExportJob(site, tmp_path, clock=lambda: datetime(2026, 12, 2, 3, tzinfo=UTC))
    assert job.run_once(datetime(2026, 12, 2, 3, tzinfo=UTC)) == 1
    job._next_look = None
    assert job.run_once(datetime(2026, 12, 2, 3, tzinfo=UTC)) == 1
    by_month = {e.month: records_of(tmp_path / e.file) for e in site.opendata.published()}
    assert sorted(by_month) == ["2026-10", "2026-11"]
    alias = site.opendata.pseudonym_of(hidden)
    assert alias.startswith(PSEUDONYM_PREFIX) and len(alias) == len(PSEUDONYM_PREFIX) + 16
    assert alias == pseudonym(site.opendata.secret(), hidden)
    for records in by_month.values():
        names = [n for r in records for n in r["meta"]["players"]]
        assert not {f"player{hidden}", f"player{hidden} (Bot)"} & set(names)  # never the name, not even with "(Bot)"
        assert any(n == alias or n == f"{alias} (Bot)" for n in names)  # the same alias in both months
        assert f"player{users[1]}" in names or f"player{users[1]} (Bot)" in names
    # Not reversible without the site's secret: another secret gives another alias.
    assert pseudonym("another secret", hidden) != alias
    # Opting back in names the player again (from the next export on).
    site.opendata.set_pseudonymous(hidden, False)
    assert not site.opendata.pseudonymous(hidden)


def test_verify_finds_a_tampered_record_and_a_corrupt_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'v.sqlite3'}"
    site, _ = site_with_games(url, games=12)
    info = site.opendata.run_month("2026-10", tmp_path, "w", lambda: AFTER)
    assert info is not None
    records = records_of(tmp_path / info.file)
    tampered = json.loads(json.dumps(records))
    victim = tampered[3]
    victim["result"][0]["rank"], victim["result"][1]["rank"] = victim["result"][1]["rank"], victim["result"][0]["rank"]
    victim["result"][0]["score"] = 999
    cut = tampered[5]
    cut["actions"] = cut["actions"][:-3]  # the game no longer ends
    lines = [json.dumps(r) for r in tampered]
    lines.insert(7, '{"format": "ludothek-record/1", "game": ')  # a broken line
    lines.insert(8, "[1, 2, 3]")
    path = tmp_path / "games.jsonl.gz"
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    report = verify_dump(path)
    assert not report.passed and report.games == 14
    assert (report.ok, report.mismatches, report.corrupt) == (10, 2, 2)
    by_line = {line: (game, what) for line, game, what in report.problems}
    assert by_line[4][0] == victim["meta"]["id"] and "differs" in by_line[4][1] and "999" in by_line[4][1]
    assert by_line[6][0] == cut["meta"]["id"]
    assert "not valid JSON" in by_line[8][1] and by_line[9][1].startswith("not a record")
    # Through the command: the problems, a summary, exit status 1, and no traceback.
    run = subprocess.run([sys.executable, "-m", "ludothek.cli", "dump", "verify", str(path)], cwd=REPO,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 1, run.stderr
    assert f"line 4 (game {victim['meta']['id']})" in run.stdout and "line 8: not valid JSON" in run.stdout
    assert "14 records, 10 replayed to their stored result, 2 mismatched, 2 corrupt: FAILED" in run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    good = subprocess.run([sys.executable, "-m", "ludothek.cli", "dump", "verify", str(tmp_path / info.file)],
                          cwd=REPO, capture_output=True, text=True, check=False)
    assert good.returncode == 0 and "12 records, 12 replayed to their stored result" in good.stdout


def test_verify_refuses_a_changed_archive_and_a_truncated_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 't.sqlite3'}"
    site, _ = site_with_games(url, games=8)
    info = site.opendata.run_month("2026-10", tmp_path / "x", "w", lambda: AFTER)
    assert info is not None
    archive = tmp_path / "x" / info.file
    # A record changed inside the archive, the checksum file left as it was.
    records = records_of(archive)
    records[0]["meta"]["players"][0] = "someone else"
    body = gzip.compress(("\n".join(json.dumps(r) for r in records) + "\n").encode())
    changed = tmp_path / "changed.tar"
    with tarfile.open(archive) as src, tarfile.open(changed, "w") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read()  # type: ignore[union-attr]
            if member.name.endswith("games.jsonl.gz"):
                data = body
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    report = verify_dump(changed)
    assert not report.passed and report.fatal is not None and "SHA-256 of games.jsonl.gz differs" in report.fatal
    # A download cut short: the compressed stream ends early.
    whole = gzip.compress(("\n".join(json.dumps(r) for r in records) + "\n").encode())
    short = tmp_path / "short.jsonl.gz"
    short.write_bytes(whole[: len(whole) // 2])
    report = verify_dump(short)
    assert not report.passed and report.fatal is not None and "cut short" in report.fatal
    run = subprocess.run([sys.executable, "-m", "ludothek.cli", "dump", "verify", str(short)], cwd=REPO,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 1 and "Traceback" not in run.stderr and "cut short" in run.stderr
    missing = subprocess.run([sys.executable, "-m", "ludothek.cli", "dump", "verify", str(tmp_path / "nope.tar")],
                             cwd=REPO, capture_output=True, text=True, check=False)
    assert missing.returncode == 1 and "cannot read the file" in missing.stderr and "Traceback" not in missing.stderr


N_GAMES = 300


def test_every_record_of_a_generated_dump_replays_to_its_stored_result(tmp_path: Path) -> None:
    """The suite's size of the 10,000-game check (`benchmarks/bench_open_data.py` runs the full one)."""
    url = f"sqlite:///{tmp_path / 'n.sqlite3'}"
    site, _ = site_with_games(url, games=N_GAMES, seed=7)
    info = site.opendata.run_month("2026-10", tmp_path, "w", lambda: AFTER)
    assert info is not None and info.games == N_GAMES
    report = verify_dump(tmp_path / info.file)
    assert report.passed and report.ok == N_GAMES, report.problems[:5]
