"""Web Push (issue 30): the browsers that receive push messages, and the site's VAPID key pair.

- ``push_subscriptions``: one row per browser (endpoint) of a user, unique by endpoint.
- ``vapid_keys``: at most one row (``id`` 1), made on the first start unless a setting gives the key.

Revision ID: 0015_push
Revises: 0013_handover (main's head when this was written; re-chained on every merge)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_push"
down_revision = "0014_channels"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("endpoint", sa.String(2048), nullable=False),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(50), nullable=False),
        sa.Column("label", sa.String(80), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("last_success_at", TS, nullable=True),
        sa.UniqueConstraint("endpoint", name="uq_push_subscriptions_endpoint"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_push_subscriptions_user_id", "push_subscriptions", ["user_id"])
    op.create_table(
        "vapid_keys",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("private_key", sa.Text(), nullable=False),
        sa.Column("public_key", sa.String(100), nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("vapid_keys")
    op.drop_index("ix_push_subscriptions_user_id", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
