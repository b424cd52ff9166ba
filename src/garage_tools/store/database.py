"""The async engine and session factory, schema migration, and what a store fault looks like outside.

Connection-level failures (server down, refusing connections, connection dropped, timeouts, the SQLite
file gone) become `StoreUnavailable`, a 503 `service_unavailable` with Retry-After, here and nowhere else, so
every repository behaves the same during an outage and the log gets one line when it starts and one when it
ends. A statement that fails for its own sake stays the driver's error (a 500 with an incident id), but
without the values it was given: they are personal data and secrets (e-mail addresses, token hashes,
client IPs), so they never reach a log. A URL that cannot be used at all (unparsable, driver missing) is a
`StoreConfigError` when the `Database` is built. The URL may carry a password, so it is only ever shown
through `display_url`.
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
    InvalidRequestError,
    OperationalError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from garage_tools.errors import ServiceUnavailable
from garage_tools.store.sqlite_file import FileState, SqliteFile

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

# SQLSTATEs (classes or codes) that mean "this database cannot be reached or used now", not "this statement
# is wrong": 08 connection exception, 28 login refused, 3D no such database, 53 out of connections, disk or
# memory, 57P shut down, starting up or dropped, 57014 cancelled by the server's statement_timeout (as our
# own COMMAND_TIMEOUT would), 25006 a read-only database (a standby after a failover), 58 the server's own
# disk or files failing. 08P01 is a protocol violation: our bug, not an outage.
_UNAVAILABLE_SQLSTATES = ("08", "28", "3D", "53", "57P", "57014", "25006", "58")
_STATEMENT_SQLSTATES = ("08P01",)
# Whatever its SQLSTATE, an error PostgreSQL reports as FATAL or PANIC ends the session: that is how it
# refuses a connection ("database ... is not currently accepting connections", 55000, and the like).
_SESSION_ENDING = ("FATAL", "PANIC")
# SQLite's primary result codes for a file that is locked, read-only, unreadable, full or gone; the rest
# (SQLITE_ERROR for a syntax error or a missing table, constraints, ...) are the statement's own.
_UNAVAILABLE_SQLITE_CODES = frozenset({5, 6, 7, 8, 10, 11, 13, 14, 15, 26})
# Failures the operator can act on, most specific first: (SQLSTATE prefix, what to do).
_HINTS = (
    ("3D000", "Create that database, or correct the database name at the end of the URL."),
    ("28", "Check the user name and password in the URL, and that this user may connect to that database."),
    (
        "55000",
        "The server refuses connections to this database for now (ALLOW_CONNECTIONS is off, or it is "
        "being dropped or renamed); the service reconnects by itself once they are allowed again.",
    ),
    (
        "53300",
        "The server has no free connection for this user or database (max_connections or a CONNECTION "
        "LIMIT); fewer workers or a larger limit will do.",
    ),
    ("53", "The database server is short of disk space or memory; free some, and the service recovers by itself."),
    (
        "57014",
        "A statement ran past the server's statement_timeout: the server is overloaded, or the limit is "
        "too low for this service.",
    ),
    ("57P", "The server is refusing connections for now (starting, stopping or restarting); retry when it is back."),
    (
        "25006",
        "The database is read-only (a standby, or default_transaction_read_only is on); point the URL at the primary.",
    ),
    ("58", "The database server reports a failure of its own disk or files; see the server's log."),
)
_SQLITE_HINTS = {
    5: "Another process holds the SQLite file locked; it answers again when that process lets go.",
    6: "Another process holds the SQLite file locked; it answers again when that process lets go.",
    8: "The SQLite file or its directory is read-only for this user; make both writable.",
    13: "The disk holding the SQLite file is full; free some space.",
    14: "The SQLite file cannot be opened: check the path in the URL and that it and its directory are readable.",
}
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
    if exc.connection_invalidated:
        return True
    verdicts = [verdict for cause in _causes(exc) if (verdict := _verdict(cause)) is not None]
    if verdicts:
        return any(verdicts)
    # No code to go by: PEP 249 puts "the database's operation" under OperationalError, our misuse under the rest.
    return isinstance(exc, OperationalError)


def _verdict(exc: BaseException) -> bool | None:
    """Whether one error of a chain means "unavailable" (True) or "this statement" (False); None without a code."""
    if isinstance(exc, OSError):
        return True
    state = getattr(exc, "sqlstate", None)  # asyncpg's PostgreSQL errors
    if isinstance(state, str) and state:
        if getattr(exc, "severity_en", None) in _SESSION_ENDING or getattr(exc, "severity", None) in _SESSION_ENDING:
            return True
        return state.startswith(_UNAVAILABLE_SQLSTATES) and not state.startswith(_STATEMENT_SQLSTATES)
    code = getattr(exc, "sqlite_errorcode", None)  # sqlite3's errors (extended codes keep the primary in the low byte)
    if isinstance(code, int):
        return code & 0xFF in _UNAVAILABLE_SQLITE_CODES
    return None


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
    sqlite_code = next((c for e in _causes(exc) if isinstance(c := getattr(e, "sqlite_errorcode", None), int)), 0)
    hint = next((hint for prefix, hint in _HINTS if state.startswith(prefix)), None)
    if hint is None and sqlite_code & 0xFF in _SQLITE_HINTS:
        hint = _SQLITE_HINTS[sqlite_code & 0xFF]
    elif hint is None and isinstance(root, FileNotFoundError):
        hint = "Put the SQLite file back where the URL points; the service reconnects by itself."
    elif hint is None and any(isinstance(cause, socket.gaierror) for cause in _causes(exc)):
        hint = "The host name does not resolve; correct the host in the URL."
    elif hint is None:
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
    # A failed statement's message never lists the values it was given (see _without_values).
    if url.get_backend_name() == "sqlite":
        return {"hide_parameters": True}  # busy_timeout is set per connection in _sqlite_pragmas
    options: dict[str, Any] = {
        "hide_parameters": True,
        "pool_pre_ping": True,
        "pool_size": 5,
        "max_overflow": 10,
        "pool_timeout": POOL_TIMEOUT,
    }
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
        self._file: SqliteFile | None = None
        if self.is_sqlite and parsed.database not in (None, "", ":memory:"):
            self._file = SqliteFile(Path(parsed.database))
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
        if self._file is not None:
            event.listen(self.engine.sync_engine, "do_connect", self._file.refuse_to_recreate)
            event.listen(self.engine.sync_engine, "connect", self._file.remember)
        self._reattaching = asyncio.Lock()
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
            if self._file is not None:
                await self._follow_file(self._file)
            yield
        except Exception as exc:
            if not is_connection_failure(exc):
                if isinstance(exc, DBAPIError):
                    _without_values(exc)
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

    async def _follow_file(self, file: SqliteFile) -> None:
        """Refuse to work without the SQLite file, and move every connection to a file that replaced it."""
        state = file.state()
        if state is FileState.MISSING:
            raise file.missing_error()
        if state is FileState.REPLACED:
            async with self._reattaching:  # one task empties the pool; the others wait, then use the new file
                if file.state() is FileState.REPLACED:
                    await self.engine.dispose()  # closes the idle connections; busy ones close when given back
                    file.accept()
                    log.warning("the SQLite file %s was replaced; reconnected to the new one", file.path)

    async def dispose(self) -> None:
        await self.engine.dispose()


_QUOTED_ARGUMENT = re.compile(r"(invalid input for query argument \$[0-9]+[^:\n]*):[^\n]*")


def _without_values(exc: DBAPIError) -> None:
    """Keep the values a failed statement was given out of its message and any traceback of it.

    The engine hides SQLAlchemy's own `[parameters: ...]`, but the driver's errors may quote values too
    (PostgreSQL's DETAIL, e.g. "Key (email)=(...)" or "Failing row contains (...)", and asyncpg's "invalid
    input for query argument $1: 'value'"). So the driver's error, still at `exc.orig`, is not printed
    behind this one, and an argument quoted in the message is cut.
    """
    exc.__cause__ = None
    exc.__suppress_context__ = True
    if len(exc.args) == 1 and isinstance(exc.args[0], str):
        exc.args = (_QUOTED_ARGUMENT.sub(r"\1 (value not shown)", exc.args[0]),)


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
