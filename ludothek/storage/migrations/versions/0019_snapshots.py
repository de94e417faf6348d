"""State snapshots (issue 34): ``game_snapshots``, the newest snapshot of each game's state.

A cold game is restored from its snapshot and the rows stored after it instead of a replay of
every row (`ludothek.services.snapkeeper`).  The rows stay the source of truth.

Revision ID: 0019_snapshots
Revises: 0018_reset_links (re-chained on every merge)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019_snapshots"
down_revision = "0021_bot_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_snapshots",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("rules_version", sa.String(20), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("game_snapshots")
