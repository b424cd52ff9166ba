"""Operations against a real `garage-tools serve`: metrics, JSON logs with request ids, redaction, shutdown.

Each test starts its own server with the settings it is about (JSON logs at info level, a metrics
token, two workers, a small rate limit) and reads what an operator would: `/metrics` through
prometheus_client's own parser, and the server's log file line by line.
"""

from __future__ import annotations

import json
import signal
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_portal import latest_link, new_email, new_key, signed_in
from tests.polling import eventually

TOKEN = "scrape-token-for-tests"
JSON_LOGS = {"GARAGE_TOOLS_LOG_FORMAT": "json", "GARAGE_TOOLS_LOG_LEVEL": "info"}
DIAGNOSE = {"description": "the door makes a loud bang"}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "diagnose",
}
MCP_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "diagnose", "arguments": DIAGNOSE, "_meta": META},
}


def scrape(server: LiveServer, token: str | None = None) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """One scrape's samples, as {(name, sorted labels): value}."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = httpx.get(f"{server.url}/metrics", headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def requests(tool: str, surface: str, status: int) -> tuple[str, tuple[tuple[str, str], ...]]:
    labels = {"status": str(status), "surface": surface, "tool": tool}
    return "garage_tools_request_duration_seconds_count", tuple(sorted(labels.items()))


def log_lines(server: LiveServer) -> list[dict[str, Any]]:
    """The server's log, every line of which is a JSON object."""
    return [json.loads(line) for line in (server.workdir / "server.log").read_text().splitlines()]


