"""The model provider clients against a fake OpenAI/Anthropic server on loopback (tests/fakes/llm_provider.py).

Everything here runs the real clients over real HTTP: the request shapes each API expects, replies
parsed into our own schema, one repair attempt, retries with backoff and Retry-After, timeouts, and
the errors a caller sees (503 `provider_unavailable` with Retry-After, 502 `provider_bad_reply`).
Then diagnose's `useLlmFallback` through `invoke`, with services built from settings that point at
the fake, and without any provider (the offline matcher).
"""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from prometheus_client import REGISTRY as METRICS
from pydantic import BaseModel, SecretStr, ValidationError

from garage_tools.access.caller import Caller
from garage_tools.errors import ProviderBadReply, ProviderUnavailable
from garage_tools.providers.anthropic import Anthropic
from garage_tools.providers.base import Models
from garage_tools.providers.chat import ChatModel
from garage_tools.providers.factory import build_models
from garage_tools.providers.openai_compatible import OpenAICompatible
from garage_tools.registry import dump, invoke
from garage_tools.services import Services, build_services
from garage_tools.settings import Settings
from garage_tools.tools import build_registry
from tests.conftest import free_port
from tests.fakes.llm_provider import FakeLLM, Reply

API_KEY = "sk-test-0123456789abcdefghijklmnopqrstuvwxyz"
GOOD = '{"part": "torsion spring", "severity": "FIX"}'
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4  # the bytes travel as they are; nothing decodes them here
REGISTRY = build_registry()


class Verdict(BaseModel):
    """A reply schema of the kind the photo tools will pass."""

    part: str
    severity: Literal["HEALTHY", "WATCH", "FIX"]


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


@pytest.fixture
def fake(fake_server: FakeLLM) -> Iterator[FakeLLM]:
    fake_server.reset()
    yield fake_server
    fake_server.reset()


def client(
    kind: str, fake: FakeLLM, *, timeout: float = 5.0, retries: int = 2, base_url: str | None = None
) -> ChatModel:
    cls = OpenAICompatible if kind == "openai" else Anthropic
    default = fake.openai_base_url if kind == "openai" else fake.anthropic_base_url
    return cls(
        model="fake-model",
        base_url=base_url or default,
        api_key=SecretStr(API_KEY),
        timeout_seconds=timeout,
        max_retries=retries,
    )


@pytest.fixture(params=["openai", "anthropic"])
async def model(request: pytest.FixtureRequest, fake: FakeLLM) -> AsyncIterator[ChatModel]:
    chat = client(request.param, fake)
    yield chat
    await chat.aclose()


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


# --- request shapes ----------------------------------------------------------------------------


async def test_openai_compatible_request_and_reply(fake: FakeLLM) -> None:
    fake.queue(Reply(GOOD))
    chat = client("openai", fake)
    try:
        verdict = await chat.complete_json(system="You inspect doors.", prompt="What is broken?", schema=Verdict)
    finally:
        await chat.aclose()
    assert verdict == Verdict(part="torsion spring", severity="FIX")
    (sent,) = fake.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.body["model"] == "fake-model"
    assert sent.body["response_format"] == {"type": "json_object"}
    system, user = sent.body["messages"]
    assert system["role"] == "system" and system["content"].startswith("You inspect doors.")
    assert '"enum":["HEALTHY","WATCH","FIX"]' in system["content"]  # the schema rides along
    assert user == {"role": "user", "content": "What is broken?"}
    assert chat.name == "openai-compatible:fake-model"


async def test_anthropic_request_and_reply(fake: FakeLLM) -> None:
    fake.queue(Reply(GOOD))
    chat = client("anthropic", fake)
    try:
        verdict = await chat.complete_json(system="You inspect doors.", prompt="What is broken?", schema=Verdict)
    finally:
        await chat.aclose()
    assert verdict.severity == "FIX"
    (sent,) = fake.requests
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == API_KEY and "authorization" not in sent.headers
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.body["system"].startswith("You inspect doors.") and "JSON Schema" in sent.body["system"]
    assert sent.body["max_tokens"] > 0
    assert sent.body["messages"] == [{"role": "user", "content": "What is broken?"}]
    assert chat.name == "anthropic:fake-model"


