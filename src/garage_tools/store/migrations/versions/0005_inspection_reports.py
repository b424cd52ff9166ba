"""Inspection reports.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "inspection_reports",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("idempotency_hash", sa.String(64), nullable=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("zip", sa.String(5), nullable=False),
        sa.Column("name", sa.String(100), nullable=True),
        sa.Column("consent_marketing", sa.Boolean(), nullable=False),
        sa.Column("consent_contact_share", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("grade", sa.String(2), nullable=False),
        sa.Column("email_requested", sa.Boolean(), nullable=False),
        sa.Column("mail_message_id", sa.String(255), nullable=True),
        sa.Column("submission", sa.JSON(), nullable=False),
        sa.Column("report", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inspection_reports")),
        sa.UniqueConstraint("idempotency_hash", name=op.f("uq_inspection_reports_idempotency_hash")),
    )
    op.create_index(op.f("ix_inspection_reports_created_at"), "inspection_reports", ["created_at"])
    op.create_index(op.f("ix_inspection_reports_zip"), "inspection_reports", ["zip"])


def downgrade() -> None:
    op.drop_index(op.f("ix_inspection_reports_zip"), table_name="inspection_reports")
    op.drop_index(op.f("ix_inspection_reports_created_at"), table_name="inspection_reports")
    op.drop_table("inspection_reports")
