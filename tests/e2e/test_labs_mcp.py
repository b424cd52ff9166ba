"""The lab tools and resources on a real server: REST, public /mcp and /mcp-pro, with the official SDK client."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from garage_tools.knowledge.labs import LAB_SLUGS, PREVIEW_DIR
from tests.conftest import LiveServer

MODES = ["legacy", "2026-07-28"]  # the 2025-11-25 handshake, and the stateless 2026-07-28 revision
SPRINGS = "science-of-garage-door-springs"
QUESTION = "why do torsion springs break in cold weather?"


@asynccontextmanager
async def connect(url: str, mode: str, key: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=30))
    async with Client(transport, mode=mode) as client:
        yield client


@pytest.fixture(params=["public", "pro"])
def endpoint(request: pytest.FixtureRequest, live_server: LiveServer, pro_key: str) -> tuple[str, str | None]:
    if request.param == "public":
        return f"{live_server.url}/mcp", None
    return f"{live_server.url}/mcp-pro", pro_key


def test_rest_retrieval_needs_a_key(api: httpx.Client, pro_key: str) -> None:
    anonymous = api.post("/api/v1/retrieveLabContext", json={"query": QUESTION})
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "auth_required" and anonymous.json()["error"]["status"] == 401
    keyed = api.post(
        "/api/v1/retrieveLabContext", json={"query": QUESTION}, headers={"Authorization": f"Bearer {pro_key}"}
    )
    assert keyed.status_code == 200, keyed.text
    chunks = keyed.json()["chunks"]
    assert 1 <= len(chunks) <= 5 and chunks[0]["url"].startswith(f"{api.base_url}/labs/")
    assert "#" in chunks[0]["url"]


def test_rest_get_lab_is_small_and_has_no_base64(api: httpx.Client) -> None:
    response = api.post("/api/v1/getLab", json={"slug": SPRINGS})
    assert response.status_code == 200
    assert len(response.text) < 5_000 and "image" not in response.json()["preview"]
    unknown = api.post("/api/v1/getLab", json={"slug": "nope"})
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "invalid_arguments"


@pytest.mark.parametrize("mode", MODES)
async def test_public_mcp_retrieval_is_a_tool_error_with_the_401_envelope(mode: str, live_server: LiveServer) -> None:
    async with connect(f"{live_server.url}/mcp", mode) as client:
        result = await client.call_tool("retrieveLabContext", {"query": QUESTION})
    assert result.is_error
    error = json.loads(result.content[0].text)["error"]  # type: ignore[union-attr]
    assert error["code"] == "auth_required" and error["status"] == 401


@pytest.mark.parametrize("mode", MODES)
async def test_pro_mcp_retrieval_returns_cited_chunks(mode: str, live_server: LiveServer, pro_key: str) -> None:
    async with connect(f"{live_server.url}/mcp-pro", mode, pro_key) as client:
        result = await client.call_tool("retrieveLabContext", {"query": QUESTION, "topK": 10})
    assert not result.is_error and result.structured_content
    chunks = result.structured_content["chunks"]
    assert 5 <= len(chunks) <= 10
    assert chunks[0]["labSlug"] in LAB_SLUGS and chunks[0]["url"].endswith(f"#{chunks[0]['anchor']}")


@pytest.mark.parametrize("mode", MODES)
async def test_get_lab_over_mcp_carries_the_preview_as_an_image(mode: str, endpoint: tuple[str, str | None]) -> None:
    async with connect(endpoint[0], mode, endpoint[1]) as client:
        result = await client.call_tool("getLab", {"slug": SPRINGS})
    assert not result.is_error and result.structured_content
    assert result.structured_content["preview"]["url"].endswith(f"/labs/{SPRINGS}/preview.png")
    images = [block for block in result.content if block.type == "image"]
    committed = PREVIEW_DIR / f"{SPRINGS}.png"
    assert committed.exists(), "previews are committed: run `garage-tools labs render-previews`"
    assert [(i.mime_type, base64.b64decode(i.data)) for i in images] == [("image/png", committed.read_bytes())]  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
async def test_get_lab_embed_over_mcp(mode: str, endpoint: tuple[str, str | None]) -> None:
    async with connect(endpoint[0], mode, endpoint[1]) as client:
        result = await client.call_tool("getLabEmbed", {"slug": "animated"})
    assert not result.is_error and result.structured_content
    assert result.structured_content["iframeHtml"].startswith("<iframe ")
    assert [block.type for block in result.content] == ["text"]


@pytest.mark.parametrize("mode", MODES)
async def test_labs_are_resources_on_both_tiers(mode: str, endpoint: tuple[str, str | None]) -> None:
    async with connect(endpoint[0], mode, endpoint[1]) as client:
        if mode == "legacy":
            capabilities = client.server_capabilities
            assert capabilities.resources is not None  # advertised in the initialize result
        listed = [r for r in (await client.list_resources()).resources if str(r.uri).startswith("lab://")]
        assert [r.uri for r in listed] == [f"lab://{slug}" for slug in LAB_SLUGS]  # after the MCP Apps views
        assert all(r.mime_type == "text/markdown" and r.title and r.description for r in listed)
        (content,) = (await client.read_resource(f"lab://{SPRINGS}")).contents
    assert content.uri == f"lab://{SPRINGS}" and content.mime_type == "text/markdown"
    assert content.text.startswith(f"---\nslug: {SPRINGS}\n")  # type: ignore[union-attr]
    assert "{#stored-energy}" in content.text  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_resource_is_a_json_rpc_error(mode: str, endpoint: tuple[str, str | None]) -> None:
    async with connect(endpoint[0], mode, endpoint[1]) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("lab://no-such-lab")
    assert caught.value.code == -32602 and "lab://animated" in caught.value.message
