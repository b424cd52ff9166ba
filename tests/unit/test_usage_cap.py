"""A usage cap declared on the `Tool` is enforced by the gate, and counts uses, not attempts.

The gate reserves a unit of the cap with the call's other limits; `invoke` gives it back when the call
used nothing (`UsageCap.counts`: any 4xx, any 503), and the gate gives back a unit the tool never got
to settle. Every test runs with the counters in process memory and in the local Redis, and the MCP
calls go through the fast path and through the SDK.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field
from starlette.testclient import TestClient

from garage_tools.access.limits import UsageCap
from garage_tools.access.redis_client import RedisClient
from garage_tools.app import create_app
from garage_tools.errors import ProviderBadReply, ProviderUnavailable, ToolFailed
from garage_tools.models import InputModel, OutputModel
from garage_tools.registry import Registry, Tool, ToolContext
from garage_tools.settings import Settings
from tests.redis_keys import delete_matching
from tests.unit.image_samples import b64, inline, photo
from tests.unit.test_registry import tool

REDIS_URL = "redis://127.0.0.1:6379/0"
REVISION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": REVISION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}


class WorkIn(InputModel):
    text: str = Field(max_length=10)


class WorkOut(OutputModel):
    done: str


async def work(args: WorkIn, ctx: ToolContext) -> WorkOut:
    """A capped tool that fails, when asked to, in each way a photo tool can."""
    if args.text == "refuse":
        raise ToolFailed("cannot do that")  # 400: the input was refused
    if args.text == "away":
        raise ProviderUnavailable("The model provider is not answering right now.", retry_after=7)  # 503
    if args.text == "nonsense":
        raise ProviderBadReply("The model answered, but not as asked.")  # 502: the model did the work
    if args.text == "boom":
        raise RuntimeError("crashed after the work")  # 500
    return WorkOut(done=args.text)


WORK = Tool(
    name="work",
    title="work",
    summary="s",
    description="d",
    input_model=WorkIn,
    output_model=WorkOut,
    handler=work,
    usage_cap=UsageCap("photos"),  # its numbers are the table's photo rules: 2 and 4 a day in `client`
)


@pytest.fixture(params=[("memory", True), ("memory", False), ("redis", True)], ids=["memory", "memory-sdk", "redis"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    """Settings counting in memory or in the local Redis (under a prefix of its own), MCP fast path on or off."""
    backend, fast_path = request.param
    prefix = f"garage-tools-test-{uuid.uuid4().hex[:12]}:"
    redis: dict[str, Any] = {"redis_url": REDIS_URL, "redis_key_prefix": prefix} if backend == "redis" else {}
    yield Settings(
        _env_file=None,
        data_dir=tmp_path,
        rate_limit_public="1000/minute",
        mcp_fast_path=fast_path,
        **redis,
    )
    if backend == "redis":
        asyncio.run(_delete_keys(prefix))


async def _delete_keys(prefix: str) -> None:
    client = RedisClient(REDIS_URL)
    await delete_matching(client, f"{prefix}*")
    await client.close()


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    capped = settings.model_copy(update={"rate_limit_photos_public": "2/day", "rate_limit_photos_pro": "4/day"})
    app = create_app(capped, registry=Registry([WORK, tool("echo")]))
    with TestClient(app, base_url="http://127.0.0.1:8000") as test_client:
        yield test_client


@pytest.fixture
def photo_client(settings: Settings) -> Iterator[TestClient]:
    """The real tools, visualDiagnose with its 20-a-day photo cap among them (no vision model: offline verdicts)."""
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8000") as test_client:
        yield test_client


def rest(client: TestClient, name: str, arguments: dict[str, Any]) -> tuple[int, str]:
    """(status, error code or '') of a REST call."""
    response = client.post(f"/api/v1/{name}", json=arguments)
    return response.status_code, response.json()["error"]["code"] if response.status_code != 200 else ""


def mcp(
    client: TestClient, name: str, arguments: dict[str, Any], *, version: str = REVISION
) -> tuple[bool, str, dict[str, str]]:
    """(isError, error code or '', HTTP headers) of an MCP tools/call."""
    params = {"name": name, "arguments": arguments, "_meta": META}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    headers = {"Accept": "application/json", "MCP-Protocol-Version": version, "Mcp-Method": "tools/call"}
    headers["Mcp-Name"] = name
    response = client.post("/mcp", json=body, headers=headers)
    answer = response.json()
    if "error" in answer:  # refused as a JSON-RPC message, before any tool ran
        return True, str(answer["error"]["code"]), dict(response.headers)
    result = answer["result"]
    code = json.loads(result["content"][0]["text"])["error"]["code"] if result["isError"] else ""
    return result["isError"], code, dict(response.headers)


def left(client: TestClient, name: str, window: str) -> int:
    """What a successful call of `name` says is left in `window` after it (so the call itself is counted)."""
    response = client.post(f"/api/v1/{name}", json={"text": "ok"})
    assert response.status_code == 200, response.text
    fields = dict(item.split(";", 1) for item in response.headers["ratelimit"].split(", "))
    return int(fields[f'"{window}"'].split(";")[0].removeprefix("r="))


def test_successes_count_on_every_surface_and_the_next_is_refused(client: TestClient) -> None:
    first = client.post("/api/v1/work", json={"text": "hi"})
    assert first.status_code == 200
    assert '"photos-public-day";q=2;w=86400' in first.headers["ratelimit-policy"]
    assert mcp(client, "work", {"text": "hi"})[:2] == (False, "")  # the second, over MCP
    refused = client.post("/api/v1/work", json={"text": "hi"})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert "2 per day" in refused.json()["error"]["message"] and int(refused.headers["retry-after"]) > 0
    assert mcp(client, "work", {"text": "hi"})[:2] == (True, "rate_limited")


def test_calls_refused_for_their_input_leave_the_cap_untouched(client: TestClient) -> None:
    for _ in range(3):  # each more often than the cap allows
        assert rest(client, "work", {"text": "refuse"}) == (400, "tool_error")
        assert rest(client, "work", {"text": "far too long for it"}) == (400, "invalid_arguments")
        assert rest(client, "work", {}) == (400, "invalid_arguments")
        assert mcp(client, "work", {"text": "refuse"})[:2] == (True, "tool_error")
        assert mcp(client, "work", {"text": 12})[:2] == (True, "invalid_arguments")
    assert left(client, "work", "photos-public-day") == 1
    assert left(client, "work", "photos-public-day") == 0
    assert rest(client, "work", {"text": "ok"}) == (429, "rate_limited")


def test_an_outage_is_given_back_but_work_done_is_not(client: TestClient) -> None:
    for _ in range(3):
        assert rest(client, "work", {"text": "away"}) == (503, "provider_unavailable")
        assert mcp(client, "work", {"text": "away"})[:2] == (True, "provider_unavailable")
    assert rest(client, "work", {"text": "nonsense"}) == (502, "provider_bad_reply")  # the model looked: counted
    assert rest(client, "work", {"text": "boom"}) == (500, "internal_error")  # it may have: counted
    assert rest(client, "work", {"text": "ok"}) == (429, "rate_limited")


def units_left(ratelimit: str) -> int:
    """What a `RateLimit` header says is left of the cap's day window."""
    fields = dict(item.split(";", 1) for item in ratelimit.split(", "))
    return int(fields['"photos-public-day"'].split(";")[0].removeprefix("r="))


