"""Bot turns claimed by bot worker processes: who thinks about a game's bot turn, until when (issue 11, part 3).

Revision ID: 0010_bot_turns
Revises: 0009_operations
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_bot_turns"
down_revision = "0009_operations"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (SQLite has it), like 0009: no rebuild of ``games``.
    op.add_column("games", sa.Column("bot_claimed_by", sa.String(80), nullable=True))
    op.add_column("games", sa.Column("bot_claim_seq", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("bot_lease_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("bot_lease_until")
        batch.drop_column("bot_claim_seq")
        batch.drop_column("bot_claimed_by")
