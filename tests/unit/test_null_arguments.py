"""`null` for an optional argument is the argument left out, on every tool and surface, and the published
schemas say so (typed clients send `"topK": null` for an Optional they did not set)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.errors import InvalidArguments
from garage_tools.registry import parse_arguments
from garage_tools.settings import Settings
from garage_tools.tools import build_registry

TOOLS = {tool.name: tool for tool in build_registry()}
SCHEMAS = {name: tool.input_model.model_json_schema(by_alias=True) for name, tool in TOOLS.items()}
OPTIONAL = [
    (name, field)
    for name, schema in SCHEMAS.items()
    for field in schema["properties"]
    if field not in schema.get("required", ())
]


def test_there_are_optional_arguments_without_a_null_default() -> None:
    """The rule matters beyond the fields already typed `X | None`: these once refused null."""
    assert {("retrieveLabContext", "topK"), ("diagnose", "useLlmFallback"), ("submitInspection", "emailReport")} <= set(
        OPTIONAL
    )


@pytest.mark.parametrize(("name", "field"), OPTIONAL)
def test_every_optional_argument_takes_null_as_absent(name: str, field: str) -> None:
    schema = SCHEMAS[name]
    property_schema = {**schema["properties"][field], "$defs": schema.get("$defs", {})}
    assert Draft202012Validator(property_schema).is_valid(None), f"{name}.{field}: the schema refuses null"
    problems: set[str | None] = set()
    try:
        parse_arguments(TOOLS[name], {field: None})
    except InvalidArguments as error:  # the tool's required arguments are missing, and only those
        problems = {problem.field for problem in error.details or ()}
    assert field not in problems


def test_null_gives_the_default() -> None:
    parsed = parse_arguments(TOOLS["retrieveLabContext"], {"query": "spring", "topK": None, "labSlug": None})
    assert (parsed.top_k, parsed.lab_slug) == (5, None)  # type: ignore[attr-defined]
    assert parse_arguments(TOOLS["diagnose"], {"description": "bang", "useLlmFallback": None}).use_llm_fallback is False  # type: ignore[attr-defined]
    with pytest.raises(InvalidArguments):  # a required argument is still required
        parse_arguments(TOOLS["diagnose"], {"description": None})
    with pytest.raises(InvalidArguments):  # and an unknown one still unknown
        parse_arguments(TOOLS["diagnose"], {"description": "bang", "colour": None})


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("nulls") / "var", mail_worker_in_process=False)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        yield client


ARGUMENTS: dict[str, Any] = {"description": "my door makes a loud bang", "useLlmFallback": None}


def test_null_is_absent_on_rest(client: TestClient) -> None:
    answer = client.post("/api/v1/diagnose", json=ARGUMENTS)
    assert answer.status_code == 200, answer.text
    assert answer.json()["symptom"]["key"] == "banging_noise"


def test_null_is_absent_on_mcp_and_published_there(client: TestClient) -> None:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    listing = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers)
    tools = {tool["name"]: tool for tool in listing.json()["result"]["tools"]}
    assert {"type": "null"} in tools["retrieveLabContext"]["inputSchema"]["properties"]["topK"]["anyOf"]
    assert {"type": "null"} in tools["diagnose"]["inputSchema"]["properties"]["useLlmFallback"]["anyOf"]
    call = {"name": "diagnose", "arguments": ARGUMENTS}
    answer = client.post(
        "/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, headers=headers
    )
    result = answer.json()["result"]
    assert result["isError"] is False, result
    assert json.loads(result["content"][0]["text"])["symptom"]["key"] == "banging_noise"
