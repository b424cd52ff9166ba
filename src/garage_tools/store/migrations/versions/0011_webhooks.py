"""Webhook endpoints of partners, and webhook deliveries as a second channel of the outbox.

Existing outbox rows are e-mail (`channel` defaults to "mail"); nothing else changes for them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("partner_id", sa.String(64), nullable=False),
        sa.Column("url", sa.String(2000), nullable=False),
        sa.Column("secret_sealed", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_success_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["partner_id"],
            ["partners.id"],
            name=op.f("fk_webhook_endpoints_partner_id_partners"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_endpoints")),
    )
    op.create_index(op.f("ix_webhook_endpoints_partner_id"), "webhook_endpoints", ["partner_id"])
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("channel", sa.String(16), nullable=False, server_default="mail"))
        batch.add_column(sa.Column("endpoint_id", sa.String(32), nullable=True))
        batch.add_column(sa.Column("last_status", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("last_response", sa.String(500), nullable=True))
        batch.add_column(sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_foreign_key(
            op.f("fk_outbox_endpoint_id_webhook_endpoints"),
            "webhook_endpoints",
            ["endpoint_id"],
            ["id"],
            ondelete="CASCADE",
        )
        batch.create_index(op.f("ix_outbox_endpoint_id"), ["endpoint_id"])


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_index(op.f("ix_outbox_endpoint_id"))
        batch.drop_constraint(op.f("fk_outbox_endpoint_id_webhook_endpoints"), type_="foreignkey")
        for column in ("last_attempt_at", "last_response", "last_status", "endpoint_id", "channel"):
            batch.drop_column(column)
    op.drop_index(op.f("ix_webhook_endpoints_partner_id"), table_name="webhook_endpoints")
    op.drop_table("webhook_endpoints")
