"""Turns handed on after a grace period or a confirmation (issue 29, "undo that a player can actually use").

- ``games.handover_seat`` / ``games.handover_due``: a pending hand-over, the seat whose turn ended and
  when the turn passes on by itself (indexed: the clock job looks for due ones).
- ``users.handover_seconds``: how long the user's turns wait for their confirmation (NULL: the default).

Revision ID: 0013_handover
Revises: 0012_credentials (main's head when this was written; re-chained on every merge)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_handover"
down_revision = "0012_credentials"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (SQLite has it), like 0010: no table is rebuilt.
    op.add_column("games", sa.Column("handover_seat", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("handover_due", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_games_handover_due", "games", ["handover_due"])
    op.add_column("users", sa.Column("handover_seconds", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_index("ix_games_handover_due", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("handover_due")
        batch.drop_column("handover_seat")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("handover_seconds")
