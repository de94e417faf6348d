"""Alembic environment: always run with a connection handed in by ``ludothek.storage.db.migrate``."""

from __future__ import annotations

from alembic import context

from ludothek.storage.models import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only the programmatic path is supported
    raise RuntimeError("run migrations through ludothek.storage.db.migrate(engine)")
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
