"""Leads know where they came from: routing or an inspection, the report, and consented contact details.

`source` is `routing` for every lead recorded before (and for routeByZip), `inspection` for a lead an
inspection report routed. `report_id` and `contact_name`/`contact_email` are filled only when the
homeowner agreed that the matched pro may contact them (`contactShare`); otherwise they stay null.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Batch mode: SQLite cannot add a NOT NULL column with a default in place of a table rebuild otherwise.
    with op.batch_alter_table("lead_events") as batch:
        batch.add_column(sa.Column("source", sa.String(16), nullable=False, server_default="routing"))
        batch.add_column(sa.Column("report_id", sa.String(32), nullable=True))
        batch.add_column(sa.Column("contact_name", sa.String(100), nullable=True))
        batch.add_column(sa.Column("contact_email", sa.String(320), nullable=True))
    op.create_index(op.f("ix_lead_events_report_id"), "lead_events", ["report_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_lead_events_report_id"), table_name="lead_events")
    with op.batch_alter_table("lead_events") as batch:
        batch.drop_column("contact_email")
        batch.drop_column("contact_name")
        batch.drop_column("report_id")
        batch.drop_column("source")
