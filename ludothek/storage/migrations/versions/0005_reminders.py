"""The deadline a reminder mail was queued for, so each deadline is reminded once (issue 9, part 3).

Revision ID: 0005_reminders
Revises: 0004_mail
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_reminders"
down_revision = "0004_mail"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("reminded_for", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("reminded_for")
