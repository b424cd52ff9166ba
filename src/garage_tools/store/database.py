"""The async engine and session factory, schema migration, and what a store fault looks like outside.

Connection-level failures (server down, connection dropped, timeouts) become `StoreUnavailable`, a 503
`service_unavailable` with Retry-After, here and nowhere else, so every repository behaves the same during
an outage and the log gets one line when it starts and one when it ends. A URL that cannot be used at all
(unparsable, driver missing) is a `StoreConfigError` when the `Database` is built. The URL may carry a
password, so it is only ever shown through `display_url`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    InterfaceError,
    InvalidRequestError,
    OperationalError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from garage_tools.errors import ServiceUnavailable

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"

log = logging.getLogger(__name__)

# A dead server should cost a caller seconds, not minutes: these bound every wait on PostgreSQL.
CONNECT_TIMEOUT = 5.0  # opening a connection
COMMAND_TIMEOUT = 30.0  # one statement
POOL_TIMEOUT = 10.0  # waiting for a free pooled connection
PING_TIMEOUT = 3.0  # the readiness check's SELECT 1
RETRY_AFTER = 5  # seconds callers are told to wait during an outage

# SQLSTATE classes that mean "this database cannot be reached or used now", not "this statement is wrong":
# 08 connection exception, 28 authorization, 3D no such database, 53 insufficient resources, 57P shutdown.
_UNAVAILABLE_SQLSTATES = ("08", "28", "3D", "53", "57P")
_SECRET_QUERY_KEYS = re.compile(r"([?&](?:password|passwd|pwd|sslpassword)=)[^&]*", re.IGNORECASE)

URL_EXAMPLES = "postgresql+asyncpg://user:password@host:5432/dbname or sqlite+aiosqlite:///path/to/file.db"


def display_url(url: str) -> str:
    """The URL with any password replaced by `***`: the only form in which a database URL is shown."""
    try:
        rendered = make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        rendered = _mask_unparsed(url)
    return _SECRET_QUERY_KEYS.sub(r"\1***", rendered)


def _mask_unparsed(url: str) -> str:
    scheme, separator, rest = url.partition("://")
    if not separator:
        return "(not a URL)"
    userinfo, at, location = rest.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{location}"


class StoreConfigError(Exception):
    """The database URL cannot be used at all: it does not parse, or its driver is not installed."""

    def __init__(self, reason: str, hint: str) -> None:
        super().__init__(f"{reason}. {hint}")
        self.reason = reason
        self.hint = hint


class StoreUnavailable(ServiceUnavailable):
    """The store did not answer. Callers see a plain 503; `reason` and `hint` are for the operator only."""

    def __init__(self, reason: str, hint: str) -> None:
        super().__init__("The service's data store is not answering; retry shortly.", retry_after=RETRY_AFTER)
        self.reason = reason
        self.hint = hint


def is_connection_failure(exc: BaseException) -> bool:
    """True when `exc` says the store is unreachable or unusable right now, rather than a statement failing."""
    if isinstance(exc, OSError | PoolTimeout):  # TimeoutError and ConnectionRefusedError are OSErrors
        return True
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated or isinstance(exc, OperationalError | InterfaceError):
        return True
    return any(isinstance(cause, OSError) or _unavailable_sqlstate(cause) for cause in _causes(exc))


def _unavailable_sqlstate(exc: BaseException) -> bool:
    state = getattr(exc, "sqlstate", None)
    return isinstance(state, str) and state.startswith(_UNAVAILABLE_SQLSTATES)


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: BaseException | None = exc
    for _ in range(10):  # chains are short; the bound only guards against a cycle
        if seen is None:
            return
        yield seen
        seen = seen.__cause__ or seen.__context__


def describe_failure(exc: BaseException, secret: str | None = None) -> tuple[str, str]:
    """(what went wrong, how to fix it) for a connection failure, in one line each and without credentials."""
    root = list(_causes(exc))[-1]
    message = str(root).strip().splitlines()[0][:200] if str(root).strip() else ""
    if isinstance(root, TimeoutError) and not message:
        message = "no answer in time"
    reason = _scrub(f"{type(root).__name__}: {message}" if message else type(root).__name__, secret)
    state = next((s for c in _causes(exc) if isinstance(s := getattr(c, "sqlstate", None), str)), "")
    if state == "3D000":
        hint = "Create that database, or correct the database name at the end of the URL."
    elif state.startswith("28"):
        hint = "Check the user name and password in the URL, and that this user may connect to that database."
    elif state.startswith(("53", "57P")):
        hint = "The server is refusing connections for now (starting, stopping or full); retry when it is back."
    elif any(isinstance(cause, socket.gaierror) for cause in _causes(exc)):
        hint = "The host name does not resolve; correct the host in the URL."
    else:
        hint = "Check that the database server is running and reachable at that host and port, or correct the URL."
    return reason, hint


def _scrub(message: str, secret: str | None) -> str:
    return message.replace(secret, "***") if secret else message


def _parse(url: str) -> URL:
    try:
        return make_url(url)
    except (ArgumentError, ValueError) as exc:
        # The parser's own message may quote part of the URL, so it is not repeated here.
        raise StoreConfigError(
            "the URL cannot be parsed",
            f"It should look like {URL_EXAMPLES}; %-encode special characters in the password.",
        ) from exc


def _engine_options(url: URL) -> dict[str, Any]:
    if url.get_backend_name() == "sqlite":
        return {}  # busy_timeout is set per connection in _sqlite_pragmas
    options: dict[str, Any] = {"pool_pre_ping": True, "pool_size": 5, "max_overflow": 10, "pool_timeout": POOL_TIMEOUT}
    if url.get_driver_name() == "asyncpg":
        options["connect_args"] = {"timeout": CONNECT_TIMEOUT, "command_timeout": COMMAND_TIMEOUT}
    return options


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers and one writer work at once (several workers share one file).
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


class Database:
    """One engine per process; sessions are short-lived and per operation.

    It also remembers whether the store is in an outage, so an outage is logged once when it starts
    and once when it ends rather than once per request.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.display_url = display_url(url)
        parsed = _parse(url)
        self._secret = parsed.password if isinstance(parsed.password, str) else None
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite and parsed.database not in (None, "", ":memory:"):
            try:
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreConfigError(
                    f"cannot create the directory of the SQLite file ({exc.strerror})",
                    "Point the URL at a writable place, or create the directory first.",
                ) from exc
        try:
            self.engine: AsyncEngine = create_async_engine(url, **_engine_options(parsed))
        except (ImportError, ArgumentError, InvalidRequestError, ValueError) as exc:
            detail = _scrub(f"{type(exc).__name__}: {exc}", self._secret)
            raise StoreConfigError(
                f"cannot load a database driver for '{parsed.drivername}' ({detail})",
                f"Name an installed async driver in the URL: {URL_EXAMPLES}.",
            ) from exc
        if self.is_sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self._down_since: float | None = None

    @property
    def outage(self) -> bool:
        """True from the first failed operation of an outage until an operation started after it succeeds."""
        return self._down_since is not None

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """A short-lived session; a connection failure inside it surfaces as `StoreUnavailable`."""
        async with self._guard(), self.sessions() as session:
            yield session

    async def migrate(self) -> None:
        """Bring the schema to the newest migration (safe to call when already current)."""
        async with self._guard(), self.engine.begin() as connection:
            await connection.run_sync(_upgrade)

    async def ping(self) -> bool:
        """Whether the store answers `SELECT 1` within PING_TIMEOUT seconds (for readiness checks)."""
        try:
            async with self._guard(), asyncio.timeout(PING_TIMEOUT), self.engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        except StoreUnavailable:
            return False
        return True

    @asynccontextmanager
    async def _guard(self) -> AsyncIterator[None]:
        started = time.monotonic()
        try:
            yield
        except Exception as exc:
            if not is_connection_failure(exc):
                raise
            reason, hint = describe_failure(exc, self._secret)
            if self._down_since is None:
                self._down_since = time.monotonic()
                log.warning("store unreachable at %s: %s; answering 503 until it recovers", self.display_url, reason)
            raise StoreUnavailable(reason, hint) from exc
        # Only an operation begun after the outage started proves recovery; one already in flight does not.
        if self._down_since is not None and started > self._down_since:
            log.info("store answers again after %.0f s; serving normally", time.monotonic() - self._down_since)
            self._down_since = None

    async def dispose(self) -> None:
        await self.engine.dispose()


def alembic_config() -> Config:
    from alembic.config import Config  # loaded only to migrate: most commands and every request never need it

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def _upgrade(connection: Connection) -> None:
    from alembic import command

    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
