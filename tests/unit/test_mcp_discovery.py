"""`/server.json` (the official MCP Registry's format) and the SEP-2127 Server Card describe both MCP endpoints,
the pro one with the key as a secret header; `/llms.txt` and `/ai` link both.

The schemas below carry the constraints of the official documents that these files must meet (the registry's
`server.schema.json` 2025-12-11 and the Server Card's `v2` schema from experimental-ext-server-card), encoded
here rather than fetched: the tests make no outside requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.settings import Settings

_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string"},
        "isRequired": {"type": "boolean"},
        "isSecret": {"type": "boolean"},
        "format": {"enum": ["string", "number", "boolean", "filepath"]},
        "value": {"type": "string"},
        "default": {"type": "string"},
        "placeholder": {"type": "string"},
        "choices": {"type": "array", "items": {"type": "string"}},
    },
}
_HEADER: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "properties": {**_INPUT["properties"], "name": {"type": "string"}, "variables": {"additionalProperties": _INPUT}},
}
_ICON = {
    "type": "object",
    "required": ["src"],
    "properties": {
        "src": {"type": "string", "format": "uri", "maxLength": 255},
        "mimeType": {"enum": ["image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp"]},
        "sizes": {"type": "array", "items": {"type": "string", "pattern": "^([0-9]+x[0-9]+|any)$"}},
    },
}
_IDENTITY = {
    "name": {"type": "string", "minLength": 3, "maxLength": 200, "pattern": "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$"},
    "title": {"type": "string", "minLength": 1, "maxLength": 100},
    "description": {"type": "string", "minLength": 1, "maxLength": 100},
    "version": {"type": "string", "maxLength": 255},
    "websiteUrl": {"type": "string", "format": "uri"},
    "icons": {"type": "array", "items": _ICON},
}
_REMOTE = {
    "type": "object",
    "required": ["type", "url"],
    "properties": {
        "type": {"enum": ["streamable-http", "sse"]},
        "url": {"type": "string", "pattern": "^https?://[^\\s]+$"},
        "headers": {"type": "array", "items": _HEADER},
        "variables": {"type": "object", "additionalProperties": _INPUT},
    },
}
SERVER_JSON_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["name", "description", "version"],
    "properties": {
        "$schema": {"const": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"},
        **_IDENTITY,
        "remotes": {"type": "array", "items": _REMOTE},
    },
}
SERVER_CARD_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["$schema", "description", "name", "version"],
    "properties": {
        "$schema": {"pattern": "^https://static\\.modelcontextprotocol\\.io/schemas/v2/server-card\\.schema\\.json$"},
        **_IDENTITY,
        "remotes": {
            "type": "array",
            "items": {
                **_REMOTE,
                "additionalProperties": False,
                "properties": {
                    **_REMOTE["properties"],
                    "supportedProtocolVersions": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
        "repository": {"type": "object"},
        "_meta": {"type": "object"},
    },
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("discovery") / "var", mail_worker_in_process=False)
    with TestClient(create_app(settings), base_url="https://doors.example.com") as client:
        yield client


def _both_endpoints(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    remotes = {remote["url"]: remote for remote in document["remotes"]}
    assert set(remotes) == {"https://doors.example.com/mcp", "https://doors.example.com/mcp-pro"}
    assert all(remote["type"] == "streamable-http" for remote in remotes.values())
    (key,) = remotes["https://doors.example.com/mcp-pro"]["headers"]
    assert key["name"] == "Authorization" and key["isSecret"] is True and key["value"] == "Bearer {api_key}"
    assert key["variables"]["api_key"]["isSecret"] is True
    assert "headers" not in remotes["https://doors.example.com/mcp"]
    return remotes


def test_server_json_is_valid_for_the_registry_and_names_both_endpoints(client: TestClient) -> None:
    answer = client.get("/server.json")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    document = answer.json()
    problems = [error.message for error in Draft7Validator(SERVER_JSON_SCHEMA).iter_errors(document)]
    assert not problems
    assert document["name"] == "com.example.doors/garage-door-tools"
    _both_endpoints(document)
    assert client.get(document["icons"][0]["src"]).status_code == 200


@pytest.mark.parametrize("path", ["/.well-known/mcp/server-card.json", "/mcp/server-card", "/mcp-pro/server-card"])
def test_the_server_card_follows_sep_2127(client: TestClient, path: str) -> None:
    answer = client.get(path, headers={"Accept": "application/mcp-server-card+json", "Origin": "https://x.example"})
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/mcp-server-card+json"
    assert answer.headers["access-control-allow-origin"] == "*"
    assert answer.headers["cache-control"] == "public, max-age=3600"
    card = answer.json()
    assert not [error.message for error in Draft202012Validator(SERVER_CARD_SCHEMA).iter_errors(card)]
    for remote in _both_endpoints(card).values():
        assert {"2026-07-28", "2025-11-25"} <= set(remote["supportedProtocolVersions"])


def test_the_catalog_points_to_the_card(client: TestClient) -> None:
    (entry,) = client.get("/.well-known/mcp/catalog.json").json()["entries"]
    assert entry["type"] == "application/mcp-server-card+json"
    assert client.get(entry["url"]).json()["name"] == "com.example.doors/garage-door-tools"


def test_llms_txt_and_the_agent_guide_link_both(client: TestClient) -> None:
    for page in (client.get("/llms.txt").text, client.get("/ai").text):
        assert "https://doors.example.com/.well-known/mcp/server-card.json" in page
        assert "https://doors.example.com/server.json" in page
