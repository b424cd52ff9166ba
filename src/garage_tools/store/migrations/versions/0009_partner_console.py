"""The partner console: who at a partner may sign in, which leads they have been told of, what partners did.

`partner_contacts` holds the addresses a partner gave us (one per partner for now: the directory's
`contactEmail`; a table so that several can come later). Lead notices and sign-in links go to these
addresses only. `lead_events.notified_at` says when a lead reached its partner (a hot lead's notice at
once, the others in the daily digest), so each lead is told once; leads recorded before this revision
count as told, so the first digest does not send a partner its whole history. `partner_audit` keeps who
did what in the console, and when.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "partner_contacts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("partner_id", sa.String(64), sa.ForeignKey("partners.id", ondelete="CASCADE"), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("uq_partner_contacts_email", "partner_contacts", ["email"], unique=True)
    op.create_index("ix_partner_contacts_partner_id", "partner_contacts", ["partner_id"])
    with op.batch_alter_table("lead_events") as batch:
        batch.add_column(sa.Column("notified_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE lead_events SET notified_at = created_at")
    op.create_index("ix_lead_events_partner_id_created_at", "lead_events", ["partner_id", "created_at"])
    op.create_table(
        "partner_audit",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("partner_id", sa.String(64), nullable=False),
        sa.Column("actor", sa.String(320), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
    )
    op.create_index("ix_partner_audit_partner_id_created_at", "partner_audit", ["partner_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_partner_audit_partner_id_created_at", table_name="partner_audit")
    op.drop_table("partner_audit")
    op.drop_index("ix_lead_events_partner_id_created_at", table_name="lead_events")
    with op.batch_alter_table("lead_events") as batch:
        batch.drop_column("notified_at")
    op.drop_index("ix_partner_contacts_partner_id", table_name="partner_contacts")
    op.drop_index("uq_partner_contacts_email", table_name="partner_contacts")
    op.drop_table("partner_contacts")
