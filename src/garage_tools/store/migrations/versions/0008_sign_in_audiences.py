"""Sign-in links and sessions say whose pages they open: the developer portal or a partner's console.

One magic-link machinery serves several kinds of people. `audience` keeps them apart (a developer's link
never opens a partner's console), and `return_to` is the page a link brings its reader back to (an
authorization that was waiting for the person to sign in, say). Every row made before is a developer's.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("login_tokens") as batch:
        batch.add_column(sa.Column("audience", sa.String(16), nullable=False, server_default="developer"))
        batch.add_column(sa.Column("return_to", sa.String(500), nullable=True))
    with op.batch_alter_table("portal_sessions") as batch:
        batch.add_column(sa.Column("audience", sa.String(16), nullable=False, server_default="developer"))


def downgrade() -> None:
    with op.batch_alter_table("portal_sessions") as batch:
        batch.drop_column("audience")
    with op.batch_alter_table("login_tokens") as batch:
        batch.drop_column("return_to")
        batch.drop_column("audience")
