"""Throwaway databases on the local PostgreSQL server, with URLs the service accepts."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import asyncpg
from sqlalchemy.engine import make_url

from tests.conftest import POSTGRES_ADMIN_URL

#: The local server trusts loopback, so this password is ignored by it; it is here to be hidden.
PASSWORD = "S3cretPW"
ADMIN = make_url(POSTGRES_ADMIN_URL)
UPSTREAM = (ADMIN.host or "127.0.0.1", ADMIN.port or 5432)


def service_url(database: str, *, port: int | None = None) -> str:
    """`postgresql+asyncpg://postgres:S3cretPW@host:port/database`, optionally through another local port."""
    url = ADMIN.set(drivername="postgresql+asyncpg", password=PASSWORD, database=database)
    if port is not None:
        url = url.set(host="127.0.0.1", port=port)
    return url.render_as_string(hide_password=False)


async def _admin(statement: str) -> None:
    admin = await asyncpg.connect(POSTGRES_ADMIN_URL)
    try:
        await admin.execute(statement)
    finally:
        await admin.close()


@asynccontextmanager
async def scratch_database() -> AsyncIterator[str]:
    """The name of a new, empty database, dropped afterwards (even if something still holds it open)."""
    name = f"garage_tools_test_{uuid.uuid4().hex[:12]}"
    await _admin(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def scratch_database_sync() -> Iterator[str]:
    """`scratch_database` for synchronous (end-to-end) tests."""
    name = f"garage_tools_test_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    try:
        yield name
    finally:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
