"""The access gate in front of REST, /mcp and /mcp-pro: same checks, same order, same codes everywhere."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}


def mcp_call(name: str, arguments: dict[str, Any], *, fast: bool = True) -> tuple[dict[str, str], bytes]:
    """A 2026-07-28 tools/call; `fast=False` adds a param the fast path leaves to the SDK."""
    params: dict[str, Any] = {"name": name, "arguments": arguments, "_meta": META}
    if not fast:
        params["_meta"] = {**META, "progressToken": "p1"}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
    }
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    return headers, json.dumps(body).encode()


def tool_error(response: httpx.Response) -> dict[str, Any]:
    """The error envelope inside an MCP tool result (HTTP 200, isError true)."""
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    assert result["isError"] is True
    envelope: dict[str, Any] = json.loads(result["content"][0]["text"])["error"]
    return envelope


def http_error(response: httpx.Response) -> dict[str, Any]:
    assert response.headers["content-type"].startswith("application/json"), response.text
    envelope: dict[str, Any] = response.json()["error"]
    assert envelope["status"] == response.status_code
    return envelope


SURFACES = ["rest", "mcp-fast", "mcp-sdk", "mcp-pro"]


def send(
    api: httpx.Client, surface: str, arguments: dict[str, Any], headers: dict[str, str], key: str
) -> httpx.Response:
    if surface == "rest":
        return api.post(
            "/api/v1/diagnose", content=json.dumps(arguments), headers={"Content-Type": "application/json", **headers}
        )
    mcp_headers, body = mcp_call("diagnose", arguments, fast=surface != "mcp-sdk")
    path = "/mcp-pro" if surface == "mcp-pro" else "/mcp"
    if surface == "mcp-pro" and "Authorization" not in headers:
        headers = {**headers, "Authorization": f"Bearer {key}"}
    return api.post(path, content=body, headers={**mcp_headers, **headers})


def error_code(surface: str, response: httpx.Response) -> tuple[int, str]:
    """(status, code) as the surface reports it: HTTP on REST and /mcp-pro, a tool error on public /mcp
    for what concerns the call, HTTP for what concerns the transport."""
    envelope = tool_error(response) if response.status_code == 200 else http_error(response)
    return envelope["status"], envelope["code"]


@pytest.mark.parametrize(
    ("case", "headers", "expected"),
    [
        ("two Authorization headers", {"Authorization": "Bearer a, Bearer b"}, None),
        ("a forged key", {"Authorization": "Bearer svc_live_0000000000forged"}, (401, "invalid_key")),
        ("a non-bearer scheme", {"Authorization": "Basic dXNlcjpwYXNz"}, (401, "invalid_key")),
    ],
)
def test_credential_errors_read_the_same_on_every_surface(
    api: httpx.Client, pro_key: str, case: str, headers: dict[str, str], expected: tuple[int, str] | None
) -> None:
    for surface in SURFACES:
        response = send(api, surface, {"description": "loud bang"}, headers, pro_key)
        if expected is None:  # a comma-joined value is one header: still not a valid key
            assert error_code(surface, response) == (401, "invalid_key"), (surface, case)
        else:
            assert error_code(surface, response) == expected, (surface, case)


def raw_request(url: str, request: bytes) -> bytes:
    """Send bytes as they are (httpx merges repeated headers) and read the whole answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("path", ["/api/v1/diagnose", "/mcp", "/mcp-pro"])
