"""MCP Apps with the official SDK client, on both tiers and both protocol revisions: the extension is advertised,
tools name their views in `_meta.ui` (and the ChatGPT alias), every `ui://` view reads as an MCP App page with
its CSP declared, and the tools still return full text and structured content."""

from __future__ import annotations

import json

import httpx
import pytest
from mcp_types import TextResourceContents

from tests.conftest import LiveServer
from tests.e2e.test_mcp import MODES, connect

VIEWS = {
    "diagnose": "ui://garage-door-tools/diagnosis.html",
    "routeByZip": "ui://garage-door-tools/pro.html",
    "costEstimate": "ui://garage-door-tools/cost.html",
    "submitInspection": "ui://garage-door-tools/inspection.html",
    "getLab": "ui://garage-door-tools/lab.html",
}


@pytest.fixture(params=["public", "pro"])
def endpoint(request: pytest.FixtureRequest, live_server: LiveServer, pro_key: str) -> tuple[str, str | None]:
    if request.param == "public":
        return f"{live_server.url}/mcp", None
    return f"{live_server.url}/mcp-pro", pro_key


@pytest.mark.parametrize("mode", MODES)
async def test_tools_name_their_views_and_every_view_reads(mode: str, endpoint: tuple[str, str | None]) -> None:
    async with connect(*endpoint[:1], mode, endpoint[1]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        resources = {str(r.uri): r for r in (await client.list_resources()).resources}
        pages = {uri: await client.read_resource(uri) for uri in VIEWS.values()}
        result = await client.call_tool("diagnose", {"description": "loud bang and the door won't open"})
    for name, uri in VIEWS.items():
        meta = tools[name].meta or {}
        assert meta["ui"]["resourceUri"] == uri and meta["openai/outputTemplate"] == uri
    assert all(tool.meta is None for name, tool in tools.items() if name not in VIEWS)
    for uri, read in pages.items():
        assert resources[uri].mime_type == "text/html;profile=mcp-app"
        (content,) = read.contents
        assert isinstance(content, TextResourceContents) and content.mime_type == "text/html;profile=mcp-app"
        assert content.meta and content.meta["ui"]["csp"] == {}  # no outside origin: everything is inline
        assert content.text.startswith("<!doctype html>") and "ui/initialize" in content.text
        assert "<script src" not in content.text and "<link" not in content.text
    # Clients without apps still get the whole answer as text and structured content.
    assert result.structured_content and json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]


def test_the_extension_is_advertised(live_server: LiveServer) -> None:
    """In `server/discover` (2026-07-28). The SDK leaves `extensions` out of a 2025-11-25 `initialize` answer;
    hosts there go by the tools' `_meta.ui` alone."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    }
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28"}
    message = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}
    answer = httpx.post(f"{live_server.url}/mcp", json=message, headers={**headers, "Mcp-Method": "server/discover"})
    capabilities = answer.json()["result"]["capabilities"]
    assert capabilities["extensions"]["io.modelcontextprotocol/ui"] == {"mimeTypes": ["text/html;profile=mcp-app"]}
    assert "prompts" in capabilities and "completions" in capabilities
