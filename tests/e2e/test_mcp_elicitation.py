"""routeByZip without a place: on 2026-07-28 a client that declared elicitation is asked for it (an input-required
result, answered by the person and retried); elsewhere the call fails with the question to ask."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitRequestParams, ElicitResult

from tests.conftest import LiveServer
from tests.e2e.test_mcp import connect

QUESTION = "Where is the garage door? A five-digit ZIP code, or a city and state."


@pytest.mark.parametrize("path", ["/mcp", "/mcp-pro"])
async def test_the_person_is_asked_where_the_door_is(path: str, live_server: LiveServer, pro_key: str) -> None:
    asked: list[str] = []

    async def person(context: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"zipOrLocation": "84770"})

    headers = {"Authorization": f"Bearer {pro_key}"} if path == "/mcp-pro" else {}
    transport = streamable_http_client(
        f"{live_server.url}{path}", http_client=httpx2.AsyncClient(headers=headers, timeout=30)
    )
    async with Client(transport, mode="2026-07-28", elicitation_callback=person) as client:
        result = await client.call_tool("routeByZip", {"issue": "broken_spring"})
    assert asked == [QUESTION]
    assert not result.is_error, result.content
    assert result.structured_content and result.structured_content["partner"]["displayName"] == "Dixie Door & Spring"


async def test_a_person_who_declines_gets_the_question_back(live_server: LiveServer) -> None:
    async def person(context: Any, params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="decline")

    transport = streamable_http_client(f"{live_server.url}/mcp", http_client=httpx2.AsyncClient(timeout=30))
    async with Client(transport, mode="2026-07-28", elicitation_callback=person) as client:
        result = await client.call_tool("routeByZip", {})
    assert result.is_error
    assert QUESTION in json.loads(result.content[0].text)["error"]["message"]  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_without_elicitation_the_error_says_what_to_ask(mode: str, live_server: LiveServer) -> None:
    async with connect(f"{live_server.url}/mcp", mode) as client:
        result = await client.call_tool("routeByZip", {"issue": "broken_spring"})
    assert result.is_error
    error = json.loads(result.content[0].text)["error"]  # type: ignore[union-attr]
    assert error["code"] == "invalid_arguments" and QUESTION in error["message"]


CONSENT = "May the pro you chose (and, should they not answer, the next local pro) receive your name"
REQUEST = {
    "partnerId": "dixie-door-and-spring",
    "zip": "84770",
    "issueKey": "broken_spring",
    "contact": {"name": "Dana Reyes", "phone": "(435) 555-0143"},  # its own: a contact may send 3 requests a day
}


@pytest.mark.parametrize("agrees", [True, False])
async def test_the_person_is_asked_to_agree_before_a_request_is_sent(agrees: bool, live_server: LiveServer) -> None:
    asked: list[ElicitRequestParams] = []

    async def person(context: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content={"contactShare": agrees})

    transport = streamable_http_client(f"{live_server.url}/mcp", http_client=httpx2.AsyncClient(timeout=30))
    async with Client(transport, mode="2026-07-28", elicitation_callback=person) as client:
        result = await client.call_tool("requestService", REQUEST)
    (question,) = asked
    assert question.message.startswith(CONSENT)
    schema = question.requested_schema  # type: ignore[union-attr]
    assert schema["properties"]["contactShare"]["type"] == "boolean" and schema["required"] == ["contactShare"]
    if agrees:
        assert not result.is_error, result.content
        assert result.structured_content and result.structured_content["requestId"].startswith("R-")
    else:  # not agreed: nothing is sent, and the error says why
        assert result.is_error
        error = json.loads(result.content[0].text)["error"]  # type: ignore[union-attr]
        assert error["code"] == "invalid_arguments" and CONSENT in error["message"]


async def test_without_elicitation_a_request_without_consent_says_what_to_ask(live_server: LiveServer) -> None:
    async with connect(f"{live_server.url}/mcp", "2026-07-28") as client:
        result = await client.call_tool("requestService", REQUEST)
    assert result.is_error
    error = json.loads(result.content[0].text)["error"]  # type: ignore[union-attr]
    assert error["code"] == "invalid_arguments" and CONSENT in error["message"]
