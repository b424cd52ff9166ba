"""What the store does when its database is misconfigured, unreachable, or goes away and comes back."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import traceback
from collections.abc import AsyncIterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError

from garage_tools.errors import ServiceUnavailable
from garage_tools.settings import Settings
from garage_tools.store.api_keys import ApiKeyRepository
from garage_tools.store.database import Database, StoreConfigError, StoreUnavailable, display_url
from tests.conftest import POSTGRES_ADMIN_URL, free_port
from tests.fakes.refusing_postgres import RefusingPostgres
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


# How PostgreSQL turns a connection away, as asyncpg receives it: (SQLSTATE, the server's message, the hint's gist).
REFUSALS = {
    "starting up": ("57P03", "the database system is starting up", "starting, stopping or restarting"),
    "shutting down": ("57P03", "the database system is shutting down", "starting, stopping or restarting"),
    "too many clients": ("53300", "sorry, too many clients already", "no free connection"),
    "not accepting connections": (
        "55000",
        'database "garage" is not currently accepting connections',
        "ALLOW_CONNECTIONS",
    ),
    "connection rejected": ("08004", "server rejected the connection", "running and reachable"),
    "an unknown fatal error": ("XX999", "something new the server refused us for", "running and reachable"),
}


@pytest.mark.parametrize("case", REFUSALS, ids=list(REFUSALS))
async def test_every_way_a_server_turns_connections_away_is_an_outage_logged_once(
    case: str, caplog: pytest.LogCaptureFixture
) -> None:
    sqlstate, message, hint = REFUSALS[case]
    caplog.set_level(logging.INFO, logger=STORE_LOGGER)
    with RefusingPostgres(sqlstate, message) as server:
        database = Database(service_url("garage", port=server.port))
        try:
            for _ in range(3):
                with pytest.raises(StoreUnavailable) as raised:
                    await ApiKeyRepository(database).get("abc123")
                assert not await database.ping()
        finally:
            await database.dispose()
        assert server.connections >= 6  # each try really reached the server
    error = raised.value
    assert (error.status, error.code, error.headers["Retry-After"]) == (503, "service_unavailable", "5")
    assert message in error.reason and hint in error.hint
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == STORE_LOGGER]
    assert [level for level, _ in lines] == ["WARNING"], lines
    assert message in lines[0][1] and PASSWORD not in lines[0][1]


async def _admin(statement: str) -> None:
    admin = await asyncpg.connect(POSTGRES_ADMIN_URL)
    try:
        await admin.execute(statement)
    finally:
        await admin.close()


@pytest.fixture
async def scratch() -> AsyncIterator[tuple[str, Database]]:
    """A migrated scratch database on the local server, and the name an operator would ALTER it by."""
    async with scratch_database() as name:
        database = Database(service_url(name))
        try:
            await database.migrate()
            yield name, database
        finally:
            await database.dispose()


@pytest.mark.postgres
async def test_a_database_closed_to_connections_is_an_outage_until_it_opens(
    scratch: tuple[str, Database], caplog: pytest.LogCaptureFixture
) -> None:
    name, database = scratch
    repository = ApiKeyRepository(database)
    await repository.add(key_id="k1", owner_email="a@example.com", name="n", secret_hash="h")
    caplog.set_level(logging.INFO, logger=STORE_LOGGER)
    await _admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
    await _admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
    try:
        for _ in range(3):
            with pytest.raises(StoreUnavailable) as raised:
                await repository.get("k1")
            assert not await database.ping()
        assert "not currently accepting connections" in raised.value.reason
        assert "ALLOW_CONNECTIONS" in raised.value.hint
    finally:
        await _admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    assert await database.ping()
    assert (await repository.get("k1")) is not None
    lines = [r.levelname for r in caplog.records if r.name == STORE_LOGGER]
    assert lines == ["WARNING", "INFO"]


@pytest.mark.postgres
async def test_too_many_connections_for_the_role_is_an_outage(scratch: tuple[str, Database]) -> None:
    name = scratch[0]
    role = f"{name}_role"  # superusers are exempt from connection limits, so a plain role of its own
    await _admin(f'CREATE ROLE "{role}" LOGIN CONNECTION LIMIT 0')
    database = Database(make_url(service_url(name)).set(username=role).render_as_string(hide_password=False))
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await ApiKeyRepository(database).get("k1")
        assert "too many connections" in raised.value.reason and "CONNECTION LIMIT" in raised.value.hint
    finally:
        await database.dispose()
        await _admin(f'DROP ROLE "{role}"')


@pytest.mark.postgres
async def test_a_read_only_database_is_an_outage_for_writes(scratch: tuple[str, Database]) -> None:
    name, database = scratch
    repository = ApiKeyRepository(database)
    await _admin(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')  # as on a standby
    await database.dispose()  # the setting applies to new connections
    with pytest.raises(StoreUnavailable) as raised:
        await repository.add(key_id="k1", owner_email="a@example.com", name="n", secret_hash="h")
    assert "read-only" in raised.value.reason and "primary" in raised.value.hint
    assert await repository.get("k1") is None  # reads still work


@pytest.mark.postgres
async def test_a_statement_the_server_cancels_or_a_session_it_ends_is_an_outage(scratch: tuple[str, Database]) -> None:
    database = scratch[1]
    with pytest.raises(StoreUnavailable) as raised:
        await run(database, "SET statement_timeout = 20", "SELECT pg_sleep(2)")
    assert "statement timeout" in raised.value.reason and "statement_timeout" in raised.value.hint
    with pytest.raises(StoreUnavailable) as raised:
        await run(database, "SELECT pg_terminate_backend(pg_backend_pid())")
    assert "administrator command" in raised.value.reason
    assert await database.ping()  # and the next connection is a good one


SECRETS = ("owner-4d1f@example.com", "hash-9c2e7b", "203.0.113.77")


async def _insert_key(database: Database, **values: object) -> None:
    row = {"id": "k-0a1b", "email": SECRETS[0], "name": "n", "hash": SECRETS[1], **values}
    columns = "id, owner_email, name, secret_hash, created_at"
    await run(database, f"INSERT INTO api_keys ({columns}) VALUES (:id, :email, :name, :hash, :at)", params=row)


async def test_a_failing_statement_is_no_outage_and_never_shows_its_values(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=STORE_LOGGER)
    postgres = not database.is_sqlite
    await _insert_key(database, at=datetime(2026, 1, 1, tzinfo=UTC))
    failures = [
        _insert_key(database, at=datetime(2026, 1, 1, tzinfo=UTC)),  # a duplicate key: DETAIL names its values
        _insert_key(database, id="k-2", name=None, at=datetime(2026, 1, 1, tzinfo=UTC)),  # DETAIL lists the row
    ]
    if postgres:
        failures += [
            _insert_key(database, id="k-3", email=f"a\x00{SECRETS[0]}", at=datetime(2026, 1, 1, tzinfo=UTC)),  # NUL
            _insert_key(database, id="k-4", at=SECRETS[2]),  # asyncpg quotes an argument it cannot encode
        ]
    else:
        failures.append(run(database, "SELECT * FROM no_such_table"))  # SQLITE_ERROR, not a locked file
    for failure in failures:
        with pytest.raises(DBAPIError) as raised:
            await failure
        assert not isinstance(raised.value, StoreUnavailable)
        shown = "".join(traceback.format_exception(raised.value))
        assert not any(secret in shown for secret in SECRETS), shown
    assert not database.outage
    assert not [r for r in caplog.records if r.name == STORE_LOGGER]


async def run(database: Database, *statements: str, params: dict[str, object] | None = None) -> None:
    """Run SQL statements, with `params` for their bind parameters, in one transaction of the store."""
    async with database.session() as session, session.begin():
        for statement in statements:
            await session.execute(text(statement), params)


@pytest.fixture
async def sqlite_file(tmp_path: Path) -> AsyncIterator[tuple[Path, Database]]:
    """The embedded default: a migrated SQLite file, with one key in it."""
    path = tmp_path / "var" / "garage-tools.db"
    database = Database(f"sqlite+aiosqlite:///{path}")
    try:
        await database.migrate()
        await ApiKeyRepository(database).add(key_id="k1", owner_email="a@example.com", name="n", secret_hash="h1")
        yield path, database
    finally:
        await database.dispose()


async def _get_many(repository: ApiKeyRepository, key_id: str, times: int = 5) -> list[bool]:
    """Whether each of `times` concurrent reads found the key (so several pooled connections take part)."""
    return [record is not None for record in await asyncio.gather(*(repository.get(key_id) for _ in range(times)))]


async def test_a_sqlite_file_moved_away_is_an_outage_until_it_is_back(
    sqlite_file: tuple[Path, Database], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path, database = sqlite_file
    repository = ApiKeyRepository(database)
    assert await _get_many(repository, "k1") == [True] * 5
    caplog.set_level(logging.INFO, logger=STORE_LOGGER)

    aside = tmp_path / "aside.db"
    path.rename(aside)
    for _ in range(5):
        with pytest.raises(StoreUnavailable) as raised:
            await repository.get("k1")
        assert not await database.ping()
    assert "FileNotFoundError" in raised.value.reason and "Put the SQLite file back" in raised.value.hint
    assert not path.exists()  # no empty database was made in its place

    aside.rename(path)
    assert await database.ping()
    assert await _get_many(repository, "k1") == [True] * 5
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == STORE_LOGGER]
    assert [level for level, _ in lines] == ["WARNING", "INFO"], lines
    assert "store unreachable" in lines[0][1] and "store answers again" in lines[1][1]


async def test_a_replaced_sqlite_file_is_used_at_once_by_every_connection(
    sqlite_file: tuple[Path, Database], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path, database = sqlite_file
    repository = ApiKeyRepository(database)
    backup = tmp_path / "backup.db"
    # A backup holding k1 only.
    with closing(sqlite3.connect(path)) as live, closing(sqlite3.connect(backup)) as copy:
        live.backup(copy)
    await repository.add(key_id="k2", owner_email="b@example.com", name="n", secret_hash="h2")
    assert await _get_many(repository, "k2") == [True] * 5
    with closing(sqlite3.connect(path)) as live:
        # SQLite reads a file with the write-ahead log at its path: a file may replace another only once that
        # log is empty (checkpointed), or the new file is read with the old one's pages.
        live.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    caplog.set_level(logging.INFO, logger=STORE_LOGGER)

    backup.replace(path)  # an operator restores the backup over the live file
    assert await database.ping()
    assert await _get_many(repository, "k2") == [False] * 5  # no connection still reads the old file
    assert await _get_many(repository, "k1") == [True] * 5
    await repository.add(key_id="k3", owner_email="c@example.com", name="n", secret_hash="h3")
    with closing(sqlite3.connect(path)) as restored:
        assert restored.execute("SELECT id FROM api_keys ORDER BY id").fetchall() == [("k1",), ("k3",)]
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == STORE_LOGGER]
    assert lines == [("WARNING", f"the SQLite file {path} was replaced; reconnected to the new one")]
