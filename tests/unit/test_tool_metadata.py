"""Every tool is listed with a title, an icon the service serves, all four annotation hints (each explained in
docs/guide.md) and optional arguments a client reading only a property's top-level `type` sends right."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.settings import Settings
from garage_tools.tools import build_registry

REGISTRY = build_registry()
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
YES_NO = {"yes": True, "no": False}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("metadata") / "var", mail_worker_in_process=False)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        yield client


def _listing(client: TestClient, path: str = "/mcp") -> dict[str, dict[str, Any]]:
    answer = client.post(path, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=HEADERS)
    return {tool["name"]: tool for tool in answer.json()["result"]["tools"]}


def test_every_tool_has_a_title_all_hints_and_an_icon_the_service_serves(client: TestClient) -> None:
    listed = _listing(client)
    assert set(listed) == set(REGISTRY.names)
    for name, tool in listed.items():
        assert tool["title"] and tool["annotations"]["title"] == tool["title"]
        hints = tool["annotations"]
        assert {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} <= hints.keys(), name
        (icon,) = tool["icons"]
        assert icon["src"].startswith("http://127.0.0.1/static/icons/") and icon["mimeType"] == "image/svg+xml"
        served = client.get(icon["src"])
        assert served.status_code == 200 and served.headers["content-type"].startswith("image/svg+xml")
        assert served.text.startswith("<svg")


def test_the_guide_explains_every_tools_hints_as_declared() -> None:
    rows = {}
    for line in GUIDE.read_text().splitlines():
        if match := re.match(r"\| `(\w+)` \| (yes|no) \| (yes|no) \| (yes|no) \| (yes|no) \| (.+) \|$", line):
            name, *flags, why = match.groups()
            rows[name] = ([YES_NO[flag] for flag in flags], why)
    assert set(rows) == set(REGISTRY.names), "docs/guide.md: one row per tool in 'Titles, icons and hints'"
    for tool in REGISTRY:
        hints = tool.annotations
        assert rows[tool.name][0] == [hints.read_only, hints.destructive, hints.idempotent, hints.open_world], tool.name
        assert len(rows[tool.name][1]) > 20


def test_optional_arguments_say_their_json_type_at_the_top(client: TestClient) -> None:
    for name, tool in _listing(client).items():
        schema = tool["inputSchema"]
        for field, prop in schema["properties"].items():
            assert "type" in prop, f"{name}.{field} has no top-level type"
            if field not in schema.get("required", ()):
                assert isinstance(prop["type"], list) and "null" in prop["type"], f"{name}.{field}"
    top_k = _listing(client)["retrieveLabContext"]["inputSchema"]["properties"]["topK"]
    assert top_k["type"] == ["integer", "null"] and {"type": "null"} in top_k["anyOf"]
