"""Correspondence clocks, seats taken over by bots, abandoning, vacations (issue 9, part 3).

Revision ID: 0003_clocks
Revises: 0002_sessions
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_clocks"
down_revision = "0002_sessions"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("clock_json", sa.Text(), nullable=True))
        batch.add_column(sa.Column("deadline", TS, nullable=True))
        batch.add_column(sa.Column("seats_rev", sa.Integer(), nullable=False, server_default="0"))
        batch.create_index("ix_games_deadline", ["deadline"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("bank_seconds", sa.Float(), nullable=True))
        batch.add_column(sa.Column("left_as", sa.String(12), nullable=True))
        batch.add_column(sa.Column("abandon_vote", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "vacations",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("starts", TS, nullable=False),
        sa.Column("ends", TS, nullable=False),
    )
    op.create_index("ix_vacations_user_id", "vacations", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_vacations_user_id", "vacations")
    op.drop_table("vacations")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("abandon_vote")
        batch.drop_column("left_as")
        batch.drop_column("bank_seconds")
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_deadline")
        batch.drop_column("seats_rev")
        batch.drop_column("deadline")
        batch.drop_column("clock_json")
