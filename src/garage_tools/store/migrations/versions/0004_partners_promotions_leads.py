"""Partner directory, promotions, directory version, lead events.

The directory starts empty at version 0; the first process that reads it seeds the packaged sample
directory (garage_tools.partners.directory), so this migration stays schema only.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "partners",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(120), nullable=False),
        sa.Column("phone", sa.String(32), nullable=False),
        sa.Column("scheduler_url", sa.String(500), nullable=True),
        sa.Column("url", sa.String(500), nullable=False),
        sa.Column("region", sa.String(80), nullable=False),
        sa.Column("region_key", sa.String(64), nullable=False),
        sa.Column("zip_prefixes", sa.JSON(), nullable=False),
        sa.Column("zips", sa.JSON(), nullable=False),
        sa.Column("center_zip", sa.String(5), nullable=True),
        sa.Column("center_lat", sa.Float(), nullable=True),
        sa.Column("center_lon", sa.Float(), nullable=True),
        sa.Column("radius_miles", sa.Float(), nullable=True),
        sa.Column("services", sa.JSON(), nullable=False),
        sa.Column("emergency", sa.Boolean(), nullable=False),
        sa.Column("promotions_opt_in", sa.Boolean(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_partners")),
    )
    op.create_index(op.f("ix_partners_region_key"), "partners", ["region_key"])
    op.create_table(
        "partner_promotions",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("partner_id", sa.String(64), nullable=False),
        sa.Column("title", sa.String(120), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("discount_type", sa.String(16), nullable=False),
        sa.Column("discount_value", sa.Float(), nullable=False),
        sa.Column("service_types", sa.JSON(), nullable=False),
        sa.Column("issue_keys", sa.JSON(), nullable=False),
        sa.Column("region_keys", sa.JSON(), nullable=False),
        sa.Column("valid_from", sa.Date(), nullable=False),
        sa.Column("valid_until", sa.Date(), nullable=False),
        sa.Column("terms", sa.Text(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["partner_id"],
            ["partners.id"],
            name=op.f("fk_partner_promotions_partner_id_partners"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_partner_promotions")),
    )
    op.create_index(op.f("ix_partner_promotions_partner_id"), "partner_promotions", ["partner_id"])
    state = op.create_table(
        "partner_directory_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_partner_directory_state")),
    )
    op.bulk_insert(state, [{"id": 1, "version": 0, "source": "empty", "updated_at": datetime.now(UTC)}])
    op.create_table(
        "lead_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("partner_id", sa.String(64), nullable=True),
        sa.Column("covered", sa.Boolean(), nullable=False),
        sa.Column("zip", sa.String(5), nullable=True),
        sa.Column("issue", sa.String(64), nullable=True),
        sa.Column("door_size", sa.String(20), nullable=True),
        sa.Column("lead_heat", sa.String(8), nullable=True),
        sa.Column("surface", sa.String(16), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lead_events")),
    )
    op.create_index(op.f("ix_lead_events_created_at"), "lead_events", ["created_at"])
    op.create_index(op.f("ix_lead_events_partner_id"), "lead_events", ["partner_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_lead_events_partner_id"), table_name="lead_events")
    op.drop_index(op.f("ix_lead_events_created_at"), table_name="lead_events")
    op.drop_table("lead_events")
    op.drop_table("partner_directory_state")
    op.drop_index(op.f("ix_partner_promotions_partner_id"), table_name="partner_promotions")
    op.drop_table("partner_promotions")
    op.drop_index(op.f("ix_partners_region_key"), table_name="partners")
    op.drop_table("partners")
