"""identifyOpener on a real server: a key required on every surface, photos of phone size, offline and with a model.

The second server is configured with an OpenAI-compatible vision provider: a small Chat Completions
stand-in on loopback that answers with a fixed sighting and keeps what it was sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.unit.opener_photos import encoded, motor_unit

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "opener-tests", "version": "1"},
}
SIGHTING = {"learnButtonColor": "yellow", "brandText": "LiftMaster", "modelText": "8550W", "confidence": 0.92}


class ChatCompletions(ThreadingHTTPServer):
    """`POST /v1/chat/completions` answering every request with SIGHTING; `received` holds the bodies."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.received: list[dict[str, Any]] = []
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: ChatCompletions

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.received.append(body)
        reply = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(SIGHTING)}}],
        }
        encoded_reply = json.dumps(reply).encode()
        self.send_response(200 if self.path == "/v1/chat/completions" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(encoded_reply)))
        self.end_headers()
        self.wfile.write(encoded_reply)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    server = start_server(tmp_path_factory.mktemp("opener-offline"))
    try:
        yield server, server.create_key()[1]
    finally:
        stop_server(server)


@pytest.fixture(scope="module")
def with_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str, ChatCompletions]]:
    provider = ChatCompletions()
    settings = {
        "GARAGE_TOOLS_LLM_PROVIDER": "openai",
        "GARAGE_TOOLS_LLM_BASE_URL": provider.base_url,
        "GARAGE_TOOLS_LLM_MODEL": "fake-vision",
    }
    server = start_server(tmp_path_factory.mktemp("opener-model"), settings)
    try:
        yield server, server.create_key()[1], provider
    finally:
        stop_server(server)
        provider.stop()


def rest(server: LiveServer, arguments: dict[str, Any], key: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.post(f"{server.url}/api/v1/identifyOpener", json=arguments, headers=headers, timeout=30)


def mcp(server: LiveServer, path: str, arguments: dict[str, Any], key: str | None = None) -> httpx.Response:
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "identifyOpener",
        **({"Authorization": f"Bearer {key}"} if key else {}),
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "identifyOpener", "arguments": arguments, "_meta": META},
    }
    return httpx.post(f"{server.url}{path}", json=body, headers=headers, timeout=30)


def test_a_yellow_learn_button_is_identified_with_a_key(offline: tuple[LiveServer, str]) -> None:
    server, key = offline
    response = rest(server, {"image": encoded(motor_unit("yellow"), "JPEG")}, key)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["generation"] == "Security+ 2.0" and "LiftMaster" in answer["familyBrands"]
    assert "893MAX" in [r["model"] for r in answer["compatibleRemotes"]]
    assert answer["method"] == "offline-colour" and answer["confidenceLevel"] == "high"


def test_without_a_key_rest_answers_401(offline: tuple[LiveServer, str]) -> None:
    response = rest(offline[0], {"image": encoded(motor_unit("yellow"))})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "auth_required" and response.json()["error"]["status"] == 401


def test_public_mcp_answers_a_tool_error_with_the_401_envelope(offline: tuple[LiveServer, str]) -> None:
    response = mcp(offline[0], "/mcp", {"image": encoded(motor_unit("yellow"))})
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    assert result["isError"] is True
    error = json.loads(result["content"][0]["text"])["error"]
    assert error["code"] == "auth_required" and error["status"] == 401


def test_mcp_pro_identifies_with_a_key(offline: tuple[LiveServer, str]) -> None:
    server, key = offline
    result = mcp(server, "/mcp-pro", {"image": encoded(motor_unit("purple"))}, key).json()["result"]
    assert result["isError"] is False, result
    assert result["structuredContent"]["learnButtonColor"] == "purple"


def test_a_phone_sized_photo_fits_and_a_bad_one_is_a_400(offline: tuple[LiveServer, str]) -> None:
    server, key = offline
    photo = encoded(motor_unit("green", size=(1600, 1200), noise=60), "PNG")
    assert len(photo["data"]) > 2_000_000  # far over the 16 KiB most tools accept
    response = rest(server, {"image": photo}, key)
    assert response.status_code == 200 and response.json()["learnButtonColor"] == "green", response.text
    prefixed = {"data": f"data:image/png;base64,{photo['data'][:100]}", "mimeType": "image/png"}
    refused = rest(server, {"image": prefixed}, key)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "image_data_url_prefix"
    assert rest(server, {}, key).json()["error"]["code"] == "image_missing"


def test_with_a_provider_configured_the_call_goes_through_the_model(
    with_model: tuple[LiveServer, str, ChatCompletions],
) -> None:
    server, key, provider = with_model
    response = rest(server, {"image": encoded(motor_unit("yellow"))}, key)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["method"] == "openai-compatible:fake-vision"
    assert answer["brand"] == "LiftMaster" and answer["model"] == "8550W" and answer["confidence"] == 0.92
    assert answer["generation"] == "Security+ 2.0" and "891LM" in [r["model"] for r in answer["compatibleRemotes"]]
    sent = provider.received[-1]
    assert sent["model"] == "fake-vision"
    parts = sent["messages"][-1]["content"]
    assert any(p["type"] == "image_url" and p["image_url"]["url"].startswith("data:image/png;base64,") for p in parts)
