"""Administration: administrators, and blocked accounts (issue 14, part 2).

Revision ID: 0009_operations
Revises: 0008_social
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_operations"
down_revision = "0008_social"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (SQLite has it): a batch operation would rebuild ``users`` and lose its
    # AUTOINCREMENT, and with it the promise that a user id is never handed out twice.
    op.add_column("users", sa.Column("is_admin", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("users", sa.Column("blocked_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("blocked_at")
        batch.drop_column("is_admin")