async def test_openai_compatible_sends_the_image_as_a_data_url(fake: FakeLLM) -> None:
    fake.queue(Reply(GOOD))
    chat = client("openai", fake)
    try:
        verdict = await chat.analyse_json(
            system="s", prompt="Which part?", image=PNG, mime_type="image/png", schema=Verdict
        )
    finally:
        await chat.aclose()
    assert verdict.part == "torsion spring"
    text, image = fake.requests[0].body["messages"][1]["content"]
    assert text == {"type": "text", "text": "Which part?"}
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert image == {"type": "image_url", "image_url": {"url": url}}


async def test_anthropic_sends_the_image_as_a_base64_block(fake: FakeLLM) -> None:
    fake.queue(Reply(GOOD))
    chat = client("anthropic", fake)
    try:
        await chat.analyse_json(system="s", prompt="Which part?", image=PNG, mime_type="image/jpeg", schema=Verdict)
    finally:
        await chat.aclose()
    image, text = fake.requests[0].body["messages"][0]["content"]
    assert image == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/jpeg", "data": base64.b64encode(PNG).decode()},
    }
    assert text == {"type": "text", "text": "Which part?"}


async def test_local_servers_need_no_key(fake: FakeLLM) -> None:
    fake.queue(Reply(GOOD))
    chat = OpenAICompatible(
        model="llama3.2", base_url=fake.openai_base_url, api_key=None, timeout_seconds=5, max_retries=0
    )
    try:
        await chat.complete_json(system="s", prompt="p", schema=Verdict)
    finally:
        await chat.aclose()
    assert "authorization" not in fake.requests[0].headers


async def test_a_server_without_json_mode_is_asked_without_it(fake: FakeLLM) -> None:
    fake.reject_response_format = True
    fake.queue(Reply(GOOD), Reply(GOOD), Reply(GOOD))
    chat = client("openai", fake)
    try:
        await chat.complete_json(system="s", prompt="p", schema=Verdict)
        await chat.complete_json(system="s", prompt="p", schema=Verdict)
    finally:
        await chat.aclose()
    # Refused once with response_format, then asked without it, and never with it again.
    assert ["response_format" in r.body for r in fake.requests] == [True, False, False]


# --- replies: lenient parsing, one repair ---------------------------------------------------------


async def test_code_fences_and_prose_around_the_object_are_tolerated(model: ChatModel, fake: FakeLLM) -> None:
    fake.queue(Reply(f"Here you go:\n```json\n{GOOD}\n```"))
    assert (await model.complete_json(system="s", prompt="p", schema=Verdict)).part == "torsion spring"
    assert len(fake.requests) == 1


async def test_malformed_json_gets_one_repair(model: ChatModel, fake: FakeLLM) -> None:
    fake.queue(Reply('{"part": "spring", "severity": FIX'), Reply(GOOD))
    verdict = await model.complete_json(system="s", prompt="Inspect it.", schema=Verdict)
    assert verdict.severity == "FIX"
    first, second = fake.requests
    turns = second.body["messages"][-3:]  # the prompt, the bad reply, the request for a correction
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert text_of(turns[0]) == "Inspect it."
    assert turns[1]["content"] == '{"part": "spring", "severity": FIX'
    assert "not valid JSON" in turns[2]["content"] and "only the corrected JSON" in turns[2]["content"]
    assert first.body["messages"] == second.body["messages"][: len(first.body["messages"])]


async def test_a_reply_off_the_schema_gets_one_repair_naming_the_field(model: ChatModel, fake: FakeLLM) -> None:
    fake.queue(Reply('{"part": "spring", "severity": "BROKEN"}'), Reply(GOOD))
    assert (await model.complete_json(system="s", prompt="p", schema=Verdict)).severity == "FIX"
    repair = text_of(fake.requests[1].body["messages"][-1])
    assert "does not match the schema" in repair and "severity" in repair


async def test_the_image_is_sent_again_with_the_repair(fake: FakeLLM) -> None:
    fake.queue(Reply("no idea"), Reply(GOOD))
    chat = client("anthropic", fake)
    try:
        await chat.analyse_json(system="s", prompt="p", image=PNG, mime_type="image/png", schema=Verdict)
    finally:
        await chat.aclose()
    first_turn = fake.requests[1].body["messages"][0]["content"]
    assert first_turn[0]["type"] == "image"  # the API is stateless: the model must see the photo again


