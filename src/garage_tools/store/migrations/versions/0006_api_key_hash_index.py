"""API keys are looked up by the hash of the whole key.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("uq_api_keys_secret_hash", "api_keys", ["secret_hash"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_api_keys_secret_hash", table_name="api_keys")