def test_two_authorization_headers_are_a_400_on_every_surface(live_server: LiveServer, pro_key: str, path: str) -> None:
    headers, body = mcp_call("diagnose", {"description": "loud bang"})
    if path.startswith("/api"):
        body = b'{"description": "loud bang"}'
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers.items() if name != "Content-Type"]
    lines += [
        "Content-Type: application/json",
        f"Authorization: Bearer {pro_key}",
        "Authorization: Bearer svc_live_other",
    ]
    answer = raw_request(live_server.url, ("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    head, _, payload = answer.partition(b"\r\n\r\n")
    if path == "/mcp":  # public MCP carries credential problems to the tool call
        assert head.startswith(b"HTTP/1.1 200"), answer
        envelope = json.loads(json.loads(payload)["result"]["content"][0]["text"])["error"]
    else:
        assert head.startswith(b"HTTP/1.1 400"), answer
        envelope = json.loads(payload)["error"]
    assert (envelope["status"], envelope["code"]) == (400, "invalid_header")


def test_a_bad_key_is_refused_before_the_body_is_read(api: httpx.Client) -> None:
    headers = {"Authorization": "Bearer svc_live_nope", "Content-Type": "application/json"}
    assert http_error(api.post("/api/v1/diagnose", content=b"{", headers=headers))["code"] == "invalid_key"


@pytest.mark.parametrize("surface", SURFACES)
def test_wrong_media_type_is_415_on_every_surface(api: httpx.Client, pro_key: str, surface: str) -> None:
    response = send(api, surface, {"description": "x"}, {"Content-Type": "text/plain"}, pro_key)
    assert response.status_code == 415
    assert http_error(response)["code"] == "unsupported_media_type"


@pytest.mark.parametrize("path", ["/mcp", "/mcp-pro"])
@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_stateless_mcp_offers_no_stream_and_no_sessions(
    api: httpx.Client, pro_key: str, path: str, method: str
) -> None:
    response = api.request(method, path, headers={"Accept": "text/event-stream", "Authorization": f"Bearer {pro_key}"})
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert http_error(response)["code"] == "method_not_allowed"


def test_unknown_host_and_origin_get_the_envelope_on_mcp(api: httpx.Client) -> None:
    headers, body = mcp_call("diagnose", {"description": "loud bang"})
    host = api.post("/mcp", content=body, headers={**headers, "Host": "evil.example"})
    assert host.status_code == 421 and http_error(host)["code"] == "host_not_allowed"
    origin = api.post("/mcp", content=body, headers={**headers, "Origin": "https://evil.example"})
    assert origin.status_code == 403 and http_error(origin)["code"] == "origin_not_allowed"


def test_an_unknown_protocol_version_names_the_versions_served(api: httpx.Client) -> None:
    headers, body = mcp_call("diagnose", {"description": "loud bang"})
    response = api.post("/mcp", content=body, headers={**headers, "MCP-Protocol-Version": "1999-01-01"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert response.json()["id"] == 7
    assert "1999-01-01" in error["message"] and "2025-11-25" in error["message"]
    assert "_meta" not in error["message"]
    assert error["data"] == {"supported": ["2026-07-28"], "requested": "1999-01-01"}


def test_host_header_is_not_echoed_into_links(api: httpx.Client, live_server: LiveServer) -> None:
    for path in ("/api/v1", "/openapi.json", "/llms.txt"):
        text = api.get(path, headers={"Host": "evil.example"}).text
        assert "evil.example" not in text, path
        assert live_server.url.removeprefix("http://") in text, path


# -- bounded bodies -------------------------------------------------------------------------------


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def server_pid(live_server: LiveServer) -> int:
    """The uvicorn process that serves (a child of `garage-tools serve` when it re-execs, else itself)."""
    return live_server.process.pid


def streamed(total: int, chunk: int = 1 << 20) -> Iterator[bytes]:
    block = b"x" * chunk
    for _ in range(total // chunk):
        yield block


@pytest.mark.parametrize("surface", ["/api/v1/diagnose", "/mcp", "/mcp-pro"])
def test_an_oversized_streamed_body_is_refused_without_reading_it(
    live_server: LiveServer, pro_key: str, surface: str
) -> None:
    pid = server_pid(live_server)
    before = rss_kib(pid)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {pro_key}",
    }
    with httpx.Client(base_url=live_server.url, timeout=30) as client:
        try:
            response = client.post(surface, content=streamed(64 << 20), headers=headers)  # chunked, no length
        except httpx.TransportError:
            response = None  # the server answered 413 and closed while we were still sending
    if response is not None:
        assert response.status_code == 413, response.text
        assert http_error(response)["code"] == "payload_too_large"
    assert rss_kib(pid) - before < 16 * 1024, "the server buffered the body"
    assert httpx.get(f"{live_server.url}/healthz").status_code == 200


@pytest.mark.parametrize("surface", ["/api/v1/diagnose", "/mcp", "/mcp-pro"])
def test_a_body_longer_than_its_content_length_is_not_read_past_it(
    live_server: LiveServer, pro_key: str, surface: str
) -> None:
    pid = server_pid(live_server)
    before = rss_kib(pid)
    host, port = live_server.url.removeprefix("http://").split(":")
    head = (
        f"POST {surface} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nAuthorization: Bearer {pro_key}\r\n"
        "Content-Length: 200\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode())
        try:
            for block in streamed(48 << 20):
                sock.sendall(block)
        except OSError:
            pass  # the server closed the connection: it stopped reading
    assert rss_kib(pid) - before < 16 * 1024, "the server buffered the body"
    assert httpx.get(f"{live_server.url}/healthz").status_code == 200


@pytest.fixture(scope="module")
def slow_body_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("slow-body"), {"GARAGE_TOOLS_BODY_TIMEOUT_SECONDS": "1"})
    yield server
    stop_server(server)


@pytest.mark.parametrize("path", ["/api/v1/diagnose", "/mcp"])
def test_a_body_that_trickles_is_cut_off(slow_body_server: LiveServer, path: str) -> None:
    host, port = slow_body_server.url.removeprefix("http://").split(":")
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n"
    )
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode() + b'{"a":')
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
            if b"\r\n\r\n" in answer and answer.endswith(b"}"):
                break
    assert time.monotonic() - started < 5
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert b'"request_timeout"' in answer
