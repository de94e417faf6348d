"""Backups: a consistent copy of a running database, and bringing one back.

SQLite: SQLite's online backup API copies the database page by page inside one read
transaction, so the copy is the database as it stood at one moment, WAL contents included,
while the servers go on writing (WAL mode lets a reader and writers work side by side).
Copying the file with ``cp`` is *not* a backup: it misses what is still in ``-wal`` and
can catch a page half-written.

PostgreSQL: ``pg_dump --format=custom`` (a consistent snapshot too) and ``pg_restore``;
`backup` and `restore` call them when they are installed, and ``docs/operations.md``
shows the commands for doing it by hand.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from .db import head_revision, make_engine, migrate, normalize_url


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why (nothing was changed)."""


@dataclass(frozen=True)
class Summary:
    """What a copy holds: enough for the operator to see that it is the database they meant."""

    revision: str | None
    users: int
    games: int
    actions: int

    def describe(self) -> str:
        return (f"{self.games} games, {self.actions} stored actions, {self.users} users "
                f"(schema {self.revision or 'empty'})")


def _sqlite_path(url: str) -> Path | None:
    parsed = make_url(normalize_url(url))
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if database in ("", ":memory:"):
        raise BackupError("an in-memory database cannot be backed up")
    return Path(database).expanduser()


def _summary(conn: sqlite3.Connection) -> Summary:
    def count(table: str) -> int:
        try:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        except sqlite3.DatabaseError:
            return 0

    try:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        revision = row[0] if row else None
    except sqlite3.DatabaseError:
        revision = None
    return Summary(revision, count("users"), count("games"), count("actions"))


def _check_copy(path: Path) -> Summary:
    """Open ``path`` as a Ludothek database and check it page by page; its summary."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise BackupError(f"{path} cannot be opened: {exc}") from None
    try:
        try:
            verdict = conn.execute("PRAGMA integrity_check").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{path} is not an SQLite database ({exc})") from None
        if verdict != "ok":
            raise BackupError(f"{path} is damaged: {verdict}")
        summary = _summary(conn)
    finally:
        conn.close()
    if summary.revision is None:
        raise BackupError(f"{path} is not a Ludothek database (it has no schema revision)")
    return summary


def backup(db_url: str, target: str | Path) -> Summary:
    """Copy the database at ``db_url`` to the file ``target``, while servers may be running."""
    target = Path(target)
    path = _sqlite_path(db_url)
    if path is None:
        return _pg_dump(db_url, target)
    if not path.exists():
        raise BackupError(f"there is no database at {path}")
    if target.exists() and target.resolve() == path.resolve():
        raise BackupError("the backup must go to another file than the database itself")
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    source = sqlite3.connect(path, timeout=30)
    try:
        copy = sqlite3.connect(partial)
        try:
            # One step (pages=-1): the whole copy is made in one read transaction, so it is one moment's state.
            source.backup(copy, pages=-1)
            copy.execute("PRAGMA journal_mode=DELETE")  # a single self-contained file
        finally:
            copy.close()
    finally:
        source.close()
    summary = _check_copy(partial)
    os.replace(partial, target)
    return summary


def restore(db_url: str, source: str | Path) -> Summary:
    """Replace the database at ``db_url`` by the copy ``source``; stop every server of it first.

    The copy is checked before anything is touched, and brought to the newest schema afterwards.
    """
    source = Path(source)
    if not source.exists():
        raise BackupError(f"there is no backup at {source}")
    path = _sqlite_path(db_url)
    if path is None:
        return _pg_restore(db_url, source)
    summary = _check_copy(source)
    known = head_revision()
    if summary.revision is not None and known is not None and not _revision_known(summary.revision):
        raise BackupError(f"{source} has schema {summary.revision}, which this version of Ludothek does not know "
                          f"(newest: {known}); restore it with the version that made it")
    path.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(path, timeout=30)
        try:
            src.backup(dst, pages=-1)  # through SQLite, so the live file's WAL is handled too
        finally:
            dst.close()
    finally:
        src.close()
    engine = make_engine(db_url)
    try:
        migrate(engine)
    finally:
        engine.dispose()
    conn = sqlite3.connect(path)
    try:
        return _summary(conn)
    finally:
        conn.close()


def _revision_known(revision: str) -> bool:
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine

    from .db import _alembic_config

    script = ScriptDirectory.from_config(_alembic_config(create_engine("sqlite://")))
    return any(rev.revision == revision for rev in script.walk_revisions())


# ----------------------------------------------------------------------------- PostgreSQL
def _libpq(url: str) -> str:
    """The URL as libpq reads it (without SQLAlchemy's ``+psycopg``)."""
    parsed = make_url(normalize_url(url)).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=False)


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not installed: install the PostgreSQL client tools "
                          f"(Debian: postgresql-client) or see docs/operations.md")
    return found


def _pg_summary(db_url: str) -> Summary:
    from sqlalchemy import text

    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            revision = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
            counts = [int(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one())
                      for t in ("users", "games", "actions")]
    finally:
        engine.dispose()
    return Summary(revision, *counts)


def _pg_dump(db_url: str, target: Path) -> Summary:
    partial = target.with_name(target.name + ".partial")
    done = subprocess.run([_tool("pg_dump"), "--format=custom", "--no-owner", "--file", str(partial),
                           "--dbname", _libpq(db_url)], capture_output=True, text=True)
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        raise BackupError(f"pg_dump failed: {done.stderr.strip()}")
    os.replace(partial, target)
    return _pg_summary(db_url)


def _pg_restore(db_url: str, source: Path) -> Summary:
    done = subprocess.run([_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction",
                           "--dbname", _libpq(db_url), str(source)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BackupError(f"pg_restore failed (nothing was changed): {done.stderr.strip()}")
    engine = make_engine(db_url)
    try:
        migrate(engine)
    finally:
        engine.dispose()
    return _pg_summary(db_url)
