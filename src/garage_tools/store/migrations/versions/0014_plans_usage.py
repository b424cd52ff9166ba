"""Plans and usage: every API key and connected app has a plan (NULL: the operator's default plan), and each
key's calls are counted per day for its dashboard.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as table:
        table.add_column(sa.Column("plan", sa.String(32), nullable=True))
    with op.batch_alter_table("oauth_grants") as table:
        table.add_column(sa.Column("plan", sa.String(32), nullable=True))
    op.create_table(
        "key_usage",
        sa.Column("key_id", sa.String(48), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key_id", "day", name=op.f("pk_key_usage")),
    )


def downgrade() -> None:
    op.drop_table("key_usage")
    with op.batch_alter_table("oauth_grants") as table:
        table.drop_column("plan")
    with op.batch_alter_table("api_keys") as table:
        table.drop_column("plan")
