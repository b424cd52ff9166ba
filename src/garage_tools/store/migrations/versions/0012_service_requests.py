"""Service requests (a homeowner asks a pro to come out) with their history, and referrals (searches) apart
from leads.

What is moved: every lead that was a search (`source = routing`) and every inspection lead without consent to
share contact details becomes a referral, at most one per partner, ZIP code, issue, heat, source and day
(the callers of old searches were never recorded, so one person's repeated searches cannot be told from two
people's: counting them once is the honest floor). Those rows leave `lead_events`, which keeps only real
leads: inspection leads whose homeowner agreed that the pro may contact them. The downgrade puts referrals
back as routing leads, marked told, so no digest mails them again.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def upgrade() -> None:
    op.create_table(
        "service_requests",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("token_salt", sa.String(32), nullable=True),
        sa.Column("idempotency_hash", sa.String(64), nullable=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("partner_id", sa.String(64), nullable=False),
        sa.Column("offered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("previous_offers", sa.JSON(), nullable=False),
        sa.Column("zip", sa.String(5), nullable=False),
        sa.Column("issue", sa.String(64), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("door_size", sa.String(20), nullable=True),
        sa.Column("contact_name", sa.String(100), nullable=False),
        sa.Column("contact_phone", sa.String(32), nullable=True),
        sa.Column("contact_email", sa.String(320), nullable=True),
        sa.Column("consent_contact_share", sa.Boolean(), nullable=False),
        sa.Column("windows", sa.JSON(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("report_id", sa.String(32), nullable=True),
        sa.Column("language", sa.String(8), nullable=False, server_default="en"),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("arrival_from", sa.DateTime(timezone=True), nullable=True),
        sa.Column("arrival_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.String(300), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("first_response_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("base_url", sa.String(300), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_service_requests")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_service_requests_token_hash")),
        sa.UniqueConstraint("idempotency_hash", name=op.f("uq_service_requests_idempotency_hash")),
    )
    op.create_index("ix_service_requests_partner_id_created_at", "service_requests", ["partner_id", "created_at"])
    op.create_index("ix_service_requests_status_offered_at", "service_requests", ["status", "offered_at"])
    op.create_index(op.f("ix_service_requests_created_at"), "service_requests", ["created_at"])
    op.create_index(op.f("ix_service_requests_contact_email"), "service_requests", ["contact_email"])
    op.create_table(
        "service_request_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("request_id", sa.String(16), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("by", sa.String(16), nullable=False),
        sa.Column("partner_id", sa.String(64), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["request_id"],
            ["service_requests.id"],
            name=op.f("fk_service_request_events_request_id_service_requests"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_service_request_events")),
    )
    op.create_index(op.f("ix_service_request_events_request_id"), "service_request_events", ["request_id"])
    referrals = op.create_table(
        "referrals",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("partner_id", sa.String(64), nullable=True),
        sa.Column("covered", sa.Boolean(), nullable=False),
        sa.Column("zip", sa.String(5), nullable=True),
        sa.Column("issue", sa.String(64), nullable=True),
        sa.Column("door_size", sa.String(20), nullable=True),
        sa.Column("heat", sa.String(8), nullable=True),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("surface", sa.String(16), nullable=False),
        sa.Column("caller", sa.String(64), nullable=False),
        sa.Column("dedupe", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_referrals")),
        sa.UniqueConstraint("dedupe", name=op.f("uq_referrals_dedupe")),
    )
    op.create_index("ix_referrals_partner_id_day", "referrals", ["partner_id", "day"])
    op.create_index(op.f("ix_referrals_day"), "referrals", ["day"])
    _move_searches(referrals)


def _move_searches(referrals: sa.Table) -> None:
    leads = sa.table(
        "lead_events",
        sa.column("id", sa.Integer()),
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("partner_id", sa.String()),
        sa.column("covered", sa.Boolean()),
        sa.column("zip", sa.String()),
        sa.column("issue", sa.String()),
        sa.column("door_size", sa.String()),
        sa.column("lead_heat", sa.String()),
        sa.column("surface", sa.String()),
        sa.column("source", sa.String()),
        sa.column("contact_email", sa.String()),
    )
    not_a_lead = sa.or_(leads.c.source == "routing", leads.c.contact_email.is_(None))
    bind = op.get_bind()
    rows: dict[str, dict[str, Any]] = {}
    for row in bind.execute(sa.select(leads).where(not_a_lead).order_by(leads.c.id)).mappings():
        at = _aware(row["created_at"])
        key = "\n".join(
            str(part or "")
            for part in (row["partner_id"], row["zip"], row["issue"], row["lead_heat"], row["source"], at.date())
        )
        dedupe = hashlib.sha256(f"legacy\n{key}".encode()).hexdigest()
        rows.setdefault(
            dedupe,
            {
                "created_at": at,
                "day": at.date(),
                "partner_id": row["partner_id"],
                "covered": row["covered"],
                "zip": row["zip"],
                "issue": row["issue"],
                "door_size": row["door_size"],
                "heat": row["lead_heat"],
                "source": row["source"],
                "surface": row["surface"],
                "caller": "legacy",
                "dedupe": dedupe,
            },
        )
    batch = list(rows.values())
    for start in range(0, len(batch), 500):
        op.bulk_insert(referrals, batch[start : start + 500])
    bind.execute(sa.delete(leads).where(not_a_lead))


def downgrade() -> None:
    bind = op.get_bind()
    referrals = sa.table(
        "referrals",
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("partner_id", sa.String()),
        sa.column("covered", sa.Boolean()),
        sa.column("zip", sa.String()),
        sa.column("issue", sa.String()),
        sa.column("door_size", sa.String()),
        sa.column("heat", sa.String()),
        sa.column("source", sa.String()),
        sa.column("surface", sa.String()),
    )
    leads = sa.table(
        "lead_events",
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("partner_id", sa.String()),
        sa.column("covered", sa.Boolean()),
        sa.column("zip", sa.String()),
        sa.column("issue", sa.String()),
        sa.column("door_size", sa.String()),
        sa.column("lead_heat", sa.String()),
        sa.column("surface", sa.String()),
        sa.column("source", sa.String()),
        sa.column("notified_at", sa.DateTime(timezone=True)),
    )
    now = datetime.now(UTC)
    back = [
        {
            "created_at": row["created_at"],
            "partner_id": row["partner_id"],
            "covered": row["covered"],
            "zip": row["zip"],
            "issue": row["issue"],
            "door_size": row["door_size"],
            "lead_heat": row["heat"],
            "surface": row["surface"],
            "source": row["source"],
            "notified_at": now,
        }
        for row in bind.execute(sa.select(referrals)).mappings()
    ]
    for start in range(0, len(back), 500):
        op.bulk_insert(leads, back[start : start + 500])
    op.drop_table("referrals")
    op.drop_table("service_request_events")
    op.drop_table("service_requests")
