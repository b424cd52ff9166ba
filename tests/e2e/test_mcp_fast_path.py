"""The MCP fast path answers exactly as the SDK does, on every revision, and steps aside otherwise."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from garage_tools.app import build_access
from garage_tools.services import build_services
from garage_tools.settings import Settings
from garage_tools.surfaces.gate import McpGate
from garage_tools.surfaces.mcp import McpSurface, build_server
from garage_tools.surfaces.mcp_fast import FastPath
from garage_tools.surfaces.mcp_listing import ToolListing
from garage_tools.surfaces.responses import send_error
from garage_tools.tools import build_registry
from tests.conftest import LiveServer, start_server, stop_server

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}


def call(name: str, arguments: Any, request_id: Any = 1, **extra: Any) -> tuple[dict[str, str], dict[str, Any]]:
    params = {"name": name, "arguments": arguments, "_meta": META, **extra}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
    }
    return headers, {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def legacy(
    method: str, params: Any = None, revision: str = "2025-11-25", request_id: Any = 1
) -> tuple[dict[str, str], dict[str, Any]]:
    """A message as a client on a handshake revision sends it once initialized (no routing headers)."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": revision,
    }
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return headers, body


def _with_headers(
    message: tuple[dict[str, str], dict[str, Any]], headers: dict[str, str]
) -> tuple[dict[str, str], dict[str, Any]]:
    return {**message[0], **headers}, message[1]


def listing(**extra_params: Any) -> tuple[dict[str, str], dict[str, Any]]:
    """A 2026-07-28 `tools/list`: routing headers and the `_meta` stamps, no handshake."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/list",
    }
    params = {"_meta": META, **extra_params}
    return headers, {"jsonrpc": "2.0", "id": "l", "method": "tools/list", "params": params}


CASES = {
    "answer": call("diagnose", {"description": "loud bang"}),
    "no match": call("diagnose", {"description": "hello"}, request_id="req-7"),
    "cost": call("costEstimate", {"issueKey": "broken_spring", "doorSize": "16x7", "zip": "94110"}),
    "empty list": call("getDoorStyles", {"minRValue": 99}),
    "invalid arguments": call("costEstimate", {"issueKey": "nope"}),
    "unknown field": call("diagnose", {"description": "x", "colour": "red"}),
    "unknown tool": call("fixMyDoor", {}),
    "name mismatch": (
        {**call("diagnose", {"description": "x"})[0], "Mcp-Name": "getDoorStyles"},
        call("diagnose", {"description": "x"})[1],
    ),
    "extra params": call("diagnose", {"description": "loud bang"}, task={"ttl": 1000}),
    "bad id": call("diagnose", {"description": "loud bang"}, request_id=None),
    "2025-11-25 answer": legacy("tools/call", {"name": "diagnose", "arguments": {"description": "loud bang"}}),
    "2025-06-18 answer": legacy(
        "tools/call", {"name": "costEstimate", "arguments": {"issueKey": "broken_spring"}}, "2025-06-18", "a"
    ),
    "2025-11-25 no arguments": legacy("tools/call", {"name": "diagnose"}),
    "2025-11-25 invalid arguments": legacy("tools/call", {"name": "costEstimate", "arguments": {"issueKey": "?"}}),
    "2025-11-25 unknown tool": legacy("tools/call", {"name": "fixMyDoor", "arguments": {}}),
    "2025-11-25 progress token": legacy(
        "tools/call", {"name": "diagnose", "arguments": {"description": "x"}, "_meta": {"progressToken": 3}}
    ),
    "2025-11-25 list": legacy("tools/list"),
    "2025-06-18 list with params": legacy("tools/list", {}, "2025-06-18", "list-1"),
    "2025-11-25 list with cursor": legacy("tools/list", {"cursor": "x"}),
    "2025-03-26 answer": legacy(
        "tools/call", {"name": "diagnose", "arguments": {"description": "loud bang"}}, "2025-03-26"
    ),
    "2025-03-26 list": legacy("tools/list", None, "2025-03-26"),
    "2024-11-05 answer": legacy(
        "tools/call", {"name": "diagnose", "arguments": {"description": "squeaks"}}, "2024-11-05"
    ),
    "list": listing(),
    "list with cursor": listing(cursor="abc"),
    "list with a name header": _with_headers(listing(), {"Mcp-Name": "diagnose"}),
    # Media types: the SDK reads them its own way (exact `application/json`; wildcards in Accept).
    "json-patch body": _with_headers(
        call("diagnose", {"description": "loud bang"}), {"Content-Type": "application/json-patch+json"}
    ),
    "charset parameter": _with_headers(
        call("diagnose", {"description": "loud bang"}), {"Content-Type": "application/json; charset=utf-8"}
    ),
    "accept lookalike": _with_headers(call("diagnose", {"description": "loud bang"}), {"Accept": "application/jsonx"}),
    "accept wildcard": _with_headers(
        legacy("tools/call", {"name": "diagnose", "arguments": {"description": "bang"}}), {"Accept": "*/*"}
    ),
    "accept event stream only": _with_headers(legacy("tools/list"), {"Accept": "text/event-stream"}),
}

#: Cases the fast path must answer itself (the rest go to the SDK).
FAST_CASES = (
    "answer",
    "list",
    "2025-11-25 answer",
    "2025-06-18 answer",
    "2025-11-25 list",
    "2025-06-18 list with params",
    "2025-03-26 answer",
    "2025-03-26 list",
    "2024-11-05 answer",
    "charset parameter",
    "accept wildcard",
)


@pytest.fixture(scope="module")
def sdk_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("sdk-only"), {"GARAGE_TOOLS_MCP_FAST_PATH": "false"})
    yield server
    stop_server(server)


@pytest.mark.parametrize("case", CASES)
def test_fast_path_answers_like_the_sdk(case: str, live_server: LiveServer, sdk_only: LiveServer) -> None:
    headers, body = CASES[case]
    fast = httpx.post(f"{live_server.url}/mcp", content=json.dumps(body), headers=headers)
    slow = httpx.post(f"{sdk_only.url}/mcp", content=json.dumps(body), headers=headers)
    assert _answer(fast, live_server.url) == _answer(slow, sdk_only.url)


def _answer(response: httpx.Response, base: str) -> tuple[int, str | None, Any]:
    """Status, media type and body: what a client acts on (ids, dates and limits aside). Addresses
    under the server's own base URL (icons) are compared without it: the two servers listen apart."""
    body = json.loads(response.text.replace(base, "")) if response.content else None
    return response.status_code, response.headers.get("content-type"), body


