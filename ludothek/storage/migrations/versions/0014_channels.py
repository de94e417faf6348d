"""Notification channels behind one seam (issue 30).

- ``deliveries``: one notice (an outbox row) to one target of one channel, claimed and retried per channel.
- ``notice_prefs``: a user's choice per channel and kind of notice, only where it differs from the default.
- ``outbox_attempts.channel``: which channel made the attempt.

Revision ID: 0014_channels
Revises: 0013_handover (main's head when this was written; re-chained on every merge)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_channels"
down_revision = "0013_handover"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deliveries",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("outbox_id", sa.Integer(), sa.ForeignKey("outbox.id", ondelete="CASCADE"), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("target", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("outbox_id", "channel", "target", name="uq_deliveries_outbox_channel_target"),
    )
    op.create_index("ix_deliveries_due", "deliveries", ["channel", "status", "next_attempt_at"])
    op.create_table(
        "notice_prefs",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("channel", sa.String(16), primary_key=True),
        sa.Column("kind", sa.String(24), primary_key=True),
        sa.Column("wanted", sa.Boolean(), nullable=False),
    )
    # Plain ADD COLUMN (SQLite has it): no table is rebuilt.
    op.add_column("outbox_attempts", sa.Column("channel", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox_attempts") as batch:
        batch.drop_column("channel")
    op.drop_table("notice_prefs")
    op.drop_index("ix_deliveries_due", table_name="deliveries")
    op.drop_table("deliveries")
