"""The service and its CLI when the database URL is wrong, the server is unreachable, or it stops mid-run.

"PostgreSQL is down" is a TCP proxy on loopback that the test cuts and restores: the real server keeps
running for everyone else.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import httpx
import pytest

from tests.conftest import POSTGRES_ADMIN_URL, LiveServer, free_port, start_server, stop_server
from tests.e2e.test_access_gate import mcp_call
from tests.scratch_postgres import PASSWORD, UPSTREAM, scratch_database_sync, service_url
from tests.tcp_proxy import TcpProxy, tcp_proxy

OUTAGE_STARTED = "store unreachable"
OUTAGE_ENDED = "store answers again"


def garage_tools(workdir: Path, database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `garage-tools ARGS` with only GARAGE_TOOLS_DATABASE_URL set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GARAGE_TOOLS_")}
    env["GARAGE_TOOLS_DATABASE_URL"] = database_url
    workdir.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "garage_tools", *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.postgres
def test_start_up_output_never_shows_the_database_password(tmp_path: Path) -> None:
    with scratch_database_sync() as name:
        url = service_url(name)
        upgrade = garage_tools(tmp_path / "upgrade", url, "db", "upgrade")
        assert upgrade.returncode == 0, upgrade.stderr
        assert f"postgres:***@127.0.0.1:5432/{name}" in upgrade.stdout
        assert PASSWORD not in upgrade.stdout + upgrade.stderr

        server = start_server(tmp_path / "serve", {"GARAGE_TOOLS_DATABASE_URL": url})
        stop_server(server)
        log = (server.workdir / "server.log").read_text()
        assert "(database postgresql+asyncpg://postgres:***@" in log.splitlines()[0]
        assert PASSWORD not in log


@pytest.mark.postgres
def test_logs_show_where_the_database_is_with_only_the_password_masked(tmp_path: Path) -> None:
    with scratch_database_sync() as name, tcp_proxy(UPSTREAM) as proxy:
        without_password = service_url(name, port=proxy.port).replace(f":{PASSWORD}@", "@")
        server = start_server(
            tmp_path,
            {
                "GARAGE_TOOLS_DATABASE_URL": without_password,
                "GARAGE_TOOLS_LOG_FORMAT": "json",
                "GARAGE_TOOLS_LOG_LEVEL": "info",
            },
        )
        try:
            proxy.cut()  # so the store logs its URL too
            assert httpx.get(f"{server.url}/readyz", timeout=30).status_code == 503
        finally:
            stop_server(server)
    shown = f"postgresql+asyncpg://postgres@127.0.0.1:{proxy.port}/{name}"
    lines = [json.loads(line) for line in (server.workdir / "server.log").read_text().splitlines() if line]
    assert lines[0]["message"].startswith("garage-tools ") and shown in lines[0]["message"]  # the banner
    assert any(OUTAGE_STARTED in line["message"] and shown in line["message"] for line in lines), lines
    assert not any("[email]" in line["message"] for line in lines)


BROKEN_URLS = {
    "closed port": (lambda: service_url("garage", port=free_port()), "ConnectionRefusedError"),
    "no such database": (lambda: service_url("garage_tools_no_such_database"), "does not exist"),
    "no async driver": (lambda: f"postgresql://postgres:{PASSWORD}@127.0.0.1:5432/garage", "driver"),
    "driver not installed": (lambda: f"mysql+aiomysql://root:{PASSWORD}@127.0.0.1/garage", "aiomysql"),
}


# Every command that opens the store goes through the same path; `keys list` stands for the others.
FAILING_COMMANDS = [
    *[(["db", "upgrade"], case) for case in BROKEN_URLS],
    *[(["serve", "--port", "0"], case) for case in ("closed port", "no such database", "no async driver")],
    (["keys", "list"], "closed port"),
]


@pytest.mark.parametrize(
    ("command", "case"),
    [
        pytest.param(command, case, marks=[pytest.mark.postgres] if case == "no such database" else [])
        for command, case in FAILING_COMMANDS
    ],
    ids=[f"{' '.join(command[:2])}: {case}" for command, case in FAILING_COMMANDS],
)
def test_a_bad_database_is_one_short_error_not_a_traceback(tmp_path: Path, command: list[str], case: str) -> None:
    make_url, problem = BROKEN_URLS[case]
    result = garage_tools(tmp_path, make_url(), *command)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "Traceback" not in output
    assert len(output.strip().splitlines()) <= 2, output
    assert "GARAGE_TOOLS_DATABASE_URL" in output and problem in output
    assert PASSWORD not in output and ":***@" in output


def _outage_server(workdir: Path, database: str, proxy: TcpProxy) -> LiveServer:
    return start_server(
        workdir,
        {"GARAGE_TOOLS_DATABASE_URL": service_url(database, port=proxy.port), "GARAGE_TOOLS_LOG_LEVEL": "info"},
    )


@pytest.mark.postgres
def test_readiness_follows_the_database_and_the_log_says_so_once(tmp_path: Path) -> None:
    with scratch_database_sync() as name, tcp_proxy(UPSTREAM) as proxy:
        server = _outage_server(tmp_path, name, proxy)
        try:
            with httpx.Client(base_url=server.url, timeout=30) as client:
                ready = client.get("/readyz")
                assert ready.status_code == 200
                redis = {"redis": "ok"} if server.env.get("GARAGE_TOOLS_REDIS_URL") else {}
                assert ready.json() == {"status": "ready", "checks": {"store": "ok", **redis}}

                proxy.cut()
                for _ in range(5):  # a balancer probing repeatedly must not fill the log
                    down = client.get("/readyz")
                    assert down.status_code == 503
                    assert int(down.headers["Retry-After"]) > 0
                    assert down.json()["error"]["code"] == "service_unavailable"
                assert client.get("/healthz").status_code == 200  # alive, just not ready

                proxy.restore()
                assert client.get("/readyz").status_code == 200
        finally:
            stop_server(server)
    log = (server.workdir / "server.log").read_text()
    assert "Traceback" not in log
    assert PASSWORD not in log
    about_the_store = [line for line in log.splitlines() if OUTAGE_STARTED in line or OUTAGE_ENDED in line]
    assert len(about_the_store) == 2, log
    # The cut is seen either as a refused new connection or as a pooled one closed under a query.
    assert OUTAGE_STARTED in about_the_store[0], log
    assert any(cause in about_the_store[0] for cause in ("ConnectionRefusedError", "ConnectionDoesNotExistError")), log
    assert OUTAGE_ENDED in about_the_store[1]


@pytest.mark.postgres
def test_keyed_calls_answer_503_while_the_database_is_down(tmp_path: Path) -> None:
    # Depends on the access gate turning the store's ServiceUnavailable into the response (503 + Retry-After).
    with scratch_database_sync() as name, tcp_proxy(UPSTREAM) as proxy:
        server = _outage_server(tmp_path, name, proxy)
        try:
            _, key = server.create_key()  # never used before the outage, so no cache can answer for it
            call = {"json": {"description": "loud bang"}, "headers": {"Authorization": f"Bearer {key}"}}
            with httpx.Client(base_url=server.url, timeout=30) as client:
                proxy.cut()
                down = client.post("/api/v1/diagnose", **call)
                assert down.status_code == 503, down.text
                assert int(down.headers["Retry-After"]) > 0
                assert down.json()["error"]["code"] == "service_unavailable"

                proxy.restore()
                assert client.post("/api/v1/diagnose", **call).status_code == 200
        finally:
            stop_server(server)
    assert "Traceback" not in (server.workdir / "server.log").read_text()


def _allow_connections(database: str, allowed: bool) -> None:
    """What an operator does to fence a database off (and to let it back in): ALTER DATABASE … ALLOW_CONNECTIONS."""

    async def run() -> None:
        admin = await asyncpg.connect(POSTGRES_ADMIN_URL)
        try:
            await admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {str(allowed).lower()}')
            if not allowed:  # the connections already open go too, as after a restart
                await admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", database
                )
        finally:
            await admin.close()

    asyncio.run(run())


INSPECTION = {
    "recipient": {"email": "owner@example.com", "zip": "94110"},
    "consent": {"marketing": False, "contactShare": False},
    "items": {"springs": {"status": "ok"}, "cables": {"status": "watch"}},
}


@pytest.mark.postgres
def test_a_database_refusing_connections_is_an_outage_not_a_500(tmp_path: Path) -> None:
    with scratch_database_sync() as name:
        server = start_server(
            tmp_path, {"GARAGE_TOOLS_DATABASE_URL": service_url(name), "GARAGE_TOOLS_LOG_LEVEL": "info"}
        )
        try:
            # Keys never used before the outage, so no process's key cache can answer for them.
            rest_key, mcp_key = server.create_key()[1], server.create_key()[1]
            mcp_headers, mcp_body = mcp_call("diagnose", {"description": "loud bang"})
            calls = {
                "submitInspection": lambda c: c.post("/api/v1/submitInspection", json=INSPECTION),
                "keyed REST": lambda c: c.post(
                    "/api/v1/diagnose",
                    json={"description": "loud bang"},
                    headers={"Authorization": f"Bearer {rest_key}"},
                ),
                "/mcp-pro": lambda c: c.post(
                    "/mcp-pro", content=mcp_body, headers={**mcp_headers, "Authorization": f"Bearer {mcp_key}"}
                ),
                "/readyz": lambda c: c.get("/readyz"),
            }
            with httpx.Client(base_url=server.url, timeout=30) as client:
                _allow_connections(name, False)
                try:
                    for _ in range(3):
                        for what, call in calls.items():
                            down = call(client)
                            assert down.status_code == 503, (what, down.text)
                            assert int(down.headers["Retry-After"]) > 0, what
                            assert down.json()["error"]["code"] == "service_unavailable", what
                finally:
                    _allow_connections(name, True)
                for what, call in calls.items():
                    assert call(client).status_code == 200, what
        finally:
            stop_server(server)
    log = (server.workdir / "server.log").read_text()
    assert "Traceback" not in log and "Exception" not in log, log
    about_the_store = [line for line in log.splitlines() if OUTAGE_STARTED in line or OUTAGE_ENDED in line]
    assert len(about_the_store) == 2, log
    # The first call meets either a pooled connection the fence terminated or a new one it refused: both are named.
    causes = ("not currently accepting connections", "terminating connection due to administrator command")
    assert "WARNING" in about_the_store[0] and any(cause in about_the_store[0] for cause in causes), about_the_store[0]
    assert OUTAGE_ENDED in about_the_store[1]


def test_the_embedded_database_file_moved_away_and_back(tmp_path: Path) -> None:
    path = tmp_path / "var" / "garage-tools.db"
    server = start_server(
        tmp_path, {"GARAGE_TOOLS_DATABASE_URL": f"sqlite+aiosqlite:///{path}", "GARAGE_TOOLS_LOG_LEVEL": "info"}
    )
    try:
        keys = [server.create_key()[1] for _ in range(2)]  # one for while it is away, one for after
        with httpx.Client(base_url=server.url, timeout=30) as client:
            assert client.get("/readyz").status_code == 200
            path.rename(tmp_path / "aside.db")
            for _ in range(5):
                assert client.get("/readyz").status_code == 503
                keyed = client.post(
                    "/api/v1/diagnose",
                    json={"description": "loud bang"},
                    headers={"Authorization": f"Bearer {keys[0]}"},
                )
                assert keyed.status_code == 503 and int(keyed.headers["Retry-After"]) > 0
                assert client.post("/api/v1/submitInspection", json=INSPECTION).status_code == 503
            assert not path.exists()  # the service made no empty database in its place
            (tmp_path / "aside.db").rename(path)
            assert client.get("/readyz").status_code == 200
            for key in keys:
                call = {"json": {"description": "loud bang"}, "headers": {"Authorization": f"Bearer {key}"}}
                assert client.post("/api/v1/diagnose", **call).status_code == 200
            assert client.post("/api/v1/submitInspection", json=INSPECTION).status_code == 200
    finally:
        stop_server(server)
    log = (server.workdir / "server.log").read_text()
    assert "Traceback" not in log
    about_the_store = [line for line in log.splitlines() if OUTAGE_STARTED in line or OUTAGE_ENDED in line]
    assert len(about_the_store) == 2, log
    assert "FileNotFoundError" in about_the_store[0] and OUTAGE_ENDED in about_the_store[1]
