"""Where requests are observed: one ASGI layer in front of each tool endpoint, one for every other route.

`ObservedToolCalls` wraps an access gate (REST, `/mcp`, `/mcp-pro`). It starts the request's record
(its id), echoes the id, notes the status the response starts with, and when the gate is done
observes the duration under the tool and surface: the only metrics work a tool call does. The tool
comes from the path on REST; on MCP the gate names it once it has read the body (`note_tool`).
`RequestIds` does the request-id half for every other route.
"""

from __future__ import annotations

from time import perf_counter

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from garage_tools.observability.metrics import RequestMetrics
from garage_tools.observability.request_id import HEADER, SCOPE_KEY, RequestRecord, begin_request


def _echoing(send: Send, record: RequestRecord) -> Send:
    """`send`, adding `X-Request-Id` to the response and noting its status in `record`."""
    echoed = (HEADER, record.id.encode("latin-1"))

    async def send_with_id(message: Message) -> None:
        if message["type"] == "http.response.start":
            record.status = message["status"]
            message["headers"] = [*message.get("headers", ()), echoed]
        await send(message)

    return send_with_id


class ObservedToolCalls:
    """ASGI wrapper of one tool endpoint's gate: request id, then one metrics observation per request."""

    def __init__(self, app: ASGIApp, metrics: RequestMetrics, *, tool_param: str | None = None) -> None:
        self.app = app
        self.metrics = metrics
        self.tool_param = tool_param

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = perf_counter()
        record: RequestRecord | None = scope.get(SCOPE_KEY)
        if record is None:  # the front door's way in; through the router, `RequestIds` has begun it
            record = begin_request(scope)
            send = _echoing(send, record)
        if self.tool_param is not None:
            record.tool = scope["path_params"][self.tool_param]
        try:
            await self.app(scope, receive, send)
        finally:
            self.metrics.observe(record.tool, record.status, perf_counter() - started)


class RequestIds:
    """ASGI middleware: gives each HTTP request an id and echoes it as `X-Request-Id`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _echoing(send, begin_request(scope)))