async def test_nonsense_twice_is_a_bad_reply(model: ChatModel, fake: FakeLLM) -> None:
    fake.queue(Reply("I think it is the spring."), Reply('{"part": "spring"}'), Reply(GOOD))
    with pytest.raises(ProviderBadReply) as caught:
        await model.complete_json(system="s", prompt="p", schema=Verdict)
    assert caught.value.status == 502 and caught.value.code == "provider_bad_reply"
    assert len(fake.requests) == 2  # one repair, not a loop


async def test_every_answer_and_failure_reaches_the_provider_metrics(model: ChatModel, fake: FakeLLM) -> None:
    def calls(outcome: str) -> float:
        labels = {"provider": model.provider, "operation": "complete_json", "outcome": outcome}
        return METRICS.get_sample_value("garage_tools_provider_call_duration_seconds_count", labels) or 0.0

    before = {outcome: calls(outcome) for outcome in ("ok", "bad_reply", "unavailable")}
    fake.queue(Reply(GOOD))
    await model.complete_json(system="s", prompt="p", schema=Verdict)
    fake.queue(Reply("no"), Reply("still no"))
    with pytest.raises(ProviderBadReply):
        await model.complete_json(system="s", prompt="p", schema=Verdict)
    fake.default = Reply(status=500)
    with pytest.raises(ProviderUnavailable):
        await model.complete_json(system="s", prompt="p", schema=Verdict)
    assert {outcome: calls(outcome) - before[outcome] for outcome in before} == {
        "ok": 1,
        "bad_reply": 1,
        "unavailable": 1,
    }


# --- retries, waits and outages -------------------------------------------------------------------


async def test_429_is_retried_after_the_providers_retry_after(model: ChatModel, fake: FakeLLM) -> None:
    fake.queue(Reply(status=429, headers={"Retry-After": "1"}), Reply(GOOD))
    assert (await model.complete_json(system="s", prompt="p", schema=Verdict)).part == "torsion spring"
    first, second = fake.requests
    assert 0.95 <= second.at - first.at < 3  # waited as asked, not the shorter backoff


async def test_retry_after_ms_is_honoured(fake: FakeLLM) -> None:
    fake.queue(Reply(status=429, headers={"retry-after-ms": "400"}), Reply(GOOD))
    chat = client("openai", fake)
    try:
        await chat.complete_json(system="s", prompt="p", schema=Verdict)
    finally:
        await chat.aclose()
    first, second = fake.requests
    assert 0.38 <= second.at - first.at < 0.95


async def test_a_long_retry_after_is_passed_on_instead_of_waited_out(model: ChatModel, fake: FakeLLM) -> None:
    fake.queue(Reply(status=429, headers={"Retry-After": "120"}), Reply(GOOD))
    started = time.monotonic()
    with pytest.raises(ProviderUnavailable) as caught:
        await model.complete_json(system="s", prompt="p", schema=Verdict)
    assert time.monotonic() - started < 60  # waiting it out would take 120 s; on a loaded machine a call may take 1
    assert caught.value.headers["Retry-After"] == "120"
    assert len(fake.requests) == 1


async def test_5xx_is_retried_with_backoff(model: ChatModel, fake: FakeLLM) -> None:
    fake.queue(Reply(status=500), Reply(status=503), Reply(GOOD))
    assert (await model.complete_json(system="s", prompt="p", schema=Verdict)).severity == "FIX"
    gaps = [b.at - a.at for a, b in zip(fake.requests, fake.requests[1:], strict=False)]
    assert len(gaps) == 2 and gaps[0] >= 0.2 and gaps[1] >= 0.45  # about 0.5 s then 1 s, with jitter


async def test_500_until_the_retries_run_out_is_provider_unavailable(model: ChatModel, fake: FakeLLM) -> None:
    fake.default = Reply(status=500)
    with pytest.raises(ProviderUnavailable) as caught:
        await model.complete_json(system="s", prompt="p", schema=Verdict)
    error = caught.value
    assert error.status == 503 and error.code == "provider_unavailable"
    assert error.headers["Retry-After"] == "10"
    assert error.envelope()["error"]["code"] == "provider_unavailable"
    assert len(fake.requests) == 3  # the first attempt and max_retries=2


