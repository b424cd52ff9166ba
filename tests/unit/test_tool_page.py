"""A tool's address opened in a browser shows a page about the tool; API clients keep 405 with Allow: POST;
`/brain`, where other services keep their agent guide, leads to `/ai`."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.registry import parse_arguments
from garage_tools.settings import Settings
from garage_tools.surfaces.openapi import example_arguments
from garage_tools.tools import build_registry

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("tool-page") / "var", mail_worker_in_process=False)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        yield client


def test_a_browser_gets_a_page_about_the_tool(client: TestClient) -> None:
    page = client.get("/api/v1/diagnose", headers=BROWSER)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    text = html.unescape(page.text)
    diagnose = build_registry().get("diagnose")
    assert f"<h1>{diagnose.title}</h1>" in text and diagnose.summary in text
    assert 'href="/developers/api#/tools/diagnose"' in text  # the tool in the interactive reference
    example = re.search(r"curl -X POST http://127\.0\.0\.1/api/v1/diagnose .*?-d '(\{.*?\})'</code>", text, re.S)
    assert example is not None, text
    assert json.loads(example.group(1)) == {"description": "my door makes a loud bang"}
    key_only = html.unescape(client.get("/api/v1/retrieveLabContext", headers=BROWSER).text)
    assert "Authorization: Bearer svc_live_" in key_only


@pytest.mark.parametrize("accept", [None, "application/json", "*/*", "application/json, text/html"])
def test_api_clients_keep_the_405(client: TestClient, accept: str | None) -> None:
    headers = {"Accept": accept} if accept else {}
    answer = client.get("/api/v1/diagnose", headers=headers)
    assert answer.status_code == 405
    assert answer.headers["allow"] == "POST"
    assert answer.json()["error"]["code"] == "method_not_allowed"


def test_an_unknown_tool_is_not_found_either_way(client: TestClient) -> None:
    assert client.get("/api/v1/fixMyDoor", headers=BROWSER).status_code == 404
    assert "Page not found" in client.get("/api/v1/fixMyDoor", headers=BROWSER).text
    assert client.get("/api/v1/fixMyDoor").json()["error"]["code"] == "unknown_tool"


def test_posting_still_calls_the_tool(client: TestClient) -> None:
    answer = client.post("/api/v1/diagnose", json={"description": "loud bang"}, headers=BROWSER)
    assert answer.status_code == 200 and answer.json()["symptom"]["key"] == "banging_noise"


@pytest.mark.parametrize("tool", list(build_registry()), ids=lambda tool: tool.name)
def test_every_example_is_a_call_the_tool_accepts(tool: object) -> None:
    parse_arguments(tool, example_arguments(tool.input_model.model_json_schema(by_alias=True)))  # type: ignore[attr-defined]


def test_brain_leads_to_the_agent_guide(client: TestClient) -> None:
    answer = client.get("/brain", follow_redirects=False)
    assert answer.status_code == 308 and answer.headers["location"] == "/ai"
