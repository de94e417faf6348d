"""Mail: e-mail addresses, notification settings, the transactional outbox, used links, the sender lease.

Revision ID: 0004_mail
Revises: 0003_clocks (on main when this was merged)
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_mail"
down_revision = "0003_clocks"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "user_emails",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("address", sa.String(254), nullable=True),
        sa.Column("verified_at", TS, nullable=True),
        sa.Column("pending", sa.String(254), nullable=True),
        sa.Column("pending_since", TS, nullable=True),
    )
    op.create_table(
        "notify_prefs",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("turns", sa.String(8), nullable=False),
        sa.Column("digest_hour", sa.Integer(), nullable=False),
        sa.Column("timezone", sa.String(64), nullable=False),
        sa.Column("invites", sa.Boolean(), nullable=False),
        sa.Column("ended", sa.Boolean(), nullable=False),
        sa.Column("last_digest_on", sa.String(10), nullable=True),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seq", sa.Integer(), nullable=True),
        sa.Column("payload_json", sa.Text(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", TS, nullable=False),
        sa.Column("sent_at", TS, nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
    )
    # The outbox gets a row with many moves, and on SQLite every index is another page written per move:
    # only the rare verification/reset rows are indexed there (partial index, for the rate limit), and
    # the sender finds due rows by id from a low-water mark.  PostgreSQL claims by the due index.
    op.create_index("ix_outbox_requests", "outbox", ["user_id", "created_at"],
                    sqlite_where=sa.text("kind IN ('verify', 'reset')"),
                    postgresql_where=sa.text("kind IN ('verify', 'reset')"))
    if op.get_bind().dialect.name != "sqlite":
        op.create_index("ix_outbox_due", "outbox", ["status", "next_attempt_at"])
    op.create_table(
        "turn_mails",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer(), nullable=False),
    )
    op.create_table(
        "outbox_attempts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("outbox_id", sa.Integer(), sa.ForeignKey("outbox.id", ondelete="CASCADE"), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
    )
    op.create_index("ix_outbox_attempts_outbox_id", "outbox_attempts", ["outbox_id"])
    op.create_table(
        "used_links",
        sa.Column("nonce", sa.String(64), primary_key=True),
        sa.Column("used_at", TS, nullable=False),
    )
    op.create_table(
        "mail_lease",
        sa.Column("name", sa.String(16), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("until", TS, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("mail_lease")
    op.drop_table("used_links")
    op.drop_index("ix_outbox_attempts_outbox_id", "outbox_attempts")
    op.drop_table("outbox_attempts")
    op.drop_table("turn_mails")
    if op.get_bind().dialect.name != "sqlite":
        op.drop_index("ix_outbox_due", "outbox")
    op.drop_index("ix_outbox_requests", "outbox")
    op.drop_table("outbox")
    op.drop_table("notify_prefs")
    op.drop_table("user_emails")
