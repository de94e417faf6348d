"""Only the newest password-reset link works (issue 30, item 6).

- ``users.reset_gen``: a counter raised whenever a reset link is asked for (or sent after an undone
  address change).  The link carries the value it was issued with and works only while the counter
  still has it, so asking again ends every earlier link, sent or still queued.

Revision ID: 0018_reset_links
Revises: 0013_handover (main's head when this was written; re-chained on every merge)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_reset_links"
down_revision = "0016_webhooks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN with a constant default (as 0012): SQLite has it, and no table is rebuilt.
    op.add_column("users", sa.Column("reset_gen", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("reset_gen")
