"""Open data (issue 32, `ludothek.services.opendata`): monthly exports and the players' opt-out.

- ``open_data_exports``: one row per month, the claim of the worker writing it (owner, lease) and,
  once written, the published file (name, size, SHA-256, games).
- ``export_prefs``: a row per player who wants a pseudonym instead of their name in the exports.
- ``game_statistics``: each game kind's statistics as last rebuilt; ``statistics_builds``: the claim of
  each night's rebuild (issue 32, "Statistics").

Revision ID: 0022_exports
Revises: 0018_reset_links (main's head when this was written; re-chained on every merge)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022_exports"
down_revision = "0020_tournaments"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "open_data_exports",
        sa.Column("month", sa.String(7), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("owner", sa.String(80), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("file", sa.String(120), nullable=True),
        sa.Column("bytes", sa.BigInteger(), nullable=True),
        sa.Column("sha256", sa.String(64), nullable=True),
        sa.Column("games", sa.Integer(), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "export_prefs",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "game_statistics",
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("built_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("figures_json", sa.Text(), nullable=False),
    )
    op.create_table(
        "statistics_builds",
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("owner", sa.String(80), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("statistics_builds")
    op.drop_table("game_statistics")
    op.drop_table("export_prefs")
    op.drop_table("open_data_exports")
