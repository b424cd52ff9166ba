"""The ask endpoint through the clients people use: the official OpenAI SDK and LangChain's ChatOpenAI.

Every answer here comes from the template answerer (no model is configured): the facts each must state
and cite are the issue's done-when.
"""

from __future__ import annotations

import httpx
import pytest
from langchain_openai import ChatOpenAI
from openai import AuthenticationError, NotFoundError, OpenAI, RateLimitError

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_browser_challenge import FOREIGN, challenge_env
from tests.fakes.siteverify import PASS_SECRET, FakeSiteverify

SPRING_QUESTION = "can I replace my own torsion spring?"
BANG_QUESTION = "there was a loud bang and the door won't open, I'm in 84770"


@pytest.fixture(scope="module")
def client(live_server: LiveServer) -> OpenAI:
    return OpenAI(base_url=f"{live_server.url}/v1", api_key="anonymous", max_retries=0)


def streamed(client: OpenAI, question: str) -> tuple[str, list[dict[str, object]]]:
    """The text a streamed answer adds up to, and the chunks' extra fields."""
    text, extras = "", []
    stream = client.chat.completions.create(
        model="garage-tools", messages=[{"role": "user", "content": question}], stream=True
    )
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            text += chunk.choices[0].delta.content
        if chunk.model_extra and chunk.model_extra.get("sources") is not None:
            extras.append(chunk.model_extra)
    return text, extras


def test_models_lists_garage_tools(client: OpenAI) -> None:
    assert [model.id for model in client.models.list()] == ["garage-tools"]
    assert client.models.retrieve("garage-tools").id == "garage-tools"
    with pytest.raises(NotFoundError):
        client.models.retrieve("gpt-4o")


def test_diy_spring_question_is_a_plain_no_with_the_reason_safety_and_lab(client: OpenAI) -> None:
    completion = client.chat.completions.create(
        model="garage-tools", messages=[{"role": "user", "content": SPRING_QUESTION}]
    )
    text = completion.choices[0].message.content or ""
    assert text.startswith("No.")
    assert "tension" in text  # the reason, from the diagnostic tree's safety note
    answer = completion.model_extra["garage_tools"]  # type: ignore[index]
    assert answer["kind"] == "diy" and answer["safetyNote"] and answer["safetyNote"] in text
    lab_links = [s["url"] for s in completion.model_extra["sources"] if s["tool"] == "retrieveLabContext"]  # type: ignore[index]
    assert lab_links and "/labs/science-of-garage-door-springs#" in lab_links[0]
    assert lab_links[0] in text  # the sources are in the message too
    assert completion.usage is not None and completion.usage.completion_tokens > 10


def test_a_symptom_with_a_zip_gets_the_spring_urgency_local_price_and_pro(client: OpenAI) -> None:
    completion = client.chat.completions.create(
        model="garage-tools", messages=[{"role": "user", "content": BANG_QUESTION}]
    )
    text = completion.choices[0].message.content or ""
    answer = completion.model_extra["garage_tools"]  # type: ignore[index]
    assert answer["kind"] == "symptom" and answer["urgency"] == "emergency"
    assert "spring" in text.lower() and "call a professional now" in text
    assert answer["pro"]["name"] == "Dixie Door & Spring" and answer["pro"]["phone"] in text
    low, high = answer["costRange"]["min"], answer["costRange"]["max"]
    assert f"${low:,}" in text and f"${high:,}" in text
    assert answer["safetyNote"] in text
    tools = {source["tool"] for source in answer["sources"]}
    assert {"diagnose", "costEstimate", "routeByZip"} <= tools


def test_streaming_gives_the_same_answer(client: OpenAI) -> None:
    whole = client.chat.completions.create(
        model="garage-tools", messages=[{"role": "user", "content": SPRING_QUESTION}]
    )
    text, extras = streamed(client, SPRING_QUESTION)
    assert text == whole.choices[0].message.content
    assert extras and extras[-1]["sources"] == whole.model_extra["sources"]  # type: ignore[index]


