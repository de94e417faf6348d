"""Sessions on the server, token expiry and last use, user ids that are never reused.

SQLite hands a freed row id to the next insert unless the table is declared
AUTOINCREMENT; an expired guest's deleted id then named the next new account
(issue 15).  SQLite cannot change that in place, so ``users`` and
``api_tokens`` are rebuilt in batch mode (``ludothek.storage.db.migrate``
turns foreign-key enforcement off meanwhile, so that dropping the old table
does not cascade into tokens, seats and games).  PostgreSQL's SERIAL ids come
from a sequence and are never reused already.

Revision ID: 0002_sessions
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_sessions"
down_revision = "0001"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        with op.batch_alter_table("users", recreate="always", table_kwargs={"sqlite_autoincrement": True}):
            pass
    with op.batch_alter_table(
        "api_tokens", recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True} if sqlite else {},
    ) as batch:
        batch.add_column(sa.Column("expires_at", TS, nullable=True))
        batch.add_column(sa.Column("last_used_at", TS, nullable=True))
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_sessions_user_id", "sessions")
    op.drop_table("sessions")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("last_used_at")
        batch.drop_column("expires_at")
