"""Friends, blocks, last activity, game chat and chat reports (issue 12, part 4).

Revision ID: 0008_social
Revises: 0007_history (main's head when this was merged; re-chained on every merge)
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_social"
down_revision = "0007_history"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def _user(column: str, primary_key: bool = False) -> sa.Column[int]:
    return sa.Column(column, sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=primary_key,
                     nullable=False)


def upgrade() -> None:
    op.create_table(
        "friends",
        _user("user_id", True), _user("friend_id", True),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_friends_friend_id", "friends", ["friend_id"])
    op.create_table(
        "blocks",
        _user("user_id", True), _user("blocked_id", True),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_blocks_blocked_id", "blocks", ["blocked_id"])
    op.create_table(
        "user_activity",
        _user("user_id", True),
        sa.Column("seen_at", TS, nullable=False),
    )
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_chat_messages_game_id", "chat_messages", ["game_id"])
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("message_id", sa.Integer(), sa.ForeignKey("chat_messages.id", ondelete="CASCADE"), nullable=False),
        _user("reporter_id"),
        sa.Column("reason", sa.String(12), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("resolved_at", TS, nullable=True),
        sa.UniqueConstraint("message_id", "reporter_id", name="uq_chat_reports_message_reporter"),
    )
    op.create_index("ix_chat_reports_reporter_id", "chat_reports", ["reporter_id"])
    op.create_index("ix_chat_reports_resolved_at", "chat_reports", ["resolved_at"])


def downgrade() -> None:
    op.drop_table("chat_reports")
    op.drop_table("chat_messages")
    op.drop_table("user_activity")
    op.drop_table("blocks")
    op.drop_table("friends")
