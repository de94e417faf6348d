"""``ludothek dump verify FILE``: replay every record of an export to the result stored with it.

FILE is an export archive (``ludothek-games-YYYY-MM.tar``: its ``SHA256SUMS`` is checked first), or
its ``games.jsonl.gz``, or plain JSON lines.  Every line is read on its own: a line that is not JSON
or not a record is *corrupt*; a record whose replay fails, does not end, or ends with another result
than the stored one is a *mismatch*.  Both are reported with the line and the game's id, and the
check goes on to the end; a file that cannot be read at all (missing, not gzip, truncated) is
reported as such.  Nothing here raises for bad input: the report says what is wrong.

The stored result places a player who left (timed out, resigned) last, marked ``"left"``; the
replayed game knows nothing of leaving, so the check applies the same rule (`placed_last`) to the
replayed result before comparing.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ludothek import engine as eng
from ludothek.engine import jsonread
from ludothek.storage.timecontrol import placed_last

from .layout import GAMES_FILE, SUMS_FILE

#: The most problems a report keeps in full (the counts are always complete).
MAX_PROBLEMS = 1000


@dataclass
class DumpReport:
    """What a check found: counts, and each problem as ``(line, game id or None, what)``."""

    path: str
    games: int = 0
    ok: int = 0
    mismatches: int = 0
    corrupt: int = 0
    #: A problem with the file as a whole (unreadable, truncated, a checksum that differs).
    fatal: str | None = None
    problems: list[tuple[int, int | None, str]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.fatal is None and self.mismatches == 0 and self.corrupt == 0

    def note(self, line: int, game: int | None, what: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append((line, game, what))

    def summary(self) -> str:
        word = "record" if self.games == 1 else "records"
        text = (f"{self.path}: {self.games} {word}, {self.ok} replayed to their stored result, "
                f"{self.mismatches} mismatched, {self.corrupt} corrupt")
        if self.fatal:
            text += f"; {self.fatal}"
        return text + (": OK" if self.passed else ": FAILED")


class _Unreadable(Exception):
    pass


def _lines(path: Path, report: DumpReport) -> Iterator[bytes]:
    """The lines of the records in ``path`` (an archive, gzip or plain); `_Unreadable` for a bad file."""
    try:
        with path.open("rb") as start:
            head = start.read(512)
    except OSError as exc:
        raise _Unreadable(f"cannot read the file: {exc.strerror or exc}") from None
    if len(head) >= 262 and head[257:262] == b"ustar":
        yield from _archive_lines(path, report)
        return
    with path.open("rb") as raw:
        stream: Iterable[bytes] = gzip.GzipFile(fileobj=raw) if head[:2] == b"\x1f\x8b" else raw
        yield from _read(stream)


def _read(stream: Iterable[bytes]) -> Iterator[bytes]:
    try:
        yield from stream
    except (EOFError, gzip.BadGzipFile, zlib.error, OSError) as exc:
        raise _Unreadable(f"the compressed data is damaged or cut short ({exc})") from None


def _archive_lines(path: Path, report: DumpReport) -> Iterator[bytes]:
    """The records of an export archive, after checking its ``SHA256SUMS``."""
    try:
        with tarfile.open(path, mode="r:") as tar:
            members = {Path(m.name).name: m for m in tar.getmembers() if m.isfile()}
            if GAMES_FILE not in members:
                raise _Unreadable(f"the archive holds no {GAMES_FILE}")
            extracted = tar.extractfile(members[GAMES_FILE])
            assert extracted is not None
            data = extracted.read()
            if SUMS_FILE in members:
                sums_file = tar.extractfile(members[SUMS_FILE])
                assert sums_file is not None
                expected = _sums(sums_file.read().decode("utf-8", "replace"))
                for name, digest in expected.items():
                    member = members.get(name)
                    if member is None:
                        raise _Unreadable(f"{SUMS_FILE} names {name}, which the archive does not hold")
                    content = data if name == GAMES_FILE else (tar.extractfile(member) or io.BytesIO()).read()
                    if hashlib.sha256(content).hexdigest() != digest:
                        report.fatal = f"the SHA-256 of {name} differs from {SUMS_FILE}: the archive was changed"
            else:
                report.fatal = f"the archive has no {SUMS_FILE}"
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise _Unreadable(f"the archive is damaged ({exc})") from None
    yield from _read(gzip.GzipFile(fileobj=io.BytesIO(data)))


def _sums(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        digest, _, name = line.partition("  ")
        if digest and name:
            out[name.strip().lstrip("*")] = digest.strip().lower()
    return out


def check_record(data: Any) -> tuple[int | None, str | None, bool]:
    """One record against its stored result: ``(game id, problem or None, corrupt)``."""
    if not isinstance(data, dict):
        return None, "not a record (a JSON object is expected)", True
    meta = data.get("meta")
    game_id = meta.get("id") if isinstance(meta, dict) and isinstance(meta.get("id"), int) else None
    stored = data.get("result")
    if not isinstance(stored, list) or not all(isinstance(r, dict) and isinstance(r.get("seat"), int)
                                               for r in stored):
        return game_id, "the record has no stored result to compare with", True
    try:
        state = eng.replay(data)
    except eng.ReplayError as exc:
        return game_id, f"does not replay: {exc}", False
    except (TypeError, KeyError, ValueError, AttributeError, IndexError) as exc:
        return game_id, f"the record is malformed: {exc!r}", True
    if not state.is_terminal():
        return game_id, f"the replayed game has not ended (after {len(data['actions'])} entries)", False
    left = {int(r["seat"]): str(r["left"]) for r in stored if "left" in r}
    replayed = placed_last(state.result_json(), left)
    if _canonical(replayed) != _canonical(stored):
        return game_id, "the replayed result differs from the stored one: " + _difference(replayed, stored), False
    return game_id, None, False


def _canonical(result: list[dict[str, Any]]) -> list[Any]:
    import json

    return sorted(json.dumps(r, sort_keys=True) for r in result)


def _difference(replayed: list[dict[str, Any]], stored: list[dict[str, Any]]) -> str:
    mine = {r["seat"]: r for r in replayed}
    theirs = {r["seat"]: r for r in stored}
    parts = []
    for seat in sorted(set(mine) | set(theirs)):
        a, b = mine.get(seat, {}), theirs.get(seat, {})
        if a != b:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            parts.append(f"seat {seat + 1}: " + ", ".join(f"{k} {a.get(k)!r} replayed, {b.get(k)!r} stored"
                                                          for k in keys))
    return "; ".join(parts)[:500]


def verify_dump(path: str | Path, progress: Callable[[int], None] | None = None) -> DumpReport:
    """Check every record of the export at ``path``; the report (never raises for a bad file)."""
    report = DumpReport(str(path))
    number = 0
    try:
        for number, raw in enumerate(_lines(Path(path), report), 1):
            if not raw.strip():
                continue
            report.games += 1
            try:
                data = jsonread.loads(raw)
            except (ValueError, UnicodeDecodeError) as exc:
                report.corrupt += 1
                report.note(number, None, f"not valid JSON ({exc})")
                continue
            game_id, problem, corrupt = check_record(data)
            if problem is None:
                report.ok += 1
            elif corrupt:
                report.corrupt += 1
                report.note(number, game_id, problem)
            else:
                report.mismatches += 1
                report.note(number, game_id, problem)
            if progress is not None:
                progress(report.games)
    except _Unreadable as exc:
        report.fatal = f"{exc} (after line {number})" if number else str(exc)
    return report
