"""What a homeowner weighs before calling a pro (license, insurance, years in business, hours, guarantee), and the
time zone a partner's console shows times in. All optional: existing partners have none until they or an
operator fill them in.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

COLUMNS = (
    ("license_number", sa.String(40)),
    ("insured", sa.Boolean()),
    ("in_business_since", sa.Integer()),
    ("hours", sa.String(120)),
    ("guarantee", sa.String(200)),
    ("time_zone", sa.String(64)),
)


def upgrade() -> None:
    with op.batch_alter_table("partners") as batch:
        for name, kind in COLUMNS:
            batch.add_column(sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("partners") as batch:
        for name, _ in reversed(COLUMNS):
            batch.drop_column(name)
