"""Every JSON-RPC envelope rule MCP sets is checked at the gate, on the fast path and the SDK path alike:
a message that breaks one is answered -32600 and counted against nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.settings import Settings

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}
ACCEPT = "application/json, text/event-stream"
#: A 2026-07-28 call (routing headers, `_meta`) and a call after the handshake (a version header alone).
PER_REQUEST = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "diagnose"}
HANDSHAKE = {"MCP-Protocol-Version": "2025-11-25"}


def diagnose_call(request_id: Any, revision: dict[str, str]) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "diagnose", "arguments": {"description": "loud bang"}}
    if revision is PER_REQUEST:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


BAD_IDS = {"null": None, "fraction": 1.5, "whole float": 2.0, "object": {"n": 1}, "boolean": True, "array": [1]}
BAD_ENVELOPES = {
    "no jsonrpc": {"id": 1, "method": "tools/list"},
    "jsonrpc 1.0": {"jsonrpc": "1.0", "id": 1, "method": "tools/list"},
    "method a number": {"jsonrpc": "2.0", "id": 1, "method": 5},
    "params an array": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ["diagnose"]},
    "a batch": [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}],
    "a number": 3,
    "no method, no result": {"jsonrpc": "2.0", "id": 1},
    "a listing with a null id": {"jsonrpc": "2.0", "id": None, "method": "tools/list"},
}


@pytest.fixture(params=[True, False], ids=["fast path", "SDK path"], scope="module")
def client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data_dir = tmp_path_factory.mktemp("envelope") / "var"
    settings = Settings(data_dir=data_dir, mail_worker_in_process=False, mcp_fast_path=request.param)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        yield client


def post(client: TestClient, body: Any, headers: dict[str, str]) -> Any:
    return client.post(
        "/mcp", content=json.dumps(body), headers={"Content-Type": "application/json", "Accept": ACCEPT, **headers}
    )


def remaining(response: Any) -> int:
    """The calls left this minute, from the `RateLimit` header."""
    first = response.headers["ratelimit"].split(",")[0]
    return int(first.split(";r=")[1].split(";")[0])


def assert_invalid_request(response: Any) -> None:
    assert response.status_code == 400
    body = response.json()
    assert body["id"] is None
    assert body["error"]["code"] == -32600
    assert "ratelimit" not in response.headers


@pytest.mark.parametrize("revision", [PER_REQUEST, HANDSHAKE], ids=["2026-07-28", "2025-11-25"])
def test_a_tool_call_with_a_bad_id_is_invalid_and_not_counted(client: TestClient, revision: dict[str, str]) -> None:
    before = remaining(post(client, diagnose_call("first", revision), revision))
    for bad_id in BAD_IDS.values():
        assert_invalid_request(post(client, diagnose_call(bad_id, revision), revision))
    after = post(client, diagnose_call(7, revision), revision)
    assert after.json()["id"] == 7
    assert remaining(after) == before - 1  # only the two good calls were counted


@pytest.mark.parametrize("case", BAD_ENVELOPES)
def test_every_envelope_rule_answers_invalid_request(client: TestClient, case: str) -> None:
    assert_invalid_request(post(client, BAD_ENVELOPES[case], HANDSHAKE))


def test_notifications_and_good_messages_still_pass(client: TestClient) -> None:
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(client, notification, HANDSHAKE).status_code == 202
    listing = post(client, {"jsonrpc": "2.0", "id": "l", "method": "tools/list"}, HANDSHAKE)
    assert listing.status_code == 200 and listing.json()["result"]["tools"]
