"""A per-tool cap declared on the `Tool` (as visualDiagnose's photo cap will be) is enforced by the gate."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.registry import Registry, UsageCap
from garage_tools.settings import Settings
from tests.unit.test_registry import tool

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    capped = replace(tool("photoEcho"), usage_cap=UsageCap(name="photos", public="2/day", pro="4/day"))
    registry = Registry([capped, tool("echo")])
    settings = Settings(_env_file=None, data_dir=tmp_path, rate_limit_public="100/minute")  # type: ignore[call-arg]
    with TestClient(create_app(settings, registry=registry), base_url="http://127.0.0.1:8000") as test_client:
        yield test_client


def mcp_call(client: TestClient, name: str) -> dict[str, object]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {"text": "hi"}, "_meta": META},
    }
    headers = {
        "Accept": "application/json",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
    }
    result: dict[str, object] = client.post("/mcp", json=body, headers=headers).json()["result"]
    return result


def test_the_cap_counts_calls_of_that_tool_on_every_surface(client: TestClient) -> None:
    first = client.post("/api/v1/photoEcho", json={"text": "hi"})
    assert first.status_code == 200
    assert '"photos-public-day";q=2;w=86400' in first.headers["ratelimit-policy"]
    assert '"public-minute";q=100;w=60' in first.headers["ratelimit-policy"]
    assert mcp_call(client, "photoEcho")["isError"] is False  # the second, over MCP
    refused = client.post("/api/v1/photoEcho", json={"text": "hi"})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert "2 per day" in refused.json()["error"]["message"]
    over_mcp = mcp_call(client, "photoEcho")
    assert over_mcp["isError"] is True
    assert json.loads(over_mcp["content"][0]["text"])["error"]["status"] == 429  # type: ignore[index]


def test_other_tools_are_not_capped_and_refusals_do_not_count(client: TestClient) -> None:
    for _ in range(5):
        client.post("/api/v1/photoEcho", json={"text": "hi"})
    assert all(client.post("/api/v1/echo", json={"text": "hi"}).status_code == 200 for _ in range(10))
    # Refused calls took nothing from the general budget: 2 capped + 10 plain calls counted, of 100.
    remaining = client.post("/api/v1/echo", json={"text": "hi"}).headers["ratelimit"]
    assert remaining.startswith('"public-minute";r=87;')
