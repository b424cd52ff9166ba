"""The ask endpoint with a language model configured: the fake provider on loopback plays the model.

The model chooses tool calls from the registry's schemas, the tools run here, and the model writes from
their results; the safety note is added from the diagnostic tree whatever the model wrote, and a model
that fails leaves the template answer standing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from openai import OpenAI

from tests.conftest import LiveServer, start_server, stop_server
from tests.fakes.llm_provider import FakeLLM, Reply

SPRING = "can I replace my own torsion spring?"


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
        "GARAGE_TOOLS_LLM_MAX_RETRIES": "0",
        "GARAGE_TOOLS_LLM_TIMEOUT_SECONDS": "5",
    }
    live = start_server(tmp_path_factory.mktemp("chat-llm"), env)
    yield live
    stop_server(live)


@pytest.fixture
def llm(fake_llm: FakeLLM) -> Iterator[FakeLLM]:
    fake_llm.reset()
    yield fake_llm
    fake_llm.reset()


@pytest.fixture
def client(server: LiveServer) -> OpenAI:
    return OpenAI(base_url=f"{server.url}/v1", api_key="anonymous", max_retries=0, timeout=20)


def test_the_model_calls_the_tools_and_writes_with_citations(client: OpenAI, llm: FakeLLM) -> None:
    plan = {"calls": [{"tool": "costEstimate", "arguments": {"issueKey": "broken_spring", "zip": "84770"}}]}
    llm.queue(Reply(json.dumps(plan)), Reply(json.dumps({"answer": "A spring repair is a job for a pro. [1]"})))
    completion = client.chat.completions.create(model="garage-tools", messages=[{"role": "user", "content": SPRING}])
    text = completion.choices[0].message.content or ""
    answer = completion.model_extra["garage_tools"]  # type: ignore[index]
    assert answer["composedBy"] == "model:openai-compatible:fake-model"
    assert text.startswith("A spring repair is a job for a pro. [1]")
    assert answer["safetyNote"] and answer["safetyNote"] in text  # from the tree, not the model
    assert [source["tool"] for source in answer["sources"]] == ["costEstimate"]
    planning, writing = llm.requests
    assert "costEstimate" in planning.body["messages"][0]["content"] + planning.body["messages"][1]["content"]
    results = writing.body["messages"][1]["content"]
    assert '"issueKey":"broken_spring"' in results and '"costRange"' in results  # the tool really ran


def test_a_call_the_tool_refuses_is_left_out(client: OpenAI, llm: FakeLLM) -> None:
    plan = {"calls": [{"tool": "submitInspection", "arguments": {}}, {"tool": "costEstimate", "arguments": {}}]}
    llm.queue(Reply(json.dumps(plan)))
    completion = client.chat.completions.create(model="garage-tools", messages=[{"role": "user", "content": SPRING}])
    answer = completion.model_extra["garage_tools"]  # type: ignore[index]
    assert answer["composedBy"] == "templates"  # nothing usable came back: the templates answered
    assert len(llm.requests) == 1


def test_a_failing_provider_falls_back_to_the_templates(client: OpenAI, llm: FakeLLM) -> None:
    llm.queue(Reply(status=500))
    completion = client.chat.completions.create(model="garage-tools", messages=[{"role": "user", "content": SPRING}])
    answer = completion.model_extra["garage_tools"]  # type: ignore[index]
    assert answer["composedBy"] == "templates" and answer["modelError"] == "provider_unavailable"
    assert (completion.choices[0].message.content or "").startswith("No.")
