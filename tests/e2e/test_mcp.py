"""MCP with the official SDK client: both tiers, both protocol revisions, same answers as REST."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from garage_tools.tools import build_registry
from tests.conftest import KEY_CACHE_SECONDS, LiveServer
from tests.polling import eventually_async

REGISTRY = build_registry()
MODES = ["legacy", "2026-07-28"]  # the 2025-11-25 handshake, and the stateless 2026-07-28 revision


@asynccontextmanager
async def connect(url: str, mode: str, key: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=30))
    async with Client(transport, mode=mode) as client:
        yield client


def envelope(result: object) -> dict:
    assert result.is_error  # type: ignore[attr-defined]
    return json.loads(result.content[0].text)["error"]  # type: ignore[attr-defined]


@pytest.fixture(params=["public", "pro"])
def endpoint(request: pytest.FixtureRequest, live_server: LiveServer, pro_key: str) -> tuple[str, str | None]:
    if request.param == "public":
        return f"{live_server.url}/mcp", None
    return f"{live_server.url}/mcp-pro", pro_key


@pytest.mark.parametrize("mode", MODES)
async def test_every_registry_tool_is_listed_with_schemas(
    mode: str, endpoint: tuple[str, str | None], live_server: LiveServer
) -> None:
    async with httpx.AsyncClient() as http:
        index = (await http.get(f"{live_server.url}/api/v1")).json()
    async with connect(*endpoint[:1], mode, endpoint[1]) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(listed) == {t["name"] for t in index["tools"]}
    for tool in listed.values():
        assert tool.description and len(tool.description) > 80
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema and tool.output_schema["type"] == "object"
        assert tool.annotations is not None
        declared = REGISTRY.get(tool.name).annotations
        assert (tool.annotations.read_only_hint, tool.annotations.idempotent_hint) == (
            declared.read_only,
            declared.idempotent,
        )
    assert "description" in listed["diagnose"].input_schema["required"]
    assert listed["diagnose"].annotations and listed["diagnose"].annotations.read_only_hint is True


@pytest.mark.parametrize("mode", MODES)
async def test_results_carry_structured_content_and_the_same_json_as_text(
    mode: str, endpoint: tuple[str, str | None], live_server: LiveServer
) -> None:
    arguments = {"issueKey": "broken_spring", "doorSize": "16x7", "zip": "94110"}
    async with connect(endpoint[0], mode, endpoint[1]) as client:
        result = await client.call_tool("costEstimate", arguments)
    assert not result.is_error
    assert result.structured_content == json.loads(result.content[0].text)
    async with httpx.AsyncClient() as http:
        rest = (await http.post(f"{live_server.url}/api/v1/costEstimate", json=arguments)).json()
    assert result.structured_content == rest  # one registry, one answer


@pytest.mark.parametrize("mode", MODES)
async def test_diagnose_over_mcp(mode: str, endpoint: tuple[str, str | None]) -> None:
    async with connect(endpoint[0], mode, endpoint[1]) as client:
        result = await client.call_tool("diagnose", {"description": "sounds like a gunshot"})
    assert result.structured_content and result.structured_content["symptom"]["key"] == "banging_noise"
    assert result.structured_content["safetyFlag"] is True


@pytest.mark.parametrize("mode", MODES)
async def test_bad_arguments_are_a_tool_error_with_the_envelope(mode: str, endpoint: tuple[str, str | None]) -> None:
    async with connect(endpoint[0], mode, endpoint[1]) as client:
        result = await client.call_tool("getDoorStyles", {"budget": "cheap"})
    error = envelope(result)
    assert error["code"] == "invalid_arguments" and error["status"] == 400 and "economy" in error["message"]


@pytest.mark.parametrize("mode", MODES)
async def test_unknown_tool_is_a_protocol_error(mode: str, endpoint: tuple[str, str | None]) -> None:
    async with connect(endpoint[0], mode, endpoint[1]) as client:
        with pytest.raises(MCPError, match="Unknown tool"):
            await client.call_tool("fixMyDoor", {})


@pytest.mark.parametrize("mode", MODES)
async def test_invalid_key_on_public_endpoint_is_a_tool_error_not_http_401(mode: str, live_server: LiveServer) -> None:
    async with connect(f"{live_server.url}/mcp", mode, "svc_live_not_a_real_key") as client:
        assert (await client.list_tools()).tools  # the endpoint itself stays open: no OAuth dance
        error = envelope(await client.call_tool("diagnose", {"description": "loud bang"}))
    assert error["code"] == "invalid_key" and error["status"] == 401


#: The first message each revision's client sends: the 2025-11-25 handshake, and a 2026-07-28 listing.
FIRST_MESSAGES = {
    "legacy": (
        {},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "tests", "version": "1"},
            },
        },
    ),
    "2026-07-28": (
        {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/list",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
                }
            },
        },
    ),
}


def first_message(url: str, mode: str, key: str | None) -> httpx.Response:
    headers, body = FIRST_MESSAGES[mode]
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return httpx.post(url, json=body, headers=headers)


def assert_pro_refusal(response: httpx.Response, code: str) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"]["code"] == code and response.json()["error"]["status"] == 401


@pytest.mark.parametrize("mode", MODES)
async def test_pro_endpoint_without_a_key_is_http_401(mode: str, live_server: LiveServer) -> None:
    assert_pro_refusal(first_message(f"{live_server.url}/mcp-pro", mode, None), "invalid_key")
    with pytest.raises(ExceptionGroup) as refused:  # what an SDK client sees of that 401
        async with connect(f"{live_server.url}/mcp-pro", mode) as client:
            await client.list_tools()
    assert refused.group_contains(MCPError, match="error response", depth=2)


@pytest.mark.parametrize("key", [None, "svc_live_wrong", "Basic abc"])
def test_pro_endpoint_401_has_www_authenticate_and_envelope(live_server: LiveServer, key: str | None) -> None:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    if key:
        headers["Authorization"] = key if " " in key else f"Bearer {key}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx.post(f"{live_server.url}/mcp-pro", json=body, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"]["code"] == "invalid_key"


async def test_revoked_key_is_refused_on_pro(live_server: LiveServer) -> None:
    key_id, key = live_server.create_key(name="mcp-revoke")
    async with connect(f"{live_server.url}/mcp-pro", "2026-07-28", key) as client:
        assert (await client.list_tools()).tools
    live_server.cli("keys", "revoke", key_id)  # another process: learnt within the key cache time

    async def refused() -> httpx.Response | None:
        response = first_message(f"{live_server.url}/mcp-pro", "2026-07-28", key)
        return response if response.status_code != 200 else None

    response = await eventually_async(
        refused, seconds=KEY_CACHE_SECONDS + 2, every=0.2, what="the revoked key to be refused after the key cache time"
    )
    assert_pro_refusal(response, "invalid_key")


def test_unknown_host_is_refused_by_dns_rebinding_protection(live_server: LiveServer) -> None:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Host": "evil.example",
        "MCP-Protocol-Version": "2025-11-25",
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx.post(f"{live_server.url}/mcp", json=body, headers=headers)
    assert response.status_code == 421


def test_header_values_with_surrounding_whitespace_are_accepted(live_server: LiveServer) -> None:
    # RFC 9110: leading/trailing whitespace is not part of a field value. uvicorn's httptools
    # parser keeps it, and the SDK compares Mcp-Name with the body verbatim.
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "diagnose", "arguments": {"description": "loud bang"}, "_meta": meta},
    }
    payload = json.dumps(body).encode()
    host, port = live_server.url.removeprefix("http://").split(":")
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28  \r\n"
        f"Mcp-Method: tools/call\r\nMcp-Name:   diagnose  \r\nContent-Length: {len(payload)}\r\n"
        "Connection: close\r\n\r\n"
    )
    # httpx refuses to send such values, so the request goes over a raw socket.
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode() + payload)
        raw = b"".join(iter(lambda: sock.recv(65536), b""))
    status_line, _, rest = raw.partition(b"\r\n")
    assert b" 200 " in status_line, raw[:500]
    answer = json.loads(rest.partition(b"\r\n\r\n")[2])
    assert answer["result"]["structuredContent"]["symptom"]["key"] == "banging_noise"
