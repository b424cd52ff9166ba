"""The request id of every route Starlette answers: begun, echoed as `X-Request-Id`, its status noted.

A tool call by the front door gets the same from its edge (`surfaces/edge.py`), which also observes
its duration under the tool and surface, the only metrics work a tool call does. The tool comes from
the path on REST; on MCP the gate names it once it has read the body (`note_tool`).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from garage_tools.observability.request_id import HEADER, RequestRecord, begin_request


def _echoing(send: Send, record: RequestRecord) -> Send:
    """`send`, adding `X-Request-Id` to the response and noting its status in `record`."""
    echoed = (HEADER, record.id.encode("latin-1"))

    async def send_with_id(message: Message) -> None:
        if message["type"] == "http.response.start":
            record.status = message["status"]
            message["headers"] = [*message.get("headers", ()), echoed]
        await send(message)

    return send_with_id


class RequestIds:
    """ASGI middleware: gives each HTTP request an id and echoes it as `X-Request-Id`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _echoing(send, begin_request(scope)))
