"""Fixtures shared by every test: a real server on loopback, API keys, and database URLs."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import httpx
import pytest

from garage_tools.store.database import Database
from tests.fakes.siteverify import FakeSiteverify
from tests.polling import eventually

T = TypeVar("T")
POSTGRES_ADMIN_URL = os.environ.get("GARAGE_TOOLS_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    """A `garage-tools serve` process with its own working directory and state."""

    url: str
    workdir: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    owned_database: bool = False  # a PostgreSQL database made for this server, dropped when it stops

    @property
    def database_url(self) -> str:
        """The server's database: its SQLite file, unless its environment names another."""
        default = f"sqlite+aiosqlite:///{self.workdir / 'var' / 'garage-tools.db'}"
        return self.env.get("GARAGE_TOOLS_DATABASE_URL", default)

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """Rows of `sql` (with `$1`-style parameters) run against the server's own database, whichever it is."""
        url = self.database_url
        if url.startswith("sqlite"):
            with sqlite3.connect(url.split(":///", 1)[1]) as db:
                return [tuple(row) for row in db.execute(re.sub(r"\$[0-9]+", "?", sql), params).fetchall()]

        async def run() -> list[tuple[Any, ...]]:
            connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
            try:
                return [tuple(row) for row in await connection.fetch(sql, *params)]
            finally:
                await connection.close()

        return _run_async(run())

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run `garage-tools ARGS` against this server's state (same directory and settings)."""
        return subprocess.run(
            [sys.executable, "-m", "garage_tools", *args],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            check=check,
            timeout=60,
        )

    def create_key(self, email: str = "dev@example.com", name: str = "tests") -> tuple[str, str]:
        """(key id, plaintext key) for a fresh key."""
        out = self.cli("keys", "create", "--email", email, "--name", name).stdout
        key_id = re.search(r"^id:\s+(\S+)", out, re.M)
        plaintext = re.search(r"^key:\s+(\S+)", out, re.M)
        assert key_id and plaintext, out
        return key_id.group(1), plaintext.group(1)


#: `make test` runs the suite twice: on the embedded defaults, then with this set to `postgres-redis`, where
#: every server a test starts gets its own database on the local PostgreSQL and its own keys in the local
#: Redis (the production topology), unless the test chooses its store itself.
STACK = os.environ.get("GARAGE_TOOLS_TEST_STACK", "embedded")
REDIS_URL = os.environ.get("GARAGE_TOOLS_TEST_REDIS", "redis://127.0.0.1:6379/0")
if STACK not in ("embedded", "postgres-redis"):
    raise RuntimeError(f"GARAGE_TOOLS_TEST_STACK must be 'embedded' or 'postgres-redis', not {STACK!r}")