async def test_a_timeout_is_provider_unavailable(fake: FakeLLM) -> None:
    fake.default = Reply(GOOD, delay_seconds=10)
    chat = client("anthropic", fake, timeout=0.5, retries=2)
    started = time.monotonic()
    try:
        with pytest.raises(ProviderUnavailable):
            await chat.complete_json(system="s", prompt="p", schema=Verdict)
    finally:
        await chat.aclose()
    assert time.monotonic() - started < 1.5  # the budget covers the retries too


async def test_nobody_listening_is_provider_unavailable(fake: FakeLLM) -> None:
    chat = client("openai", fake, retries=1, base_url=f"http://127.0.0.1:{free_port()}/v1")
    try:
        with pytest.raises(ProviderUnavailable):
            await chat.complete_json(system="s", prompt="p", schema=Verdict)
    finally:
        await chat.aclose()


async def test_a_refused_key_is_not_retried_and_the_key_is_never_logged(
    model: ChatModel, fake: FakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    image_data = base64.b64encode(PNG).decode()
    fake.queue(Reply(f"Incorrect API key provided: {API_KEY}; image {image_data}", status=401))
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ProviderUnavailable) as caught:
        await model.analyse_json(system="s", prompt="p", image=PNG, mime_type="image/png", schema=Verdict)
    assert caught.value.headers["Retry-After"] == "60"  # the operator must act; a quick retry won't help
    assert len(fake.requests) == 1
    assert "refused the request" in caplog.text and "HTTP 401" in caplog.text
    assert API_KEY not in caplog.text and image_data[:60] not in caplog.text
    assert API_KEY not in repr(model)


# --- settings and the factory ---------------------------------------------------------------------


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)


def test_no_provider_means_no_models() -> None:
    models = build_models(settings())
    assert models == Models() and models.language is None and models.vision is None
    assert "none" in models.describe()


async def test_one_client_serves_both_models_when_they_are_configured_alike(fake: FakeLLM) -> None:
    models = build_models(
        settings(llm_provider="openai", llm_base_url=fake.openai_base_url, llm_model="m", llm_api_key=API_KEY)
    )
    assert isinstance(models.language, OpenAICompatible) and models.vision is models.language
    fake.queue(Reply(GOOD))
    await models.language.complete_json(system="s", prompt="p", schema=Verdict)
    await models.aclose()
    assert models.language.transport._client is None  # closed (once)
    assert API_KEY not in models.describe()


def test_a_separate_vision_provider_gets_its_own_client() -> None:
    configured = settings(
        llm_provider="openai",
        llm_base_url="http://127.0.0.1:11434/v1",
        llm_model="llama3.2",
        vision_provider="anthropic",
        vision_model="claude-vision",
        vision_api_key="sk-ant-test",
    )
    models = build_models(configured)
    assert isinstance(models.language, OpenAICompatible) and isinstance(models.vision, Anthropic)
    assert configured.vision_base_url == "https://api.anthropic.com"  # not the Ollama URL


def test_vision_settings_default_to_the_language_ones() -> None:
    configured = settings(llm_provider="anthropic", llm_model="claude", llm_api_key="sk-ant")
    assert configured.llm_base_url == "https://api.anthropic.com"
    assert (configured.vision_provider, configured.vision_model, configured.vision_base_url) == (
        "anthropic",
        "claude",
        "https://api.anthropic.com",
    )
    assert configured.vision_api_key is not None and configured.vision_api_key.get_secret_value() == "sk-ant"
    off = settings(
        llm_provider="openai", llm_base_url="http://localhost:1234/v1", llm_model="m", vision_provider="none"
    )
    assert build_models(off).vision is None


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({"llm_provider": "openai"}, "GARAGE_TOOLS_LLM_MODEL is required"),
        ({"llm_provider": "anthropic", "llm_model": "claude"}, "GARAGE_TOOLS_LLM_API_KEY is required"),
        ({"llm_provider": "openai", "llm_model": "gpt-4o-mini"}, "GARAGE_TOOLS_LLM_API_KEY is required"),
        ({"llm_provider": "openai", "llm_model": "m", "llm_base_url": "localhost:11434"}, "_LLM_BASE_URL must be"),
        ({"vision_provider": "openai", "llm_api_key": API_KEY}, "GARAGE_TOOLS_VISION_MODEL is required"),
        ({"llm_provider": "gemini"}, "llm_provider"),
    ],
)
def test_half_configured_providers_stop_start_up(values: dict[str, Any], named: str) -> None:
    with pytest.raises(ValidationError) as caught:
        settings(**values)
    assert named in str(caught.value)
    assert API_KEY not in str(caught.value)  # settings errors never echo what they were given


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GARAGE_TOOLS_LLM_PROVIDER", "OpenAI")
    monkeypatch.setenv("GARAGE_TOOLS_LLM_BASE_URL", "http://127.0.0.1:11434/v1/")
    monkeypatch.setenv("GARAGE_TOOLS_LLM_MODEL", "llama3.2")
    monkeypatch.setenv("GARAGE_TOOLS_LLM_API_KEY", "")  # a blank line means no key, not an empty key
    configured = settings()
    assert configured.llm_provider == "openai" and configured.llm_base_url == "http://127.0.0.1:11434/v1"
    assert configured.llm_api_key is None