def test_invalid_key_answers_like_the_sdk(live_server: LiveServer, sdk_only: LiveServer) -> None:
    headers, body = CASES["answer"]
    headers = {**headers, "Authorization": "Bearer svc_live_wrong"}
    fast = httpx.post(f"{live_server.url}/mcp", json=body, headers=headers).json()
    slow = httpx.post(f"{sdk_only.url}/mcp", json=body, headers=headers).json()
    assert fast == slow
    assert json.loads(fast["result"]["content"][0]["text"])["error"]["code"] == "invalid_key"


async def _exploding_sdk(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("the SDK was called")


class _Sent:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


def _scope(headers: dict[str, str]) -> dict[str, Any]:
    raw = [(k.lower().encode(), v.encode()) for k, v in {"Host": "127.0.0.1:8000", **headers}.items()]
    return {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": raw,
        "scheme": "http",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 1),
        "root_path": "",
        "query_string": b"",
    }


@pytest.mark.parametrize("case", FAST_CASES)
async def test_plain_messages_never_reach_the_sdk(case: str, tmp_path: Path) -> None:
    services = build_services(Settings(_env_file=None, data_dir=tmp_path))  # type: ignore[call-arg]
    registry = build_registry()
    server = build_server(registry, services)
    fast = FastPath(registry, services, server.server_info_stamp, ToolListing(registry))
    access = build_access(services, registry)
    gate = McpGate(access, registry, McpSurface(_exploding_sdk, fast), send_error, name="mcp", pro=False)
    headers, body = CASES[case]
    sent = _Sent()
    payload = json.dumps(body).encode()

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": payload, "more_body": False}

    await gate(_scope(headers), receive, sent)
    assert sent.messages[0]["status"] == 200
    answer = json.loads(sent.messages[1]["body"])
    assert answer["id"] == body["id"]
    if body["method"] == "tools/list":
        assert [tool["name"] for tool in answer["result"]["tools"]] == registry.names
    else:
        assert answer["result"]["isError"] is False
        assert answer["result"]["structuredContent"]
    await services.close()
