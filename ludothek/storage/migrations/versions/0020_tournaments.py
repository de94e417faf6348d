"""Tournaments (issue 31, `ludothek.services.tournaments.site`).

- ``tournaments``: game and options, table size, format, rounds, time control, entry window and
  limits, start rule, organiser, state and the last round started;
- ``tournament_entrants`` (one per person and tournament, with withdrawn/removed),
  ``tournament_rounds`` (unique per tournament and number: a round exists once),
  ``tournament_tables`` (a round's table is an ordinary game, linked by its unique ``game_id``) and
  ``tournament_byes``;
- ``outbox.kind`` widened to 24 characters for ``tournament_entered`` (PostgreSQL only: SQLite does
  not enforce a VARCHAR's length, and rebuilding the outbox there is not worth it).

Revision ID: 0020_tournaments
Revises: 0018_reset_links (main's head when this was written; re-chained on every merge)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020_tournaments"
down_revision = "0019_snapshots"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("options_json", sa.Text(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("clock_json", sa.Text(), nullable=False),
        sa.Column("points_json", sa.Text(), nullable=True),
        sa.Column("entry_opens", sa.DateTime(timezone=True), nullable=True),
        sa.Column("entry_closes", sa.DateTime(timezone=True), nullable=True),
        sa.Column("min_entrants", sa.Integer(), nullable=False),
        sa.Column("max_entrants", sa.Integer(), nullable=False),
        sa.Column("min_rating", sa.Float(), nullable=True),
        sa.Column("invite_only", sa.Boolean(), nullable=False),
        sa.Column("start_rule", sa.String(8), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("round_days", sa.Float(), nullable=True),
        sa.Column("organiser_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_tournaments_state", "tournaments", ["state"])
    op.create_table(
        "tournament_entrants",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("entered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("left_round", sa.Integer(), nullable=True),
        sa.UniqueConstraint("tournament_id", "user_id", name="uq_tournament_entrants_user"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_tournament_entrants_tournament_id", "tournament_entrants", ["tournament_id"])
    op.create_index("ix_tournament_entrants_user_id", "tournament_entrants", ["user_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("round_no", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("tournament_id", "round_no", name="uq_tournament_rounds_no"),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("round_id", sa.Integer(), sa.ForeignKey("tournament_rounds.id", ondelete="CASCADE"), nullable=False),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seats_json", sa.Text(), nullable=False),
        sa.UniqueConstraint("game_id"),
    )
    op.create_index("ix_tournament_tables_round_id", "tournament_tables", ["round_id"])
    op.create_index("ix_tournament_tables_tournament_id", "tournament_tables", ["tournament_id"])
    op.create_table(
        "tournament_byes",
        sa.Column("round_id", sa.Integer(), sa.ForeignKey("tournament_rounds.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("entrant_id", sa.Integer(), sa.ForeignKey("tournament_entrants.id", ondelete="CASCADE"),
                  primary_key=True),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("outbox", "kind", type_=sa.String(24), existing_nullable=False)


def downgrade() -> None:
    op.drop_table("tournament_byes")
    op.drop_index("ix_tournament_tables_tournament_id", table_name="tournament_tables")
    op.drop_index("ix_tournament_tables_round_id", table_name="tournament_tables")
    op.drop_table("tournament_tables")
    op.drop_table("tournament_rounds")
    op.drop_index("ix_tournament_entrants_user_id", table_name="tournament_entrants")
    op.drop_index("ix_tournament_entrants_tournament_id", table_name="tournament_entrants")
    op.drop_table("tournament_entrants")
    op.drop_index("ix_tournaments_state", table_name="tournaments")
    op.drop_table("tournaments")
