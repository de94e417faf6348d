"""Credentials generations and undoable address changes (issue 28, items 7-9).

- ``users.cred_gen``: a counter that every password change, reset and address change raises.  A
  login reads it with the password hash it checks, and creates its session or token only while the
  counter still has that value (one conditional statement in the creating transaction): a login that
  checked the old password can no longer create a credential after the change.  Reset links carry it
  too, so any such change makes every outstanding reset link stale.
- ``email_changes``: one row per change or removal of a verified address; the notice mailed to the
  old address links to it, and the link undoes the change once (``used_at``).

Revision ID: 0012_credentials
Revises: 0011_profile_stats (main's head when this was written; re-chained on every merge)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_credentials"
down_revision = "0011_profile_stats"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    # Plain ADD COLUMN with a constant default: SQLite has it, and no table is rebuilt.
    op.add_column("users", sa.Column("cred_gen", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "email_changes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("old_address", sa.String(254), nullable=False),
        sa.Column("new_address", sa.String(254), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("used_at", TS, nullable=True),
    )
    op.create_index("ix_email_changes_user_id", "email_changes", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_email_changes_user_id", table_name="email_changes")
    op.drop_table("email_changes")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("cred_gen")
