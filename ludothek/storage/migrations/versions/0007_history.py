"""A community with a memory (issue 12): ratings, rating history, places, profiles, history indexes.

- ``seats.place``: the final place of each seat of a finished game (the stored result, players who
  timed out or resigned placed last), so that played/won counts are one indexed query; filled in
  here for the games that finished before.
- ``ratings``: one row per (user, game kind): the openskill rating (mu, sigma), its conservative
  value mu - 3 sigma (indexed: the leaderboard reads it in order), rated games and wins.
- ``rating_changes``: one row per rated player of a rated game, in the order the ratings were
  updated (``id``): the rating history, and the order ``ludothek ratings --recompute`` replays.
- ``users.about`` (plain text, at most 500 characters) and ``users.languages`` (codes, comma-separated).
- Indexes for the game pages: a kind's games by creation and its finished games by time.

Revision ID: 0007_history
Revises: 0005_reminders
Create Date: 2026-11-23
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0007_history"
down_revision = "0005_reminders"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("about", sa.Text(), nullable=True))
        batch.add_column(sa.Column("languages", sa.String(60), nullable=True))
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("place", sa.Integer(), nullable=True))
    op.create_index("ix_games_kind_finished", "games", ["game", "status", "finished_at"])
    op.create_index("ix_games_kind_created", "games", ["game", "created_at"])
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("conservative", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_index("ix_ratings_board", "ratings", ["game", "conservative"])
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.UniqueConstraint("game_id", "user_id", name="uq_rating_changes_game_user"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_rating_changes_user", "rating_changes", ["user_id", "game", "id"])
    # The places of the games that finished before this revision, from their stored results.
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, result_json FROM games WHERE status = 'finished' AND result_json IS NOT NULL"))
    updates = []
    for game_id, result_json in rows:
        for entry in json.loads(result_json):
            updates.append({"place": int(entry["rank"]), "game_id": game_id, "seat": int(entry["seat"])})
    if updates:
        bind.execute(sa.text("UPDATE seats SET place = :place WHERE game_id = :game_id AND seat = :seat"), updates)


def downgrade() -> None:
    op.drop_index("ix_rating_changes_user", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
    op.drop_index("ix_games_kind_created", table_name="games")
    op.drop_index("ix_games_kind_finished", table_name="games")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("place")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("languages")
        batch.drop_column("about")
