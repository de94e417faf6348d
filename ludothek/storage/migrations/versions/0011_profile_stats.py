"""Profiles in constant time per user (issue 12): per-player game counts and when each seat's game ended.

- ``player_stats``: one row per (user, game kind): finished games played, won (first place, ties
  included) and when the last of them finished.  Written in the transaction that stores a game's
  end (``rating_update.finish_game``) and rebuilt by ``ludothek ratings --recompute``; the profile
  reads it instead of counting the player's seats (134 ms for a player with thousands of games).
- ``seats.ended_at``: when the seat's game ended (finished or abandoned), so that a player's last
  games are the first rows of the index ``ix_seats_user_ended`` (user_id, ended_at, game_id)
  instead of a sort of all their games.

Both are filled in here for the games that ended before.

Revision ID: 0011_profile_stats
Revises: 0010_bot_turns
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_profile_stats"
down_revision = "0010_bot_turns"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    # Plain ADD COLUMN: SQLite has it, and no table is rebuilt.
    op.add_column("seats", sa.Column("ended_at", TS, nullable=True))
    op.create_table(
        "player_stats",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("last_finished_at", TS, nullable=True),
    )
    bind = op.get_bind()
    bind.execute(sa.text(
        "UPDATE seats SET ended_at = (SELECT finished_at FROM games WHERE games.id = seats.game_id) "
        "WHERE game_id IN (SELECT id FROM games WHERE status IN ('finished', 'abandoned'))"))
    bind.execute(sa.text(
        "INSERT INTO player_stats (user_id, game, played, won, last_finished_at) "
        "SELECT seats.user_id, games.game, COUNT(*), SUM(CASE WHEN seats.place = 1 THEN 1 ELSE 0 END), "
        "MAX(games.finished_at) FROM seats JOIN games ON games.id = seats.game_id "
        "WHERE games.status = 'finished' AND seats.user_id IS NOT NULL AND seats.place IS NOT NULL "
        "GROUP BY seats.user_id, games.game"))
    op.create_index("ix_seats_user_ended", "seats", ["user_id", "ended_at", "game_id"])


def downgrade() -> None:
    op.drop_index("ix_seats_user_ended", table_name="seats")
    op.drop_table("player_stats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("ended_at")
