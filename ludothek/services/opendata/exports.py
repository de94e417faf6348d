"""`OpenData`: the monthly exports (claimed, written, published) and the players' opt-out.

Which months: every month from the one in which the first rated game ended up to the last month
that is over, once it has been over for `SETTLE` (a game whose last move was stored a moment
before midnight may commit a moment after it).  Each month is exported once; a month without
rated games is exported too (an empty file), so that the list has no gaps.

Exactly once, on SQLite and PostgreSQL alike: the month's row in ``open_data_exports`` is the claim.
Inserting it succeeds for one process only (its primary key); a claim whose lease ran out (its
worker died or stalled) is taken over by a conditional ``UPDATE`` that only one process can win.
The writer renews its lease as it goes and stops if it lost it.

Never a partial file: the archive is written under a hidden temporary name, flushed to disk, and
only then renamed to its final name, which carries the first 12 digits of its SHA-256 (two writers
of one month can never overwrite each other's file).  The row says ``done`` (and names the file)
only after that, in one conditional ``UPDATE`` by the claim's owner; the site lists and serves
only ``done`` rows.  A writer killed at any point leaves at most a hidden temporary file, which the
next claim of that month removes.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import secrets
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import and_, delete, exists, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ludothek.storage.database import Database
from ludothek.storage.info import aware, seat_label
from ludothek.storage.models import (
    ActionRow,
    ExportPref,
    GameRow,
    OpenDataExport,
    RatingChange,
    SeatRow,
    User,
)

from .layout import (
    ARCHIVE_STEM,
    GAMES_FILE,
    README_FILE,
    SUMS_FILE,
    month_of,
    month_start,
    next_month,
    pseudonym,
    readme,
    sums,
)

#: A month is exported this long after it ended.
SETTLE = timedelta(hours=1)
#: How long a claim holds without renewal; the writer renews it every `RENEW_EVERY` games.
LEASE = timedelta(minutes=10)
RENEW_EVERY = 500
#: Games read from the database at once while writing.
BATCH = 500
#: The ``meta`` key of the secret the pseudonyms are keyed with (made on first use, never changed).
SECRET_KEY = "export_pseudonym_secret"


class LostClaim(Exception):
    """Another worker took the month over (this one's lease ran out): what was written is thrown away."""


@dataclass(frozen=True)
class ExportInfo:
    """A published month: what the open-data page and the API list."""

    month: str
    games: int
    bytes: int
    sha256: str
    file: str
    done_at: datetime

    @property
    def download_name(self) -> str:
        return ARCHIVE_STEM.format(month=self.month) + ".tar"

    def to_json(self) -> dict[str, Any]:
        return {"month": self.month, "games": self.games, "bytes": self.bytes, "sha256": self.sha256,
                "file": self.download_name, "published_at": self.done_at.isoformat()}


def _rated() -> Any:
    """Rated games: finished with at least two people rated (`ludothek.storage.rating_update`)."""
    return exists().where(RatingChange.game_id == GameRow.id)


class OpenData:
    """Exports and the opt-out; thread-safe (all state is in the database and the export folder)."""

    def __init__(self, db: Database, site_name: str = "Ludothek") -> None:
        self.db = db
        self.site_name = site_name
        #: Called with the number of games written so far, after each (tests stop a writer with it).
        self.progress: Callable[[int], None] | None = None

    # ------------------------------------------------------------------ the opt-out
    def pseudonymous(self, user_id: int) -> bool:
        """Whether the player chose a pseudonym instead of their name in the exports."""
        with self.db.engine.begin() as conn:
            return conn.execute(select(ExportPref.user_id).where(ExportPref.user_id == user_id)).first() is not None

    def set_pseudonymous(self, user_id: int, on: bool) -> None:
        """Opt out of (``on``) or back into being named in the exports; takes effect from the next export."""
        with self.db.engine.begin() as conn:
            conn.execute(delete(ExportPref).where(ExportPref.user_id == user_id))
            if on:
                conn.execute(insert(ExportPref).values(user_id=user_id, created_at=datetime.now(UTC)))

    def secret(self) -> str:
        """The site's pseudonym key, made on first use and kept in the database (never rotated: the
        pseudonyms are stable only while it stays; backups carry it)."""
        return self.db.meta(SECRET_KEY, lambda: secrets.token_hex(32))

    def pseudonym_of(self, user_id: int) -> str:
        return pseudonym(self.secret(), user_id)

    # ------------------------------------------------------------------ the list
    def published(self) -> list[ExportInfo]:
        """Every published month, newest first."""
        with self.db.engine.begin() as conn:
            rows = conn.execute(select(OpenDataExport.__table__).where(OpenDataExport.status == "done")
                                .order_by(OpenDataExport.month.desc())).all()
        return [self._info(r) for r in rows]

    def export(self, month: str) -> ExportInfo | None:
        """The published export of ``month``, or None."""
        with self.db.engine.begin() as conn:
            row = conn.execute(select(OpenDataExport.__table__).where(OpenDataExport.month == month,
                                                                      OpenDataExport.status == "done")).first()
        return None if row is None else self._info(row)

    @staticmethod
    def _info(row: Any) -> ExportInfo:
        assert row.file is not None and row.sha256 is not None and row.done_at is not None
        done_at = aware(row.done_at)
        assert done_at is not None
        return ExportInfo(row.month, int(row.games or 0), int(row.bytes or 0), row.sha256, row.file, done_at)

    # ------------------------------------------------------------------ which months
    def due_months(self, now: datetime) -> list[str]:
        """The months that are over (for `SETTLE`) and not yet published, oldest first."""
        with self.db.engine.begin() as conn:
            first = conn.execute(select(func.min(GameRow.finished_at))
                                 .where(GameRow.status == "finished", _rated())).scalar()
            done = set(conn.execute(select(OpenDataExport.month)
                                    .where(OpenDataExport.status == "done")).scalars())
        if first is None:
            return []
        # The month of ``now - SETTLE`` is not over (and settled) yet: every month before it is.
        last = month_of(now - SETTLE)
        months = []
        month = month_of(aware(first) or first)
        while month < last:
            if month not in done:
                months.append(month)
            month = next_month(month)
        return months

    # ------------------------------------------------------------------ the claim
    def claim(self, month: str, owner: str, now: datetime) -> bool:
        """Take ``month`` for ``owner``: a new claim, or one whose lease ran out.  Exactly one process wins."""
        try:
            with self.db.engine.begin() as conn:
                conn.execute(insert(OpenDataExport).values(
                    month=month, status="running", owner=owner, lease_until=now + LEASE, attempts=1,
                    claimed_at=now))
            return True
        except IntegrityError:
            pass
        with self.db.engine.begin() as conn:
            taken = conn.execute(
                update(OpenDataExport)
                .where(OpenDataExport.month == month, OpenDataExport.status == "running",
                       OpenDataExport.lease_until < now)
                .values(owner=owner, lease_until=now + LEASE, attempts=OpenDataExport.attempts + 1, claimed_at=now))
            return taken.rowcount == 1

    def renew(self, month: str, owner: str, now: datetime) -> None:
        """Extend the lease; `LostClaim` if another worker has the month now."""
        with self.db.engine.begin() as conn:
            kept = conn.execute(update(OpenDataExport)
                                .where(OpenDataExport.month == month, OpenDataExport.owner == owner,
                                       OpenDataExport.status == "running")
                                .values(lease_until=now + LEASE))
        if kept.rowcount != 1:
            raise LostClaim(month)

    def _publish(self, month: str, owner: str, file: str, size: int, digest: str, games: int, now: datetime) -> bool:
        with self.db.engine.begin() as conn:
            done = conn.execute(update(OpenDataExport)
                                .where(OpenDataExport.month == month, OpenDataExport.owner == owner,
                                       OpenDataExport.status == "running")
                                .values(status="done", file=file, bytes=size, sha256=digest, games=games,
                                        done_at=now))
        return done.rowcount == 1

    # ------------------------------------------------------------------ the records
    def records(self, month: str) -> Iterator[dict[str, Any]]:
        """The records of the rated games that ended in ``month``, in the order they ended."""
        start = month_start(month)
        end = month_start(next_month(month))
        secret = self.secret()
        after: tuple[datetime, int] | None = None
        while True:
            query = (select(GameRow.id, GameRow.game, GameRow.rules_version, GameRow.num_players,
                            GameRow.options_json, GameRow.result_json, GameRow.finished_at)
                     .where(GameRow.status == "finished", GameRow.finished_at >= start, GameRow.finished_at < end,
                            _rated())
                     .order_by(GameRow.finished_at, GameRow.id).limit(BATCH))
            if after is not None:
                query = query.where((GameRow.finished_at > after[0])
                                    | and_(GameRow.finished_at == after[0], GameRow.id > after[1]))
            with self.db.engine.begin() as conn:
                games = conn.execute(query).all()
                if not games:
                    return
                ids = [g.id for g in games]
                seats = conn.execute(
                    select(SeatRow.game_id, SeatRow.seat, SeatRow.kind, SeatRow.user_id, User.name,
                           ExportPref.user_id.label("hidden"))
                    .outerjoin(User, User.id == SeatRow.user_id)
                    .outerjoin(ExportPref, ExportPref.user_id == SeatRow.user_id)
                    .where(SeatRow.game_id.in_(ids))).all()
                actions = conn.execute(select(ActionRow.game_id, ActionRow.seat, ActionRow.action)
                                       .where(ActionRow.game_id.in_(ids))
                                       .order_by(ActionRow.game_id, ActionRow.seq)).all()
            by_game: dict[int, list[dict[str, Any]]] = {}
            for a in actions:
                by_game.setdefault(a.game_id, []).append({"seat": "chance" if a.seat < 0 else a.seat,
                                                          "action": a.action})
            names: dict[int, dict[int, str]] = {}
            bots: dict[int, list[int]] = {}
            for s in seats:
                shown = pseudonym(secret, s.user_id) if s.hidden is not None and s.user_id is not None else s.name
                names.setdefault(s.game_id, {})[s.seat] = seat_label(s.kind, s.seat, shown) or "?"
                if s.kind == "bot":
                    bots.setdefault(s.game_id, []).append(s.seat)
            for g in games:
                finished = aware(g.finished_at)
                assert finished is not None
                yield {
                    "format": "ludothek-record/1",
                    "game": g.game,
                    "rules_version": g.rules_version,
                    "players": g.num_players,
                    "options": json.loads(g.options_json or "{}"),
                    "actions": by_game.get(g.id, []),
                    "result": json.loads(g.result_json) if g.result_json else None,
                    "meta": {"id": g.id, "players": [names.get(g.id, {}).get(s, "?") for s in range(g.num_players)],
                             "bots": sorted(bots.get(g.id, [])),
                             "finished_at": finished.astimezone(UTC).isoformat().replace("+00:00", "Z")},
                }
            after = (games[-1].finished_at, games[-1].id)

    # ------------------------------------------------------------------ writing
    def run_month(self, month: str, folder: Path, owner: str, clock: Callable[[], datetime]) -> ExportInfo | None:
        """Claim ``month`` and write and publish its export; None when another worker has it.

        `LostClaim` when the claim was lost while writing (nothing is published, the temporary
        files are gone).  Any other failure also leaves nothing published: the claim runs out and
        another pass (of any worker) writes the month again.
        """
        if not self.claim(month, owner, clock()):
            return None
        folder.mkdir(parents=True, exist_ok=True)
        stem = ARCHIVE_STEM.format(month=month)
        _sweep_partials(folder, stem)
        partial = folder / f".{stem}.{secrets.token_hex(6)}.partial"
        try:
            games, digest = self._write(month, partial, owner, clock)
            final = f"{stem}.{digest[:12]}.tar"
            size = partial.stat().st_size
            os.replace(partial, folder / final)
            _sync_dir(folder)
        except BaseException:
            partial.unlink(missing_ok=True)
            _games_path(partial).unlink(missing_ok=True)
            raise
        now = clock()
        if not self._publish(month, owner, final, size, digest, games, now):
            # Taken over meanwhile: the other writer's file is the one published (unless it is this very file).
            if self._current_file(month) != final:
                (folder / final).unlink(missing_ok=True)
            raise LostClaim(month)
        return ExportInfo(month, games, size, digest, final, now)

    def _current_file(self, month: str) -> str | None:
        with self.db.engine.begin() as conn:
            return conn.execute(select(OpenDataExport.file).where(OpenDataExport.month == month)).scalar()

    def _write(self, month: str, path: Path, owner: str, clock: Callable[[], datetime]) -> tuple[int, str]:
        """The archive of ``month`` at ``path`` (flushed to disk): the number of games and its SHA-256.

        The compressed lines go to a temporary file beside it first (a busy month is too big to hold in
        memory), which is copied into the archive and removed.
        """
        stamp = int(month_start(next_month(month)).timestamp())
        lines = _games_path(path)
        count = 0
        try:
            with open(lines, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                         compresslevel=6) as gz:
                for record in self.records(month):
                    gz.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
                    count += 1
                    if self.progress is not None:
                        self.progress(count)
                    if count % RENEW_EVERY == 0:
                        self.renew(month, owner, clock())
            games_sha = _sha256_of(lines)
            text = readme(month, count, games_sha, self.site_name).encode()
            sums_text = sums({GAMES_FILE: games_sha, README_FILE: hashlib.sha256(text).hexdigest()}).encode()
            stem = ARCHIVE_STEM.format(month=month)
            with open(path, "wb") as out, open(lines, "rb") as compressed:
                with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
                    for name, size, content in ((README_FILE, len(text), io.BytesIO(text)),
                                                (SUMS_FILE, len(sums_text), io.BytesIO(sums_text)),
                                                (GAMES_FILE, lines.stat().st_size, compressed)):
                        info = tarfile.TarInfo(f"{stem}/{name}")
                        info.size = size
                        info.mtime = stamp
                        info.mode = 0o644
                        info.uname = info.gname = ""
                        tar.addfile(info, content)
                out.flush()
                os.fsync(out.fileno())
        finally:
            lines.unlink(missing_ok=True)
        self.renew(month, owner, clock())
        return count, _sha256_of(path)


def _games_path(partial: Path) -> Path:
    """The temporary file of the compressed lines, beside the archive's (both swept as partials)."""
    return partial.with_name(partial.name.removesuffix(".partial") + "-games.partial")


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _sweep_partials(folder: Path, stem: str) -> None:
    """Remove the temporary files of earlier writers of this month: they died, or lost their claim to
    this one and can no longer publish (a writer still alive then fails to rename and gives up)."""
    for path in folder.glob(f".{stem}.*.partial"):
        path.unlink(missing_ok=True)


def _sync_dir(folder: Path) -> None:
    """Make the rename durable (the folder's entry), where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
