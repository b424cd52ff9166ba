"""Throwaway databases for store tests: a SQLite file, or a fresh database on the local PostgreSQL server."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg

from garage_tools.store.database import Database
from tests.conftest import POSTGRES_ADMIN_URL


@asynccontextmanager
async def throwaway_url(kind: str, tmp_path: Path, *, password: str | None = None) -> AsyncIterator[str]:
    """The URL of an empty database that is dropped afterwards. `password` is put in a PostgreSQL URL
    (the local server trusts loopback, so any password works) to check that it is never shown."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / f'{uuid.uuid4().hex[:8]}.db'}"
        return
    name = f"garage_tools_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(POSTGRES_ADMIN_URL)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        base = POSTGRES_ADMIN_URL.replace("postgresql://", "postgresql+asyncpg://").rsplit("/", 1)[0]
        if password is not None:
            base = base.replace("postgres@", f"postgres:{password}@", 1)
        yield f"{base}/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


@asynccontextmanager
async def throwaway_database(kind: str, tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated `Database` on a throwaway database."""
    async with throwaway_url(kind, tmp_path) as url:
        database = Database(url)
        try:
            await database.migrate()
            yield database
        finally:
            await database.dispose()


async def migrate_to(database: Database, revision: str) -> None:
    """Take `database` up or down to `revision` (an Alembic revision id such as "0006")."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    from garage_tools.store.database import alembic_config

    def run(connection: Any) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        current = MigrationContext.configure(connection).get_current_revision()
        if current is not None and current > revision:
            command.downgrade(config, revision)
        else:
            command.upgrade(config, revision)

    async with database.engine.begin() as connection:
        await connection.run_sync(run)
