"""Headers are read once per request, into one object every layer uses.

The request id, CORS, the access gate and the pages each need a few headers. They all read the
`RequestHeaders` the first of them made and kept in the scope, so a tool call pays for one pass over the
headers, and no two layers can read a repeated header differently.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from starlette.applications import Starlette
from starlette.types import Message

from garage_tools.app import create_app
from garage_tools.headers import SCOPE_KEY, RequestHeaders
from garage_tools.settings import Settings

MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


class ScannedHeaders(list[tuple[bytes, bytes]]):
    """A request's raw header list that counts how often it is read through."""

    passes = 0

    def __iter__(self) -> Iterator[tuple[bytes, bytes]]:
        self.passes += 1
        return super().__iter__()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Starlette:
    # Not started: these requests need neither the store nor the MCP SDK's session managers.
    return create_app(Settings(data_dir=tmp_path_factory.mktemp("headers") / "var", mail_worker_in_process=False))


async def call(
    app: Starlette, method: str, path: str, headers: dict[str, str], body: Any = None
) -> tuple[Message, int]:
    """Send one request straight to the app; its response's start message and the passes over its headers."""
    raw = orjson.dumps(body) if body is not None else b""
    scanned = ScannedHeaders(
        [(b"host", b"127.0.0.1:8000"), (b"content-length", str(len(raw)).encode())]
        + [(name.lower().encode(), value.encode()) for name, value in headers.items()]
    )
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": scanned,
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": raw, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent[0], scanned.passes


def header(start: Message, name: bytes) -> bytes | None:
    return next((value for key, value in start["headers"] if key == name), None)


@pytest.mark.parametrize(
    ("path", "body"), [("/api/v1/diagnose", {"description": "door wont close"}), ("/mcp", MCP_LIST)]
)
async def test_a_tool_call_reads_its_headers_once(app: Starlette, path: str, body: Any) -> None:
    headers = {
        "Content-Type": "application/json",
        "Origin": "http://127.0.0.1:3000",  # CORS reads it, and the gate checks it and puts it in the caller
        "X-Request-Id": "trace-123",  # the request id
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    start, passes = await call(app, "POST", path, headers, body)
    assert start["status"] == 200
    assert header(start, b"x-request-id") == b"trace-123"
    assert header(start, b"access-control-allow-origin") == b"*"
    assert passes == 1


async def test_a_page_reads_its_headers_once(app: Starlette) -> None:
    start, passes = await call(app, "GET", "/labs", {"Accept": "text/html", "X-Request-Id": "page-1", "Origin": "null"})
    assert start["status"] == 200 and header(start, b"x-request-id") == b"page-1"
    assert passes == 1


def test_the_first_reader_keeps_them_for_the_rest() -> None:
    scope = {"type": "http", "headers": [(b"host", b"example.com "), (b"x-request-id", b"a"), (b"x-request-id", b"b")]}
    headers = RequestHeaders.of(scope)
    assert scope[SCOPE_KEY] is headers and RequestHeaders.of(scope) is headers
    assert (headers.host, headers.request_id, headers.untrimmed) == ("example.com", "a", True)


def test_a_request_without_headers_reads_as_the_defaults_and_no_two_requests_share_a_list() -> None:
    """`read` makes its copy without `__init__`: every field still has its default, and the ones made by a factory
    are each request's own (a new factory field left out of `read` fails here)."""
    first, second = RequestHeaders.read({"headers": []}), RequestHeaders.read({"headers": []})
    assert first == RequestHeaders() == second
    first.authorization.append("Bearer a")
    first.mcp["mcp-name"] = "diagnose"
    first.forwarded.append("for=192.0.2.1")
    first.x_forwarded_for.append("192.0.2.1")
    assert second == RequestHeaders() and RequestHeaders.read({"headers": []}) == RequestHeaders()
    two = RequestHeaders.read({"headers": [(b"authorization", b"Bearer a"), (b"authorization", b"Bearer b")]})
    assert two.authorization == ["Bearer a", "Bearer b"] and RequestHeaders().authorization == []


def test_mcp_headers_are_kept_by_name_known_or_not_and_a_repeated_one_has_no_single_value() -> None:
    read = RequestHeaders.read(
        {
            "headers": [
                (b"mcp-protocol-version", b"2026-07-28"),
                (b"mcp-method", b" tools/call "),  # surrounding white space: trimmed, and noted
                (b"mcp-name", b"diagnose"),
                (b"mcp-name", b"costEstimate"),  # repeated
                (b"mcp-session-id", b"abc"),  # an Mcp-* header this service has no use for, kept all the same
                (b"mcp-param-region", b"us"),
                (b"x-other", b"ignored"),
            ]
        }
    )
    assert read.mcp == {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": None,  # repeated: no single value
        "mcp-session-id": "abc",
        "mcp-param-region": "us",
    }
    assert read.mcp_param and read.untrimmed
    plain = RequestHeaders.read({"headers": [(b"mcp-name", b"diagnose")]})
    assert not plain.mcp_param and not plain.untrimmed