def access_lines(server: LiveServer, wanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """The access-log lines that match `wanted`. The log is written after the response is sent: poll for them."""
    return [line for line in log_lines(server) if line["logger"] == "uvicorn.access" and wanted(line)]


@pytest.fixture
def json_server(tmp_path: Path) -> Iterator[LiveServer]:
    server = start_server(tmp_path, JSON_LOGS)
    yield server
    stop_server(server)


# -- metrics --------------------------------------------------------------------------------------


def test_metrics_count_calls_by_tool_surface_status_and_refusals_by_window(tmp_path: Path) -> None:
    env = {
        "GARAGE_TOOLS_METRICS_TOKEN": TOKEN,
        "GARAGE_TOOLS_RATE_LIMIT_PUBLIC": "4/minute",
        "GARAGE_TOOLS_MAIL_WORKER_IN_PROCESS": "false",
    }
    server = start_server(tmp_path, env)
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            assert client.get("/metrics").status_code == 401
            for _ in range(2):
                assert client.post("/api/v1/diagnose", json=DIAGNOSE).status_code == 200
            assert client.post("/mcp", json=MCP_CALL, headers=MCP_HEADERS).json()["result"]["isError"] is False
            assert client.post("/api/v1/noSuchTool", json={}).status_code == 404  # refused before the limit
            assert client.post("/api/v1/diagnose", json=DIAGNOSE).status_code == 200  # the 4th call this minute
            assert client.post("/api/v1/diagnose", json=DIAGNOSE).status_code == 429
            assert "/metrics" not in client.get("/openapi.json").json()["paths"]
        samples = scrape(server, TOKEN)
    finally:
        stop_server(server)
    assert samples[requests("diagnose", "rest", 200)] == 3
    assert samples[requests("diagnose", "rest", 429)] == 1
    assert samples[requests("diagnose", "mcp", 200)] == 1
    assert samples[requests("_unknown", "rest", 404)] == 1
    assert samples["garage_tools_rate_limit_rejections_total", (("policy", "public-minute"),)] == 1
    assert samples["garage_tools_store_up", ()] == 1
    assert samples["garage_tools_outbox_messages", (("status", "pending"),)] == 0


def calls_until_both_workers_answered(server: LiveServer) -> int:
    """Tool calls on fresh connections, several at a time, until the access log shows two worker pids."""

    def call(_: int) -> int:
        with httpx.Client(base_url=server.url, timeout=10) as client:  # a new connection: either worker may take it
            return client.post("/api/v1/diagnose", json=DIAGNOSE).status_code

    def logged(made: int) -> list[dict[str, Any]]:
        """Every call made so far, once all of them have reached the access log."""
        lines = access_lines(server, lambda line: line.get("path") == "/api/v1/diagnose")
        return lines if len(lines) >= made else []

    made = 0
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(20):
            assert set(pool.map(call, range(16))) == {200}
            made += 16
            lines = eventually(lambda: logged(made), seconds=10, every=0.02, what=f"{made} calls on the access log")
            if len({line["pid"] for line in lines}) == 2:
                return made
    raise AssertionError(f"after {made} calls only one worker had answered")


def test_two_workers_report_through_one_metrics_endpoint(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"  # where `serve` makes the workers' shared directory
    scratch.mkdir()
    server = start_server(tmp_path / "server", {**JSON_LOGS, "GARAGE_TOOLS_WORKERS": "2", "TMPDIR": str(scratch)})
    try:
        made = calls_until_both_workers_answered(server)
        (shared,) = scratch.glob("garage-tools-metrics-*")
        assert any(shared.glob("*.db"))
        for _ in range(4):  # whichever worker answers the scrape adds up both
            samples = scrape(server)
            assert samples[requests("diagnose", "rest", 200)] == made
            workers = [labels for name, labels in samples if name == "garage_tools_worker_start_time_seconds"]
            assert len(workers) == 2, workers
    finally:
        stop_server(server)
    assert server.process.returncode == 0
    assert list(scratch.iterdir()) == []  # removed with the server


# -- logs -----------------------------------------------------------------------------------------


def test_the_request_id_is_echoed_and_on_the_json_log_line(json_server: LiveServer) -> None:
    with httpx.Client(base_url=json_server.url, timeout=10) as client:
        given = client.post("/api/v1/diagnose", json=DIAGNOSE, headers={"X-Request-Id": "lb-2f9c0e:17"})
        made = client.post("/mcp", json=MCP_CALL, headers=MCP_HEADERS)
        page = client.get("/developers")
    assert given.headers["X-Request-Id"] == "lb-2f9c0e:17"
    assert len(made.headers["X-Request-Id"]) == 32 and len(page.headers["X-Request-Id"]) == 32
    ids = {"lb-2f9c0e:17", made.headers["X-Request-Id"], page.headers["X-Request-Id"]}
    eventually(lambda: len(access_lines(json_server, lambda line: line.get("request_id") in ids)) >= 3, every=0.02)
    by_id = {line.get("request_id"): line for line in log_lines(json_server) if line["logger"] == "uvicorn.access"}
    line = by_id["lb-2f9c0e:17"]
    assert (line["method"], line["path"], line["status"], line["level"]) == ("POST", "/api/v1/diagnose", 200, "info")
    assert by_id[made.headers["X-Request-Id"]]["path"] == "/mcp"
    assert by_id[page.headers["X-Request-Id"]]["path"] == "/developers"


def test_no_key_token_or_address_reaches_the_log(json_server: LiveServer) -> None:
    address = new_email()
    visitor = signed_in(json_server, address)
    link = latest_link(json_server, address)
    _, key = new_key(visitor)
    keyed = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=json_server.url, timeout=10) as client:
        assert client.post("/api/v1/diagnose", json=DIAGNOSE, headers=keyed).status_code == 200
        assert client.post("/mcp-pro", json=MCP_CALL, headers={**MCP_HEADERS, **keyed}).status_code == 200
        # What people paste by mistake: a key and an address in a query string (the access log shows it).
        assert client.get("/api/v1/diagnose", params={"api_key": key, "email": address}).status_code == 405
        assert client.get(link).status_code == 400  # a used link: its page says so (and its path is logged)
    eventually(
        lambda: access_lines(json_server, lambda line: line.get("status") == 400 and line.get("method") == "GET")
    )
    log = (json_server.workdir / "server.log").read_text()
    lines = log_lines(json_server)  # something was logged, all of it JSON, the start-up banner included
    assert lines[0]["message"].startswith("garage-tools ") and "(database " in lines[0]["message"]
    for secret in (key, key[9:], address, address.replace("@", "%40"), link.rsplit("/", 1)[1]):
        assert secret not in log
    assert "api_key=[redacted]" in log and "email=[email]" in log  # masked, not merely absent


# -- shutdown -------------------------------------------------------------------------------------


def test_sigterm_lets_a_request_in_flight_finish_then_exits_zero(tmp_path: Path) -> None:
    grace = 10
    server = start_server(tmp_path, {"GARAGE_TOOLS_GRACEFUL_SHUTDOWN_SECONDS": str(grace)})
    body = json.dumps(DIAGNOSE).encode()
    head = (
        f"POST /api/v1/diagnose HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    host, port = server.url.removeprefix("http://").split(":")
    try:
        with socket.create_connection((host, int(port)), timeout=grace) as sock:
            sock.sendall(head + body[:10])  # the upload is under way...
            time.sleep(0.3)  # a sleep on purpose: the half-sent body must reach the server before the signal does
            server.process.send_signal(signal.SIGTERM)
            time.sleep(1.0)  # a sleep on purpose: what is tested is that the server is still there a while later
            assert server.process.poll() is None  # ...so the server waits for it
            sock.sendall(body[10:])
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
        status_line, _, rest = reply.partition(b"\r\n")
        assert status_line == b"HTTP/1.1 200 OK", reply
        assert json.loads(rest.partition(b"\r\n\r\n")[2])["symptom"]["key"] == "banging_noise"
        assert server.process.wait(timeout=grace) == 0
    finally:
        stop_server(server)
    assert "Traceback" not in (server.workdir / "server.log").read_text()
