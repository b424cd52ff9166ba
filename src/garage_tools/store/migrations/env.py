"""Alembic environment: runs on the connection the service hands it (see Database.migrate)."""

from __future__ import annotations

from alembic import context

from garage_tools.store.models import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through `garage-tools db upgrade` (Database.migrate)")

context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