def test_the_answer_of_a_call_given_back_does_not_count_it(client: TestClient) -> None:
    refused = client.post("/api/v1/work", json={"text": "refuse"})
    assert refused.status_code == 400
    assert units_left(refused.headers["ratelimit"]) == 2  # given back: none of the 2 a day used
    away = client.post("/api/v1/work", json={"text": "away"})
    assert away.status_code == 503 and units_left(away.headers["ratelimit"]) == 2
    assert units_left(mcp(client, "work", {"text": "refuse"})[2]["ratelimit"]) == 2
    # The general limit still counts the calls; a call that used a unit says so.
    assert refused.headers["ratelimit"].startswith('"public-minute";r=999;')
    done = client.post("/api/v1/work", json={"text": "ok"})
    assert units_left(done.headers["ratelimit"]) == 1


def test_the_general_limit_still_counts_every_call(client: TestClient) -> None:
    for _ in range(4):
        rest(client, "work", {"text": "refuse"})
    response = client.post("/api/v1/echo", json={"text": "hi"})
    assert response.headers["ratelimit"].startswith('"public-minute";r=995;')  # 4 refused + this one, of 1000


def test_a_call_that_never_reaches_the_tool_is_given_back(client: TestClient) -> None:
    # The gate counts the call, then the MCP surface refuses the message before any tool runs.
    for _ in range(3):
        is_error, code, _ = mcp(client, "work", {"text": "hi"}, version="1999-01-01")
        assert is_error and code != ""
    assert left(client, "work", "photos-public-day") == 1


def test_a_browser_call_refused_by_the_challenge_is_given_back(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path, challenge_secret="secret", rate_limit_photos_public="2/day")
    with TestClient(create_app(settings, registry=Registry([WORK])), base_url="http://127.0.0.1:8000") as client:
        for _ in range(3):
            refused = client.post("/api/v1/work", json={"text": "hi"}, headers={"Origin": "https://other.example"})
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "challenge_required"
        assert left(client, "work", "photos-public-day") == 1


def test_twenty_bad_photos_then_twenty_good_ones_then_the_cap(photo_client: TestClient) -> None:
    bad_base64 = {"image": {"data": "%%% not base64 %%%", "mimeType": "image/jpeg"}}
    not_an_image = {"image": {"data": b64(b"just some text"), "mimeType": "image/png"}}
    for _ in range(10):
        assert rest(photo_client, "visualDiagnose", bad_base64) == (400, "image_bad_base64")
        assert mcp(photo_client, "visualDiagnose", not_an_image)[:2] == (True, "image_not_an_image")
    good = {"image": inline(photo("PNG", (64, 48)), "image/png")}
    for n in range(10):
        assert rest(photo_client, "visualDiagnose", good)[0] == 200, n
        assert mcp(photo_client, "visualDiagnose", good)[:2] == (False, ""), n
    refused = photo_client.post("/api/v1/visualDiagnose", json=good)
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert "20 per day" in refused.json()["error"]["message"] and int(refused.headers["retry-after"]) > 0
    is_error, code, headers = mcp(photo_client, "visualDiagnose", good)
    assert (is_error, code) == (True, "rate_limited") and int(headers["retry-after"]) > 0
