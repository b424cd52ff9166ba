"""The pages for developers and agents, the changelog feed, and the OpenAPI document as GPT Actions import it.

Everything runs against a real server; the API reference is driven in Debian's Chromium.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Iterator
from datetime import datetime
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest

from garage_tools.tools import build_registry
from tests.conftest import LiveServer, start_server, stop_server
from tests.fakes.siteverify import FAIL_SECRET, FakeSiteverify

PAGES = ["/developers/api", "/developers/changelog", "/ai", "/privacy"]
FEED_TYPE = "application/feed+json"
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
#: ChatGPT GPT Actions' documented limits (reference/compat.md).
OPERATION_TEXT_LIMIT = 300
PARAMETER_TEXT_LIMIT = 700
BODY_LIMIT = 100_000
RFC_3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


class Links(HTMLParser):
    """The attributes of every <link> and <script> of a page, and the ids of its elements."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[dict[str, str | None]] = []
        self.scripts: list[dict[str, str | None]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "link":
            self.links.append(attributes)
        elif tag == "script":
            self.scripts.append(attributes)
        if attributes.get("id"):
            self.ids.add(str(attributes["id"]))


def parse(html: str) -> Links:
    parser = Links()
    parser.feed(html)
    return parser


def assert_in_base_layout(response: httpx.Response) -> None:
    assert response.status_code == 200, response.text[:300]
    assert response.headers["content-type"].startswith("text/html")
    body = response.text
    assert body.startswith("<!doctype html>")
    assert '<header class="site">' in body and '<footer class="site' in body
    assert 'href="/static/site.css"' in body
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


@pytest.mark.parametrize("path", PAGES)
def test_each_page_is_html_in_the_base_layout(api: httpx.Client, path: str) -> None:
    response = api.get(path, headers={"Accept": BROWSER_ACCEPT})
    assert_in_base_layout(response)
    scripts = parse(response.text).scripts
    assert all(script.get("src") for script in scripts), "inline scripts are refused by the CSP"


def test_only_the_api_reference_allows_inline_styles(api: httpx.Client) -> None:
    assert "style-src 'self' 'unsafe-inline'" in api.get("/developers/api").headers["content-security-policy"]
    for path in ("/ai", "/developers/changelog", "/privacy"):
        policy = api.get(path).headers["content-security-policy"]
        assert "unsafe-inline" not in policy and "script-src 'self'" in policy


def test_swagger_ui_assets_are_served_locally_and_only_those_needed(api: httpx.Client) -> None:
    page = parse(api.get("/developers/api").text)
    sources = [s["src"] for s in page.scripts] + [x["href"] for x in page.links if x.get("rel") == "stylesheet"]
    for source in sources:
        assert source and source.startswith("/"), f"{source} is not served by this server"
        assert api.get(source).status_code == 200, source
    assert "/developers/api/assets/swagger-ui-bundle.js" in sources
    for other in ("swagger-editor-bundle.js", "swagger-initializer.js", "LICENSE", "../core.py", "..%2Fcore.py"):
        assert api.get(f"/developers/api/assets/{other}").status_code == 404, other


def test_docs_redirects_to_the_api_reference(api: httpx.Client) -> None:
    response = api.get("/docs")
    assert response.status_code in (307, 308)
    assert response.headers["location"].endswith("/developers/api")


def test_unknown_page_is_html_for_browsers_and_the_envelope_for_api_clients(api: httpx.Client) -> None:
    page = api.get("/developers/no-such-page", headers={"Accept": BROWSER_ACCEPT})
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert '<header class="site">' in page.text and "/developers/no-such-page" in page.text
    for accept in ("application/json", "*/*", None):
        headers = {"Accept": accept} if accept else {}
        response = api.get("/developers/no-such-page", headers=headers)
        assert response.status_code == 404 and response.headers["content-type"] == "application/json"
        assert response.json()["error"]["code"] == "not_found"


def test_healthz_and_llms_txt_link_the_guides(api: httpx.Client, live_server: LiveServer) -> None:
    assert api.get("/healthz").json()["status"] == "ok"
    llms = api.get("/llms.txt").text
    for path in ("/ai", "/developers", "/developers/changelog.json"):
        assert f"{live_server.url}{path})" in llms, path


def test_agent_guide_lists_every_tool_and_the_safety_rule(api: httpx.Client) -> None:
    html = api.get("/ai").text
    ids = parse(html).ids
    for tool in api.get("/api/v1").json()["tools"]:
        assert tool["name"] in ids and tool["summary"] in html.replace("&#39;", "'")
    assert "safetyFlag" in html and "unsafe" in html
    assert "Retry-After" in html and "/mcp-pro" in html
    assert "1,000,000 per minute" in html  # the limits this server was started with (RAISED_LIMITS)
    assert "challenge_required" in html and "service_unavailable" in html


def test_privacy_page_says_what_is_stored(api: httpx.Client) -> None:
    text = " ".join(api.get("/privacy").text.split())
    for fact in ("e-mail address", "sign-in link: a one-way hash", "session cookie", "hash of the key", "rate limits"):
        assert fact in text, fact
    # Inspections and leads: what is kept, for how long, who receives it, and how to have it deleted.
    for fact in (
        "your e-mail address, your name if you gave it, and your ZIP code",
        "your e-mail address and the link to your report, so that partner can contact you",
        "If you did not, the partner receives nothing: we only count a search",
        "nobody is e-mailed about it",
        "Requests are kept for 365 days, then deleted.",
        "Inspections are kept for 730 days, then deleted, and leads for 365 days.",
        "deleted 30 days later",
        "Deleting your data",
        "A connected app is deleted once you disconnect it, or once it has gone unused for 90 days.",
        "a record of what was done in the console",
        "That record is deleted after 730 days.",
    ):
        assert fact in text, fact
    assert "are not stored or shared" not in text  # what the page said before leads and inspections existed


# --- the changelog and its JSON Feed ---------------------------------------------------------


def test_changelog_page_links_its_feed(api: httpx.Client) -> None:
    page = api.get("/developers/changelog")
    assert_in_base_layout(page)
    alternates = [
        link for link in parse(page.text).links if link.get("rel") == "alternate" and link.get("type") == FEED_TYPE
    ]
    assert len(alternates) == 1
    feed = api.get(str(alternates[0]["href"]))
    assert feed.status_code == 200 and feed.headers["content-type"].startswith(FEED_TYPE)
    ids = parse(page.text).ids
    for item in feed.json()["items"]:
        assert item["id"] in ids and item["url"].endswith(f"/developers/changelog#{item['id']}")


@pytest.fixture(scope="module")
def feed(live_server: LiveServer) -> dict[str, Any]:
    response = httpx.get(f"{live_server.url}/developers/changelog.json")
    assert response.headers["content-type"] == FEED_TYPE
    parsed: dict[str, Any] = json.loads(response.text)
    return parsed


def test_feed_is_json_feed_1_1(feed: dict[str, Any], live_server: LiveServer) -> None:
    assert feed["version"] == "https://jsonfeed.org/version/1.1"
    assert isinstance(feed["title"], str) and feed["title"]
    assert feed["home_page_url"] == f"{live_server.url}/developers/changelog"
    assert feed["feed_url"] == f"{live_server.url}/developers/changelog.json"
    assert "author" not in feed  # deprecated in 1.1 (authors replaces it)
    items = feed["items"]
    assert isinstance(items, list) and items
    ids = [item["id"] for item in items]
    assert all(isinstance(item_id, str) and item_id for item_id in ids) and len(set(ids)) == len(ids)
    for item in items:
        assert isinstance(item.get("content_html"), str) or isinstance(item.get("content_text"), str)
        assert RFC_3339.match(item["date_published"]), item["date_published"]
        datetime.fromisoformat(item["date_published"])
        assert isinstance(item["tags"], list) and item["tags"]
        assert "<script" not in item["content_html"]
    published = [datetime.fromisoformat(item["date_published"]) for item in items]
    assert published == sorted(published, reverse=True)


def test_feed_announces_the_tools_auth_and_limits(feed: dict[str, Any]) -> None:
    tags = {tag for item in feed["items"] for tag in item["tags"]}
    assert {"new-tool", "auth", "rate-limits"} <= tags
    text = " ".join(item["content_html"] + item["summary"] for item in feed["items"])
    for name in ("diagnose", "costEstimate", "getDoorStyles"):
        assert name in text
    for fact in ("60 a minute", "240 a minute", "RateLimit", "challenge_required", "405", "5 seconds", "503"):
        assert fact in text, fact


# --- OpenAPI as ChatGPT GPT Actions imports it -----------------------------------------------


@pytest.fixture(scope="module")
def openapi_text(live_server: LiveServer) -> str:
    return httpx.get(f"{live_server.url}/openapi.json").text


def operations(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (or a response, or anything else under components) with its `$ref`s followed."""
    while "$ref" in schema:
        _, _, section, name = schema["$ref"].split("/")
        schema = document["components"][section][name]
    return schema


def property_descriptions(document: dict[str, Any], schema: dict[str, Any], seen: set[int]) -> Iterator[str]:
    """Every `description` in a request schema, following $refs, nested objects, arrays and unions."""
    schema = resolve(document, schema)
    if id(schema) in seen:
        return
    seen.add(id(schema))
    if isinstance(schema.get("description"), str):
        yield schema["description"]
    for child in schema.get("properties", {}).values():
        yield from property_descriptions(document, child, seen)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for child in schema.get(key, []):
            yield from property_descriptions(document, child, seen)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from property_descriptions(document, schema[key], seen)


#: GPT Actions' 100,000 characters bound an action's request and response bodies (reference/compat.md), not the
#: schema it imports; this budget keeps the document from growing without a look (15 tools: about 103,000).
DOCUMENT_BUDGET = 120_000


def test_document_is_within_its_budget(openapi_text: str) -> None:
    assert len(openapi_text) < DOCUMENT_BUDGET


def test_operation_texts_fit_gpt_actions(openapi_text: str) -> None:
    document = json.loads(openapi_text)
    for name, operation in operations(document):
        assert operation["operationId"]
        for field in ("summary", "description"):
            assert 0 < len(operation[field]) <= OPERATION_TEXT_LIMIT, (name, field, len(operation[field]))
        for parameter in operation.get("parameters", []):
            assert len(parameter.get("description", "")) <= PARAMETER_TEXT_LIMIT, (name, parameter["name"])
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        descriptions = list(property_descriptions(document, body, set()))
        assert descriptions, name
        for text in descriptions:
            assert len(text) <= PARAMETER_TEXT_LIMIT, (name, text[:80])


def test_read_only_tools_are_not_consequential(openapi_text: str) -> None:
    document = json.loads(openapi_text)
    for tool in build_registry():
        operation = document["paths"][f"/api/v1/{tool.name}"]["post"]
        if tool.annotations.read_only:
            assert operation["x-openai-isConsequential"] is False, tool.name
        else:
            assert operation.get("x-openai-isConsequential", True) is True, tool.name


def test_new_statuses_and_rate_limit_headers_are_documented(openapi_text: str) -> None:
    document = json.loads(openapi_text)
    headers = document["components"]["headers"]
    assert {"RateLimit", "RateLimit-Policy", "Retry-After"} <= set(headers)
    for name, operation in operations(document):
        responses = {status: resolve(document, response) for status, response in operation["responses"].items()}
        for status in ("400", "401", "403", "408", "413", "415", "429", "500", "503"):
            assert status in responses, (name, status)
        assert "challenge_required" in responses["403"]["description"]
        assert "challenge_failed" in responses["403"]["description"]
        assert "request_timeout" in responses["408"]["description"]
        assert "service_unavailable" in responses["503"]["description"]
        assert set(responses["200"]["headers"]) == {"RateLimit", "RateLimit-Policy"}
        assert set(responses["429"]["headers"]) == {"RateLimit", "RateLimit-Policy", "Retry-After"}
        assert set(responses["503"]["headers"]) == {"Retry-After"}


def minimal_body(document: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    """`{}` plus each required field's first example (or enum value): the smallest call a client makes. A schema
    that requires one of several fields (`anyOf` of `required` lists) gets the first of them."""
    schema = resolve(document, operation["requestBody"]["content"]["application/json"]["schema"])
    body = {}
    one_of = [alternative["required"] for alternative in schema.get("anyOf", []) if "required" in alternative]
    for name in [*schema.get("required", []), *(one_of[0] if one_of else [])]:
        field = resolve(document, schema["properties"][name])
        values = field.get("examples") or field.get("enum")
        assert values, f"{operation['operationId']}.{name} needs an example for this test"
        body[name] = values[0]
    return body


def tiny_png() -> dict[str, str]:
    """The smallest real photo a caller could send: an 8x8 grey PNG, as the `image` argument."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (128, 128, 128)).save(buffer, format="PNG")
    return {"data": base64.b64encode(buffer.getvalue()).decode(), "mimeType": "image/png"}


def test_every_tool_answers_a_minimal_call_under_the_size_limit(
    openapi_text: str, api: httpx.Client, pro_key: str
) -> None:
    document = json.loads(openapi_text)
    for name, operation in operations(document):
        path = name.split(" ", 1)[1]
        body = minimal_body(document, operation)
        if (
            "image"
            in resolve(document, operation["requestBody"]["content"]["application/json"]["schema"])["properties"]
        ):
            body["image"] = tiny_png()  # the photo tools need one photo (or an imageUrl) to answer at all
        # With a key, so the bearer-only tools answer too (every tool accepts one).
        response = api.post(path, json=body, headers={"Authorization": f"Bearer {pro_key}"})
        assert response.status_code == 200, (name, response.text[:300])
        assert len(response.text) < BODY_LIMIT, (name, len(response.text))
        assert response.headers["ratelimit"] and response.headers["ratelimit-policy"]


# --- the API reference in a real browser ----------------------------------------------------


@pytest.fixture(scope="module")
def challenged_server(
    tmp_path_factory: pytest.TempPathFactory, siteverify_server: FakeSiteverify
) -> Iterator[LiveServer]:
    """The browser challenge on, with a verifier that rejects every token: pages of our own need none."""
    env = {"GARAGE_TOOLS_CHALLENGE_SECRET": FAIL_SECRET, "GARAGE_TOOLS_CHALLENGE_VERIFY_URL": siteverify_server.url}
    server = start_server(tmp_path_factory.mktemp("docs-challenged"), env)
    yield server
    stop_server(server)


@pytest.mark.parametrize("server_name", ["live_server", "challenged_server"])
def test_try_it_out_in_the_api_reference(browser: Any, request: pytest.FixtureRequest, server_name: str) -> None:
    server: LiveServer = request.getfixturevalue(server_name)
    context = browser.new_context()
    page = context.new_page()
    requested: list[str] = []
    problems: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(f"{server.url}/developers/api")
        operation = page.locator("#operations-tools-diagnose")
        operation.locator(".opblock-summary").click()
        operation.get_by_role("button", name="Try it out").click()
        operation.locator("textarea.body-param__text").fill('{"description":"loud bang"}')
        operation.get_by_role("button", name="Execute").click()
        result = operation.locator(".live-responses-table .response")
        result.locator(".response-col_status").wait_for()
        assert result.locator(".response-col_status").inner_text().strip() == "200"
        assert "banging_noise" in result.locator(".response-col_description").inner_text()
    finally:
        context.close()
    assert not problems, problems
    assert f"{server.url}/api/v1/diagnose" in requested
    assert f"{server.url}/openapi.json" in requested
    outside = [url for url in requested if not url.startswith(f"{server.url}/")]
    assert not outside, outside