def test_stream_ends_with_done_and_usage_when_asked(live_server: LiveServer) -> None:
    body = {
        "model": "garage-tools",
        "messages": [{"role": "user", "content": "is a belt drive quieter than a chain?"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json=body, timeout=10)
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [line for line in response.text.split("\n\n") if line]
    assert events[-1] == "data: [DONE]"
    assert '"usage"' in events[-2] and '"choices":[]' in events[-2]


def test_earlier_messages_give_the_place(client: OpenAI) -> None:
    completion = client.chat.completions.create(
        model="garage-tools",
        messages=[
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "I'm in 84770"},
            {"role": "assistant", "content": "What is your door doing?"},
            {"role": "user", "content": "loud bang and the door won't open"},
        ],
    )
    assert completion.model_extra["garage_tools"]["pro"]["name"] == "Dixie Door & Spring"  # type: ignore[index]


def test_langchain_chat_openai(live_server: LiveServer) -> None:
    chat = ChatOpenAI(base_url=f"{live_server.url}/v1", api_key="anonymous", model="garage-tools", max_retries=0)
    reply = chat.invoke("what R-value do I need in Minnesota?")
    assert "R-13" in str(reply.content) and "/labs/energy-efficiency-lab#" in str(reply.content)
    pieces = [str(chunk.content) for chunk in chat.stream("what R-value do I need in Minnesota?")]
    assert "".join(pieces) == reply.content and len([p for p in pieces if p]) > 1


def test_errors_are_both_envelopes(live_server: LiveServer, client: OpenAI) -> None:
    response = httpx.post(f"{live_server.url}/v1/chat/completions", json={"model": "garage-tools", "messages": []})
    error = response.json()["error"]
    assert response.status_code == 400
    assert error["code"] == "invalid_arguments" and error["status"] == 400  # the service's envelope
    assert error["type"] == "invalid_request_error" and error["param"] == "messages"  # OpenAI's fields
    with pytest.raises(NotFoundError):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    bad_key = OpenAI(base_url=f"{live_server.url}/v1", api_key="svc_live_notarealkey", max_retries=0)
    with pytest.raises(AuthenticationError) as refused:
        bad_key.chat.completions.create(model="garage-tools", messages=[{"role": "user", "content": "hi"}])
    assert refused.value.body["code"] == "invalid_key"  # type: ignore[index]


def test_a_key_gives_the_pro_tier(live_server: LiveServer) -> None:
    _, key = live_server.create_key(email="chat@example.com", name="chat")
    ask = {"model": "garage-tools", "messages": [{"role": "user", "content": "why do springs break in the cold?"}]}
    keyed = httpx.post(f"{live_server.url}/v1/chat/completions", json=ask, headers={"Authorization": f"Bearer {key}"})
    anonymous = httpx.post(
        f"{live_server.url}/v1/chat/completions", json=ask, headers={"Authorization": "Bearer anonymous"}
    )
    assert keyed.status_code == anonymous.status_code == 200
    assert keyed.headers["ratelimit-policy"].startswith('"pro-minute"')  # counted as the pro tier
    assert anonymous.headers["ratelimit-policy"].startswith('"public-minute"')


def test_calls_count_against_the_tier_limit(tmp_path_factory: pytest.TempPathFactory) -> None:
    server = start_server(tmp_path_factory.mktemp("chat-limits"), {"GARAGE_TOOLS_RATE_LIMIT_PUBLIC": "2/minute"})
    try:
        client = OpenAI(base_url=f"{server.url}/v1", api_key="anonymous", max_retries=0)
        ask = {"model": "garage-tools", "messages": [{"role": "user", "content": "how do springs work?"}]}
        client.chat.completions.create(**ask)  # type: ignore[call-overload]
        httpx.post(f"{server.url}/api/v1/diagnose", json={"description": "loud bang"})  # the same bucket as tools
        with pytest.raises(RateLimitError) as limited:
            client.chat.completions.create(**ask)  # type: ignore[call-overload]
        assert limited.value.response.headers["retry-after"]
        assert limited.value.body["code"] == "rate_limited"  # type: ignore[index]
    finally:
        stop_server(server)


def test_a_browser_page_must_pass_the_challenge(
    tmp_path_factory: pytest.TempPathFactory, siteverify_server: FakeSiteverify
) -> None:
    server = start_server(tmp_path_factory.mktemp("chat-challenge"), challenge_env(siteverify_server, PASS_SECRET))
    try:
        ask = {"model": "garage-tools", "messages": [{"role": "user", "content": "how do springs work?"}]}
        url = f"{server.url}/v1/chat/completions"
        refused = httpx.post(url, json=ask, headers={"Origin": FOREIGN})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "challenge_required"
        assert refused.json()["error"]["type"] == "permission_error"
        passed = httpx.post(url, json={**ask, "challengeToken": "fresh-token-1"}, headers={"Origin": FOREIGN})
        assert passed.status_code == 200, passed.text
        assert httpx.post(url, json=ask).status_code == 200  # no Origin: a server, exempt
    finally:
        stop_server(server)
