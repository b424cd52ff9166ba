"""diagnose's `useLlmFallback` on a real server whose language model is the fake provider on loopback.

The server is configured as an operator would (GARAGE_TOOLS_LLM_* environment variables) and talks
to tests/fakes/llm_provider.py over HTTP; the test scripts the fake's answers between requests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.fakes.llm_provider import FakeLLM, Reply

UNMATCHED = "something is wrong with my garage door"  # no phrase of the tree, no example near it


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@pytest.fixture(scope="module")
def server(fake_llm: FakeLLM, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {
        "GARAGE_TOOLS_LLM_PROVIDER": "openai",
        "GARAGE_TOOLS_LLM_BASE_URL": fake_llm.openai_base_url,
        "GARAGE_TOOLS_LLM_MODEL": "fake-model",
        "GARAGE_TOOLS_LLM_API_KEY": "sk-e2e-secret-key-0123456789",
        "GARAGE_TOOLS_LLM_MAX_RETRIES": "0",
        "GARAGE_TOOLS_LLM_TIMEOUT_SECONDS": "5",
    }
    live = start_server(tmp_path_factory.mktemp("llm"), env)
    yield live
    stop_server(live)


@pytest.fixture
def llm(fake_llm: FakeLLM) -> Iterator[FakeLLM]:
    fake_llm.reset()
    yield fake_llm
    fake_llm.reset()


@pytest.fixture
def api(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=20) as client:
        yield client


def choice(key: str | None, confidence: float = 0.9) -> Reply:
    return Reply(json.dumps({"symptomKey": key, "confidence": confidence}))


def test_the_model_maps_free_text_to_a_symptom(api: httpx.Client, llm: FakeLLM) -> None:
    llm.queue(choice("moves_unevenly", 0.77))
    response = api.post("/api/v1/diagnose", json={"description": UNMATCHED, "useLlmFallback": True})
    assert response.status_code == 200
    body = response.json()
    assert body["symptom"]["key"] == "moves_unevenly" and body["symptom"]["matchedBy"] == "model"
    assert body["symptom"]["model"] == "openai-compatible:fake-model" and body["symptom"]["confidence"] == 0.77
    assert body["likelyIssues"][0]["key"] == "broken_cable" and body["safetyFlag"] is True
    (sent,) = llm.requests
    assert sent.headers["authorization"] == "Bearer sk-e2e-secret-key-0123456789"
    assert UNMATCHED in sent.body["messages"][1]["content"]


def test_a_gunshot_goes_through_the_model(api: httpx.Client, llm: FakeLLM) -> None:
    # A gunshot in words the matcher does not know: without the model there is no diagnosis (checked first).
    gunshot = "there was a deafening report like a firearm"
    assert "symptom" not in api.post("/api/v1/diagnose", json={"description": gunshot}).json()
    llm.queue(choice("banging_noise", 0.74))
    body = api.post("/api/v1/diagnose", json={"description": gunshot, "useLlmFallback": True}).json()
    assert body["symptom"]["key"] == "banging_noise" and body["symptom"]["matchedBy"] == "model"
    assert body["symptom"]["model"] == "openai-compatible:fake-model" and body["symptom"]["confidence"] == 0.74
    assert body["likelyIssues"][0]["key"] == "broken_spring" and body["safetyFlag"] is True
    assert len(llm.requests) == 1 and gunshot in llm.requests[0].body["messages"][1]["content"]


def test_without_the_flag_the_model_is_not_asked(api: httpx.Client, llm: FakeLLM) -> None:
    body = api.post("/api/v1/diagnose", json={"description": UNMATCHED}).json()
    assert "symptom" not in body and body["hint"]
    assert llm.requests == []


def test_provider_down_is_503_provider_unavailable_with_retry_after(
    api: httpx.Client, llm: FakeLLM, server: LiveServer
) -> None:
    llm.default = Reply(status=503, headers={"Retry-After": "4"})
    response = api.post("/api/v1/diagnose", json={"description": UNMATCHED, "useLlmFallback": True})
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "4"
    assert response.json()["error"]["code"] == "provider_unavailable"
    assert "sk-e2e-secret-key" not in (server.workdir / "server.log").read_text()


def test_provider_down_falls_back_offline_when_it_can(api: httpx.Client, llm: FakeLLM) -> None:
    llm.default = Reply(status=500)
    response = api.post(
        "/api/v1/diagnose", json={"description": "the door rises a little and quits", "useLlmFallback": True}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["symptom"]["key"] == "opens_partially" and body["symptom"]["matchedBy"] == "offline-fallback"
    assert body["modelError"] == "provider_unavailable"


def test_the_openapi_document_lists_the_provider_errors(api: httpx.Client) -> None:
    document = api.get("/openapi.json").json()
    responses = document["paths"]["/api/v1/diagnose"]["post"]["responses"]
    shared = document["components"]["responses"]
    assert "provider_unavailable" in shared[responses["503"]["$ref"].rsplit("/", 1)[1]]["description"]
    assert "provider_bad_reply" in shared[responses["502"]["$ref"].rsplit("/", 1)[1]]["description"]


def test_the_model_works_in_spanish_and_the_answer_is_in_spanish(api: httpx.Client, llm: FakeLLM) -> None:
    spanish = "algo anda mal con mi portón, no sé qué tiene"  # Spanish, and no phrase or example near it
    assert api.post("/api/v1/diagnose", json={"description": spanish}).json()["lang"] == "es"
    llm.queue(choice("moves_unevenly", 0.8))
    body = api.post("/api/v1/diagnose", json={"description": spanish, "useLlmFallback": True}).json()
    assert body["lang"] == "es" and body["symptom"]["key"] == "moves_unevenly"
    assert body["symptom"]["matchedBy"] == "model" and body["symptom"]["label"].startswith("La puerta se mueve")
    assert body["likelyIssues"][0]["key"] == "broken_cable" and body["likelyIssues"][0]["name"].startswith("Cable")
    assert body["safetyFlag"] is True
    assert spanish in llm.requests[0].body["messages"][1]["content"]
