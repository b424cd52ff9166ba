"""The CLI front door, settings that a deployment relies on, and per-directory state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server

MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def test_call_prints_the_tool_result(live_server: LiveServer) -> None:
    out = live_server.cli("call", "diagnose", '{"description": "loud bang"}').stdout
    assert json.loads(out)["symptom"]["key"] == "banging_noise"


def test_call_prints_the_error_envelope_and_fails(live_server: LiveServer) -> None:
    result = live_server.cli("call", "costEstimate", '{"issueKey": "nope"}', check=False)
    assert result.returncode == 1
    assert json.loads(result.stdout)["error"]["code"] == "invalid_arguments"
    bad_json = live_server.cli("call", "diagnose", "{oops", check=False)
    assert bad_json.returncode == 2 and "not valid JSON" in bad_json.stderr


def test_keys_list_never_prints_secrets(live_server: LiveServer) -> None:
    key_id, plaintext = live_server.create_key(email="list@example.com", name="ci")
    listing = live_server.cli("keys", "list", "--email", "list@example.com").stdout
    assert key_id in listing and "active" in listing and "ci" in listing
    assert plaintext not in listing and plaintext[9:30] not in listing


def test_revoking_an_unknown_key_fails_clearly(live_server: LiveServer) -> None:
    result = live_server.cli("keys", "revoke", "doesnotexist", check=False)
    assert result.returncode != 0 and "no key" in result.stderr


def test_two_directories_never_share_state(live_server: LiveServer, tmp_path: Path) -> None:
    other = start_server(tmp_path / "other")
    try:
        _, key = live_server.create_key(name="only-here")
        headers = {"Authorization": f"Bearer {key}"}
        assert httpx.post(f"{live_server.url}/api/v1/getDoorStyles", json={}, headers=headers).status_code == 200
        assert httpx.post(f"{other.url}/api/v1/getDoorStyles", json={}, headers=headers).status_code == 401
        if other.database_url.startswith("sqlite"):
            assert (other.workdir / "var" / "garage-tools.db").exists()
    finally:
        stop_server(other)


def test_deployed_hostname_is_accepted_by_mcp(tmp_path: Path) -> None:
    server = start_server(
        tmp_path,
        {"GARAGE_TOOLS_PUBLIC_BASE_URL": "https://doors.example.com", "GARAGE_TOOLS_ALLOWED_HOSTS": "edge.internal"},
    )
    try:
        for host in ("doors.example.com", "edge.internal"):
            response = httpx.post(f"{server.url}/mcp", json=TOOLS_LIST, headers={**MCP_HEADERS, "Host": host})
            assert response.status_code == 200, (host, response.text)
        evil = httpx.post(f"{server.url}/mcp", json=TOOLS_LIST, headers={**MCP_HEADERS, "Host": "evil.example"})
        assert evil.status_code == 421
    finally:
        stop_server(server)


@pytest.mark.slow
def test_several_workers_serve_the_same_state(tmp_path: Path) -> None:
    server = start_server(tmp_path, {"GARAGE_TOOLS_WORKERS": "2"})
    try:
        _, key = server.create_key()
        with httpx.Client(base_url=server.url) as client:
            for _ in range(20):  # connections land on both workers; every one sees the key
                response = client.post(
                    "/api/v1/diagnose",
                    json={"description": "loud bang"},
                    headers={"Authorization": f"Bearer {key}", "Connection": "close"},
                )
                assert response.status_code == 200
                mcp = client.post("/mcp", json=TOOLS_LIST, headers={**MCP_HEADERS, "Connection": "close"})
                assert mcp.status_code == 200
    finally:
        stop_server(server)


@pytest.mark.slow
def test_workers_slow_to_start_are_not_replaced_as_hung(tmp_path: Path) -> None:
    """uvicorn kills a worker that does not answer its health check in time and starts another. A worker
    that only starts slowly (a loaded machine) must be waited for, or `--workers N` never serves."""
    slow = tmp_path / "slow-start"
    slow.mkdir()
    # Each worker process uvicorn spawns spends 12 s before it can answer: more than twice uvicorn's default of 5 s
    # (it checks the workers one after the other, so a slow second worker is first asked after 5 s).
    (slow / "sitecustomize.py").write_text(
        "import sys, time\nif any('spawn_main' in arg for arg in sys.orig_argv):\n    time.sleep(12)\n"
    )
    server = start_server(tmp_path / "server", {"GARAGE_TOOLS_WORKERS": "2", "PYTHONPATH": str(slow)})
    try:
        assert httpx.post(f"{server.url}/api/v1/diagnose", json={"description": "loud bang"}).status_code == 200
    finally:
        stop_server(server)


REDIS_PASSWORD = "r3dis-Secret-7"
MALFORMED_REDIS_URLS = {
    "a port that is not a number": (f"redis://:{REDIS_PASSWORD}@127.0.0.1:port/0", "port"),
    "a port past 65535": (f"redis://:{REDIS_PASSWORD}@127.0.0.1:70000/0", "port"),
    "a database that is not a number": (f"redis://:{REDIS_PASSWORD}@127.0.0.1:6379/zero", "database number"),
    "an unclosed IPv6 bracket": (f"redis://:{REDIS_PASSWORD}@[::1:6379/0", "brackets"),
    "another scheme": (f"http://:{REDIS_PASSWORD}@127.0.0.1:6379/0", "redis://"),
}


@pytest.mark.parametrize("case", MALFORMED_REDIS_URLS, ids=list(MALFORMED_REDIS_URLS))
def test_a_malformed_redis_url_stops_serve_with_one_line_naming_it(tmp_path: Path, case: str) -> None:
    url, problem = MALFORMED_REDIS_URLS[case]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GARAGE_TOOLS_")}
    result = subprocess.run(
        [sys.executable, "-m", "garage_tools", "serve", "--port", "0"],
        cwd=tmp_path,
        env={**env, "GARAGE_TOOLS_REDIS_URL": url},
        capture_output=True,
        text=True,
        timeout=60,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert output.strip().splitlines() == [output.strip()], output  # one line, no traceback
    assert output.startswith("Error: GARAGE_TOOLS_REDIS_URL: ") and problem in output
    assert REDIS_PASSWORD not in output
