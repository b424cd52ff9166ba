"""What the store does when its database is misconfigured, unreachable, or goes away and comes back."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError

from garage_tools.errors import ServiceUnavailable
from garage_tools.settings import Settings
from garage_tools.store.api_keys import ApiKeyRepository
from garage_tools.store.database import Database, StoreConfigError, StoreUnavailable, display_url
from tests.conftest import free_port
from tests.scratch_postgres import PASSWORD, UPSTREAM, scratch_database, service_url
from tests.tcp_proxy import TcpProxy, tcp_proxy

STORE_LOGGER = "garage_tools.store.database"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql+asyncpg://postgres:S3cretPW@db.internal:5432/garage",
            "postgresql+asyncpg://postgres:***@db.internal:5432/garage",
        ),
        ("postgresql+asyncpg://postgres@db.internal/garage", "postgresql+asyncpg://postgres@db.internal/garage"),
        ("sqlite+aiosqlite:////srv/garage/var/garage-tools.db", "sqlite+aiosqlite:////srv/garage/var/garage-tools.db"),
        (
            "postgresql+asyncpg://db.internal/garage?password=S3cretPW",
            "postgresql+asyncpg://db.internal/garage?password=***",
        ),
        (
            "postgresql+asyncpg://postgres:S3cretPW@db.internal:port/garage",
            "postgresql+asyncpg://postgres:***@db.internal:port/garage",
        ),
        ("S3cretPW is not a URL", "(not a URL)"),
    ],
)
def test_database_urls_are_shown_without_their_password(url: str, shown: str) -> None:
    assert display_url(url) == shown


def test_settings_never_print_the_database_url() -> None:
    settings = Settings(database_url="postgresql+asyncpg://postgres:S3cretPW@db.internal/garage")
    assert PASSWORD not in repr(settings) and PASSWORD not in str(settings)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("postgresql://postgres:S3cretPW@127.0.0.1/garage", "cannot load a database driver for 'postgresql'"),
        ("mysql+aiomysql://root:S3cretPW@127.0.0.1/garage", "cannot load a database driver for 'mysql+aiomysql'"),
        ("postgresql+asyncpg://postgres:S3cretPW@127.0.0.1:port/garage", "cannot be parsed"),
        ("S3cretPW", "cannot be parsed"),
    ],
)
def test_an_unusable_url_is_a_clear_configuration_error(url: str, problem: str) -> None:
    with pytest.raises(StoreConfigError) as raised:
        Database(url)
    assert problem in raised.value.reason
    assert "postgresql+asyncpg://" in raised.value.hint  # the fix names a working form
    assert PASSWORD not in str(raised.value)


async def test_sqlite_answers_the_readiness_check(tmp_path: Path) -> None:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'state' / 'garage-tools.db'}")
    try:
        assert await database.ping()
        assert not database.outage
    finally:
        await database.dispose()


@pytest.fixture
async def closed_port_database() -> AsyncIterator[Database]:
    database = Database(service_url("garage", port=free_port()))  # nothing listens there
    yield database
    await database.dispose()


@pytest.mark.postgres
async def test_an_unreachable_server_is_service_unavailable(closed_port_database: Database) -> None:
    with pytest.raises(ServiceUnavailable) as raised:
        await ApiKeyRepository(closed_port_database).get("abc123")
    error = raised.value
    assert (error.status, error.code) == (503, "service_unavailable")
    assert int(error.headers["Retry-After"]) > 0
    # Callers learn that the store is down, not where it lives or how to log in to it.
    assert "127.0.0.1" not in error.message and PASSWORD not in error.message
    assert isinstance(error, StoreUnavailable) and "ConnectionRefusedError" in error.reason

    assert not await closed_port_database.ping()
    with pytest.raises(StoreUnavailable):
        await closed_port_database.migrate()


@pytest.mark.postgres
async def test_a_missing_database_names_the_fix() -> None:
    database = Database(service_url("garage_tools_no_such_database"))
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await database.migrate()
        assert 'database "garage_tools_no_such_database" does not exist' in raised.value.reason
        assert "Create that database" in raised.value.hint
    finally:
        await database.dispose()


@pytest.fixture
async def proxied() -> AsyncIterator[tuple[Database, TcpProxy]]:
    """A migrated PostgreSQL database reached through a proxy the test can cut."""
    async with scratch_database() as name:
        with tcp_proxy(UPSTREAM) as proxy:
            database = Database(service_url(name, port=proxy.port))
            try:
                await database.migrate()
                yield database, proxy
            finally:
                await database.dispose()


@pytest.mark.postgres
async def test_an_outage_is_503_while_it_lasts_and_logged_once(
    proxied: tuple[Database, TcpProxy], caplog: pytest.LogCaptureFixture
) -> None:
    database, proxy = proxied
    repository = ApiKeyRepository(database)
    await repository.add(key_id="k1", owner_email="a@example.com", name="n", secret_hash="h")
    caplog.set_level(logging.INFO, logger=STORE_LOGGER)

    proxy.cut()
    for _ in range(5):
        with pytest.raises(ServiceUnavailable):
            await repository.get("k1")
        assert not await database.ping()
    assert database.outage

    proxy.restore()
    assert await database.ping()
    record = await repository.get("k1")
    assert record is not None and record.owner_email == "a@example.com"
    assert not database.outage

    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == STORE_LOGGER]
    assert [level for level, _ in lines] == ["WARNING", "INFO"], lines
    assert "store unreachable" in lines[0][1] and "answering 503" in lines[0][1]
    assert "store answers again" in lines[1][1]
    assert all(PASSWORD not in message for _, message in lines)
    assert not any(r.exc_info for r in caplog.records)  # a short reason, not a traceback


@pytest.mark.postgres
async def test_statement_errors_are_not_mistaken_for_an_outage(
    proxied: tuple[Database, TcpProxy], caplog: pytest.LogCaptureFixture
) -> None:
    database = proxied[0]
    repository = ApiKeyRepository(database)
    await repository.add(key_id="dup", owner_email="a@example.com", name="n", secret_hash="h")
    with pytest.raises(IntegrityError):
        await repository.add(key_id="dup", owner_email="b@example.com", name="n", secret_hash="h")
    assert not database.outage
    assert not [r for r in caplog.records if r.name == STORE_LOGGER]