# --- diagnose with useLlmFallback -----------------------------------------------------------------


@pytest.fixture
async def with_model(fake: FakeLLM, tmp_path: Path) -> AsyncIterator[Services]:
    """Services whose language model is the fake (OpenAI-compatible), built from settings as in production."""
    services = build_services(
        settings(
            data_dir=tmp_path,
            llm_provider="openai",
            llm_base_url=fake.openai_base_url,
            llm_model="fake-model",
            llm_max_retries=0,
            llm_timeout_seconds=5,
        )
    )
    yield services
    await services.close()


@pytest.fixture
async def offline(tmp_path: Path) -> AsyncIterator[Services]:
    services = build_services(settings(data_dir=tmp_path))
    yield services
    await services.close()


async def diagnose(services: Services, description: str, fallback: bool = True) -> dict[str, Any]:
    context = services.tool_context(Caller.anonymous("test"), "http://test")
    arguments = {"description": description, "useLlmFallback": fallback}
    return dump(await invoke(REGISTRY, "diagnose", arguments, context))


def choice(key: str | None, confidence: float = 0.9) -> Reply:
    return Reply(json.dumps({"symptomKey": key, "confidence": confidence}))


UNMATCHED = "something is wrong with my garage door"  # no phrase of the tree, no example near it


async def test_the_model_picks_the_symptom_and_the_diagnosis_is_the_trees(with_model: Services, fake: FakeLLM) -> None:
    fake.queue(choice("banging_noise", 0.82))
    answer = await diagnose(with_model, UNMATCHED)
    symptom = answer["symptom"]
    assert symptom["key"] == "banging_noise" and symptom["matchedBy"] == "model"
    assert symptom["model"] == "openai-compatible:fake-model" and symptom["confidence"] == 0.82
    assert answer["safetyFlag"] is True and answer["likelyIssues"][0]["key"] == "broken_spring"
    (sent,) = fake.requests
    system, user = sent.body["messages"]
    assert f"<<<\n{UNMATCHED}\n>>>" in user["content"]
    assert all(key in system["content"] for key in ["wont_open", "banging_noise", "weather_seal_damaged"])


#: A gunshot in words neither the phrase matcher nor the offline examples know: only a model can call it a bang.
GUNSHOT_UNPHRASED = "there was a deafening report like a firearm"


async def test_a_gunshot_goes_through_the_model(with_model: Services, offline: Services, fake: FakeLLM) -> None:
    assert "symptom" not in await diagnose(offline, GUNSHOT_UNPHRASED)  # without the model: no diagnosis at all
    fake.queue(choice("banging_noise", 0.74))
    answer = await diagnose(with_model, GUNSHOT_UNPHRASED)
    symptom = answer["symptom"]
    assert symptom["key"] == "banging_noise" and symptom["matchedBy"] == "model" and symptom["confidence"] == 0.74
    assert answer["likelyIssues"][0]["key"] == "broken_spring" and answer["safetyFlag"] is True
    (sent,) = fake.requests
    assert f"<<<\n{GUNSHOT_UNPHRASED}\n>>>" in sent.body["messages"][1]["content"]


