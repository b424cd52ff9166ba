"""Fixtures shared by every test: a real server on loopback, API keys, and database URLs."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from garage_tools.store.database import Database
from tests.fakes.siteverify import FakeSiteverify

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


def start_server(workdir: Path, extra_env: dict[str, str] | None = None) -> LiveServer:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GARAGE_TOOLS_")}
    env.update({"GARAGE_TOOLS_LOG_LEVEL": "warning", **RAISED_LIMITS, **(extra_env or {})})
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
    deadline = time.monotonic() + 60  # generous: a loaded 2-core CI machine starts workers slowly
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"server did not start:\n{(workdir / 'server.log').read_text()}")
        time.sleep(0.1)
    return LiveServer(url=url, workdir=workdir, env=env, process=process)


def stop_server(server: LiveServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()


#: Servers started for tests have their limits raised far beyond what the suite sends; tests of
#: the limits themselves pass the real numbers.
RAISED_LIMITS = {
    "GARAGE_TOOLS_RATE_LIMIT_PUBLIC": "1000000/minute",
    "GARAGE_TOOLS_RATE_LIMIT_PRO": "1000000/minute",
    "GARAGE_TOOLS_RATE_LIMIT_MCP_PROTOCOL": "1000000/minute",
    "GARAGE_TOOLS_RATE_LIMIT_BAD_KEYS": "1000000/minute",
}
KEY_CACHE_SECONDS = 2.0


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