def _run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to completion from sync code, even inside a running event loop (a worker thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def postgres_database(name: str, *, drop: bool = False) -> str:
    """Create (or drop) database `name` on the local PostgreSQL; the asyncpg URL of it."""

    async def run() -> None:
        admin = await asyncpg.connect(POSTGRES_ADMIN_URL)
        try:
            if drop:
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            else:
                await admin.execute(f'CREATE DATABASE "{name}"')
        finally:
            await admin.close()

    _run_async(run())
    return f"{POSTGRES_ADMIN_URL.replace('postgresql://', 'postgresql+asyncpg://').rsplit('/', 1)[0]}/{name}"


def _scale_out_env(extra_env: dict[str, str]) -> dict[str, str]:
    """A fresh PostgreSQL database and Redis key prefix for one server (what the test did not choose itself)."""
    env: dict[str, str] = {}
    if "GARAGE_TOOLS_DATABASE_URL" not in extra_env:
        env["GARAGE_TOOLS_DATABASE_URL"] = postgres_database(f"garage_tools_test_{uuid.uuid4().hex[:12]}")
    if "GARAGE_TOOLS_REDIS_URL" not in extra_env:
        env["GARAGE_TOOLS_REDIS_URL"] = REDIS_URL
        env["GARAGE_TOOLS_REDIS_KEY_PREFIX"] = f"garage-tools-test-{uuid.uuid4().hex[:12]}:"
    return env


def start_server(workdir: Path, extra_env: dict[str, str] | None = None) -> LiveServer:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GARAGE_TOOLS_")}
    extra_env = extra_env or {}
    owned = _scale_out_env(extra_env) if STACK == "postgres-redis" else {}
    env.update({"GARAGE_TOOLS_LOG_LEVEL": "warning", **RAISED_LIMITS, **owned, **extra_env})
    workdir.mkdir(parents=True, exist_ok=True)
    log = (workdir / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "garage_tools", "serve", "--port", str(port)],
        cwd=workdir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"

    def state() -> str | None:  # a connection refused is "not yet"; a process that exited is reported at once
        if process.poll() is not None:
            return f"it exited with {process.returncode}"
        return "ready" if httpx.get(f"{url}/healthz", timeout=1).status_code == 200 else None

    try:  # generous: a loaded 2-core machine took over 60 s to import the app
        ready = eventually(state, seconds=180, every=0.1, what=f"{url}/healthz to answer")
    except AssertionError as timed_out:
        ready = str(timed_out)
    if ready != "ready":
        process.kill()
        raise RuntimeError(f"server did not start ({ready}):\n{(workdir / 'server.log').read_text()}")
    return LiveServer(
        url=url, workdir=workdir, env=env, process=process, owned_database="GARAGE_TOOLS_DATABASE_URL" in owned
    )


def stop_server(server: LiveServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=10)
    if server.owned_database:
        postgres_database(server.database_url.rsplit("/", 1)[1], drop=True)


#: Servers started for tests have their limits raised far beyond what the suite sends; tests of
#: the limits themselves pass the real numbers.
RAISED_LIMITS = {
    "GARAGE_TOOLS_RATE_LIMIT_PUBLIC": "1000000/minute",
    "GARAGE_TOOLS_RATE_LIMIT_PRO": "1000000/minute",
    "GARAGE_TOOLS_RATE_LIMIT_MCP_PROTOCOL": "1000000/minute",
    "GARAGE_TOOLS_RATE_LIMIT_BAD_KEYS": "1000000/minute",
    "GARAGE_TOOLS_RATE_LIMIT_OAUTH_AUTHORIZE": "1000000/minute",
    "GARAGE_TOOLS_RATE_LIMIT_OAUTH_TOKEN": "1000000/minute",
    "GARAGE_TOOLS_RATE_LIMIT_PAGES": "1000000/minute",
}
KEY_CACHE_SECONDS = 2.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what it needs, so `make test-fast` can leave the slow kinds out of the inner loop."""
    for item in items:
        if item.path.parent.name == "e2e":
            item.add_marker(pytest.mark.e2e)
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("server"), {"GARAGE_TOOLS_KEY_CACHE_SECONDS": str(KEY_CACHE_SECONDS)})
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def pro_key(live_server: LiveServer) -> str:
    return live_server.create_key()[1]


@pytest.fixture
def api(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        yield client


@pytest.fixture(scope="session")
def siteverify_server() -> Iterator[FakeSiteverify]:
    """One stand-in Turnstile siteverify server for the whole run (see tests/fakes/siteverify.py)."""
    with FakeSiteverify() as server:
        yield server


@pytest.fixture
def siteverify(siteverify_server: FakeSiteverify) -> Iterator[FakeSiteverify]:
    """The siteverify stand-in with no spent tokens, no recorded requests and no misbehaviour."""
    siteverify_server.reset()
    yield siteverify_server
    siteverify_server.reset()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated, empty database: a SQLite file, then a throwaway database on the local PostgreSQL."""
    from tests.databases import throwaway_database  # it imports this module

    async with throwaway_database(request.param, tmp_path) as db:
        yield db


#: Debian's Chromium, as scripts/ensure-services.sh installs it; Playwright cannot download a browser here.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (Playwright's sync API).

    Per module, not per session: while Playwright's sync API is running it holds an event loop on
    this thread, and every async test collected after it would fail to start its own.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