async def test_a_one_word_phrase_match_is_still_put_to_the_model(with_model: Services, fake: FakeLLM) -> None:
    # "gunshot" alone is weak evidence: the model reads the whole text, and its answer, as urgent, wins.
    fake.queue(choice("moves_unevenly"))
    answer = await diagnose(with_model, "it sounds like a gunshot")
    assert answer["symptom"]["key"] == "moves_unevenly" and answer["symptom"]["matchedBy"] == "model"
    assert answer["likelyIssues"][0]["key"] == "broken_cable"
    assert len(fake.requests) == 1


async def test_the_model_is_not_asked_when_a_phrase_matches_or_nobody_asked(
    with_model: Services, fake: FakeLLM
) -> None:
    assert (await diagnose(with_model, "loud bang"))["symptom"]["matchedBy"] == "phrase"
    assert "symptom" not in await diagnose(with_model, UNMATCHED, fallback=False)
    assert fake.requests == []


async def test_a_model_that_finds_no_symptom_gives_the_no_match_answer(with_model: Services, fake: FakeLLM) -> None:
    fake.queue(choice(None, 0.9), choice("wont_open", 0.1))
    for _ in range(2):  # null, then a guess below the confidence floor
        answer = await diagnose(with_model, UNMATCHED)
        assert "symptom" not in answer and answer["hint"] and answer["likelyIssues"] == []


async def test_a_key_outside_the_tree_gets_the_repair(with_model: Services, fake: FakeLLM) -> None:
    fake.queue(choice("door_possessed"), choice("wont_close"))
    assert (await diagnose(with_model, UNMATCHED))["symptom"]["key"] == "wont_close"
    assert "symptomKey" in text_of(fake.requests[1].body["messages"][-1])


async def test_the_model_cannot_talk_a_user_out_of_a_hazard(with_model: Services, fake: FakeLLM) -> None:
    fake.queue(choice("unusual_noise"))
    answer = await diagnose(with_model, "the chain slaps with a pop")  # "pop": a one-word banging phrase
    assert answer["symptom"]["key"] == "banging_noise" and answer["safetyFlag"] is True


async def test_provider_down_falls_back_offline_and_says_so(with_model: Services, fake: FakeLLM) -> None:
    fake.default = Reply(status=503)
    answer = await diagnose(with_model, "the door rises a little and quits")
    assert answer["symptom"]["key"] == "opens_partially" and answer["symptom"]["matchedBy"] == "offline-fallback"
    assert answer["modelError"] == "provider_unavailable"


async def test_provider_down_with_nothing_offline_is_503_with_retry_after(with_model: Services, fake: FakeLLM) -> None:
    fake.default = Reply(status=503, headers={"Retry-After": "7"})
    with pytest.raises(ProviderUnavailable) as caught:
        await diagnose(with_model, UNMATCHED)
    assert caught.value.status == 503 and caught.value.headers["Retry-After"] == "7"


async def test_a_model_talking_nonsense_with_nothing_offline_is_502(with_model: Services, fake: FakeLLM) -> None:
    fake.default = Reply("It might be the spring, or the opener.")
    with pytest.raises(ProviderBadReply):
        await diagnose(with_model, UNMATCHED)


async def test_offline_the_fallback_is_the_nearest_example(offline: Services) -> None:
    answer = await diagnose(offline, "the door rises a little and quits")
    symptom = answer["symptom"]
    assert symptom["key"] == "opens_partially" and symptom["matchedBy"] == "offline-fallback"
    assert 0 < symptom["similarity"] <= 1 and symptom["matchedPhrase"]
    assert "model" not in symptom and "modelError" not in answer
    assert "matchedText" not in symptom  # the nearest example matched the whole text, not some of its words
    assert "symptom" not in await diagnose(offline, "the door rises a little and quits", fallback=False)


async def test_offline_a_gunshot_is_a_broken_spring(offline: Services) -> None:
    answer = await diagnose(offline, "it sounds like a gunshot")
    assert answer["symptom"]["key"] == "banging_noise" and answer["safetyFlag"] is True
    assert answer["likelyIssues"][0]["key"] == "broken_spring"


async def test_offline_text_near_nothing_is_the_no_match_answer(offline: Services) -> None:
    answer = await diagnose(offline, UNMATCHED)
    assert "symptom" not in answer and answer["hint"] and answer["suggestions"]
