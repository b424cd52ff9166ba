"""A rotated refresh token keeps, sealed, the tokens that replaced it: a retry within seconds gets them again.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("oauth_tokens") as table:
        table.add_column(sa.Column("successor", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("oauth_tokens") as table:
        table.drop_column("successor")
