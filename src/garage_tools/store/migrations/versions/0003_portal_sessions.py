"""Developer portal: developers, magic sign-in links, browser sessions.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "developers",
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_sign_in_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("email", name=op.f("pk_developers")),
    )
    op.create_table(
        "login_tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("request_ip", sa.String(45), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_login_tokens_token_hash")),
    )
    op.create_index(op.f("ix_login_tokens_expires_at"), "login_tokens", ["expires_at"])
    op.create_index("ix_login_tokens_email_used_at", "login_tokens", ["email", "used_at"])
    op.create_table(
        "portal_sessions",
        sa.Column("id_hash", sa.String(64), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id_hash", name=op.f("pk_portal_sessions")),
    )
    op.create_index(op.f("ix_portal_sessions_email"), "portal_sessions", ["email"])
    op.create_index(op.f("ix_portal_sessions_expires_at"), "portal_sessions", ["expires_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_portal_sessions_expires_at"), table_name="portal_sessions")
    op.drop_index(op.f("ix_portal_sessions_email"), table_name="portal_sessions")
    op.drop_table("portal_sessions")
    op.drop_index("ix_login_tokens_email_used_at", table_name="login_tokens")
    op.drop_index(op.f("ix_login_tokens_expires_at"), table_name="login_tokens")
    op.drop_table("login_tokens")
    op.drop_table("developers")
