"""Bot accounts and their ratings among bots (issue 33, "Bot API").

- ``bot_accounts``: a user that is a program, with the person who runs it (``owner_id``) and whether
  its games count for the people's ratings (``rated_with_people``, off unless the owner opts in).
- ``bot_ratings``: openskill ratings of bot accounts among bot accounts, per game kind (the bot
  leaderboard), indexed like ``ratings`` for ranking.

Revision ID: 0021_bot_accounts
Revises: 0018_reset_links (re-chained by the lead on merge)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021_bot_accounts"
down_revision = "0018_reset_links"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_accounts",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("rated_with_people", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_bot_accounts_owner_id", "bot_accounts", ["owner_id"])
    op.create_table(
        "bot_ratings",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("conservative", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_bot_ratings_board", "bot_ratings", ["game", "conservative"])


def downgrade() -> None:
    op.drop_index("ix_bot_ratings_board", table_name="bot_ratings")
    op.drop_table("bot_ratings")
    op.drop_index("ix_bot_accounts_owner_id", table_name="bot_accounts")
    op.drop_table("bot_accounts")
