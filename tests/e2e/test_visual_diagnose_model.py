"""visualDiagnose on a real server whose vision model is the fake provider on loopback.

The server is configured as an operator would (GARAGE_TOOLS_VISION_*, no language model) and sends
photos to tests/fakes/llm_provider.py through the real OpenAI-compatible client; the tests script the
fake's answers and read what it received. Each test speaks from its own client address, so the daily
photo cap (real here: 20 a day) of one test never leaks into another.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from garage_tools.providers.transport import DEFAULT_RETRY_AFTER
from tests.conftest import LiveServer, start_server, stop_server
from tests.fakes.llm_provider import FakeLLM, Reply
from tests.unit.image_samples import inline, photo

_addresses = (f"198.51.100.{n}" for n in itertools.count(1))
RETRIES = 1
MODEL_NAME = "vision-model:openai-compatible:fake-vision"
SPRING_PHOTO = inline(photo("JPEG", (640, 480)), "image/jpeg")
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}


@pytest.fixture(scope="module")
def fake_vision() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@pytest.fixture(scope="module")
def server(fake_vision: FakeLLM, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {
        "GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1",
        "GARAGE_TOOLS_VISION_PROVIDER": "openai",
        "GARAGE_TOOLS_VISION_BASE_URL": fake_vision.openai_base_url,
        "GARAGE_TOOLS_VISION_MODEL": "fake-vision",
        "GARAGE_TOOLS_VISION_API_KEY": "sk-e2e-vision-key-0123456789",
        "GARAGE_TOOLS_LLM_MAX_RETRIES": str(RETRIES),
        "GARAGE_TOOLS_LLM_TIMEOUT_SECONDS": "10",
    }
    live = start_server(tmp_path_factory.mktemp("vision-model"), env)
    yield live
    stop_server(live)


@pytest.fixture
def vision(fake_vision: FakeLLM) -> Iterator[FakeLLM]:
    fake_vision.reset()
    yield fake_vision
    fake_vision.reset()


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    """A client with an address (and so a photo cap) of its own."""
    with httpx.Client(base_url=server.url, timeout=30, headers={"X-Forwarded-For": next(_addresses)}) as http:
        yield http


def verdict(**changes: Any) -> Reply:
    """A model answer in the `VisionReply` shape: a broken torsion spring unless told otherwise."""
    reply = {
        "part": "springs",
        "condition": "broken torsion spring, a gap between the coils",
        "severity": "FIX",
        "safety_flag": False,  # the server must raise it anyway: a FIX on springs is unsafe to touch
        "reference_item_id": "springs",
        "confidence": "high",
        "explanation": "The spring above the door has a clear gap: it has snapped.",
    }
    return Reply(json.dumps({**reply, **changes}))


def diagnose(client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
    return client.post("/api/v1/visualDiagnose", json=body)


def test_the_model_looks_at_the_photo_and_its_verdict_is_returned(client: httpx.Client, vision: FakeLLM) -> None:
    vision.queue(verdict())
    response = diagnose(client, {"image": SPRING_PHOTO, "description": "it went bang last night"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["method"] == MODEL_NAME
    assert body["part"] == "springs" and body["severity"] == "FIX" and body["confidence"] == "high"
    assert body["condition"] == "broken torsion spring, a gap between the coils"
    assert body["safetyFlag"] is True and body["issueKey"] == "broken_spring"
    assert body["explanation"].startswith("The spring above the door has a clear gap")
    (sent,) = vision.requests
    assert sent.path == "/v1/chat/completions" and sent.body["model"] == "fake-vision"
    assert sent.headers["authorization"] == "Bearer sk-e2e-vision-key-0123456789"
    system, user = sent.body["messages"]
    assert "springs: " in system["content"] and "bottom-seal" in system["content"]
    text, image = user["content"]
    assert "<description>it went bang last night</description>" in text["text"]
    assert "640 x 480 px" in text["text"]
    # A small photo travels to the model exactly as it was sent to us.
    assert image == {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{SPRING_PHOTO['data']}"}}


def test_over_mcp_the_verdict_is_the_models_too(client: httpx.Client, vision: FakeLLM) -> None:
    vision.queue(verdict(part="cables", condition="frayed lift cable", severity="WATCH", reference_item_id="cables"))
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "visualDiagnose", "arguments": {"image": SPRING_PHOTO}, "_meta": META},
    }
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "visualDiagnose"}
    result = client.post("/mcp", json=body, headers={"Accept": "application/json", **headers}).json()["result"]
    assert result["isError"] is False
    answer = result["structuredContent"]
    assert answer["method"] == MODEL_NAME and answer["part"] == "cables" and answer["severity"] == "WATCH"
    assert len(vision.requests) == 1


def test_a_provider_failing_repeatedly_is_503_provider_unavailable(client: httpx.Client, vision: FakeLLM) -> None:
    vision.default = Reply(status=500)
    response = diagnose(client, {"image": SPRING_PHOTO})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "provider_unavailable"
    assert response.headers["retry-after"] == str(DEFAULT_RETRY_AFTER)  # the provider gave no figure of its own
    assert len(vision.requests) == 1 + RETRIES  # asked, and asked again, before giving up


def test_a_provider_outage_does_not_use_up_the_photo_cap(client: httpx.Client, vision: FakeLLM) -> None:
    vision.default = Reply(status=503, headers={"Retry-After": "0"})  # retried at once: the test stays quick
    for n in range(20):
        response = diagnose(client, {"image": SPRING_PHOTO})
        assert response.status_code == 503 and response.json()["error"]["code"] == "provider_unavailable", n
    vision.default = verdict()
    for n in range(20):
        assert diagnose(client, {"image": SPRING_PHOTO}).status_code == 200, n
    refused = diagnose(client, {"image": SPRING_PHOTO})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert int(refused.headers["retry-after"]) > 0
    assert len(vision.requests) == 20 * (1 + RETRIES) + 20  # the refused photo never reached the model
