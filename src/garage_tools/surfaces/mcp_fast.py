"""A fast path for the one MCP exchange agents make most: a 2026-07-28 `tools/call` answered as JSON.

On the 2026-07-28 revision a `tools/call` is a single stateless POST, and the SDK spends about
250 µs of CPU per call on generic machinery (a dozen pydantic round trips, stdlib JSON, span
and middleware plumbing) around a tool that takes tens of microseconds. This path answers that
exchange directly when, and only when, the request has exactly the plain shape below; anything
else (another method or revision, unknown tools, extra params or `_meta`, `Mcp-Param-*` headers,
duplicated routing headers, a Host or Origin the transport would refuse) is handed to the SDK
untouched, body included. Answers are byte-for-byte the SDK's in content: the test suite sends
the same requests with the fast path on and off and compares them, and the official conformance
suite runs against it.
"""

from __future__ import annotations

from typing import Any

import orjson
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from garage_tools.errors import ServiceError
from garage_tools.models import inline_images
from garage_tools.registry import Caller, Registry, ToolContext, dump, invoke
from garage_tools.services import Services
from garage_tools.surfaces.urls import base_url

REVISION = "2026-07-28"
_META_VERSION = "io.modelcontextprotocol/protocolVersion"
_META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_META_CLIENT = "io.modelcontextprotocol/clientInfo"
_ROUTING_HEADERS = (b"mcp-protocol-version", b"mcp-method", b"mcp-name")
_JSON_HEADERS = [(b"content-type", b"application/json")]


def _plain_call(scope: Scope) -> str | None:
    """The tool name of a request whose headers fit the fast path, else None."""
    if scope["method"] != "POST":
        return None
    seen: dict[bytes, bytes] = {}
    accept = content_type = b""
    for name, value in scope["headers"]:
        if name in _ROUTING_HEADERS:
            if name in seen:
                return None  # duplicated routing header: the SDK rejects it properly
            seen[name] = value
        elif name == b"accept":
            accept = value
        elif name == b"content-type":
            content_type = value
        elif name.startswith(b"mcp-param-"):
            return None
    if (
        seen.get(b"mcp-protocol-version") != REVISION.encode()
        or seen.get(b"mcp-method") != b"tools/call"
        or b"application/json" not in accept
        or not content_type.startswith(b"application/json")
    ):
        return None
    name = seen.get(b"mcp-name")
    return name.decode("latin-1") if name else None


def _plain_body(body: bytes, tool_name: str) -> tuple[str | int, dict[str, Any]] | None:
    """(request id, arguments) of a body with exactly the plain tools/call shape, else None."""
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(message, dict) or message.keys() != {"jsonrpc", "id", "method", "params"}:
        return None
    request_id, params = message["id"], message["params"]
    if (
        message["jsonrpc"] != "2.0"
        or message["method"] != "tools/call"
        or isinstance(request_id, bool)
        or not isinstance(request_id, (str, int))
        or not isinstance(params, dict)
        or not params.keys() <= {"name", "arguments", "_meta"}
        or params.get("name") != tool_name
    ):
        return None
    arguments = params.get("arguments", {})
    meta = params.get("_meta")
    if not isinstance(arguments, dict) or not isinstance(meta, dict):
        return None
    client = meta.get(_META_CLIENT)
    if (
        meta.keys() != {_META_VERSION, _META_CAPABILITIES, _META_CLIENT}
        or meta[_META_VERSION] != REVISION
        or meta[_META_CAPABILITIES] != {}
        or not isinstance(client, dict)
        or not isinstance(client.get("name"), str)
        or not isinstance(client.get("version"), str)
    ):
        return None
    return request_id, arguments


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that yields the already-read body once, then defers to the real one."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class FastToolCall:
    """Called by the MCP gate (with the caller it established) in front of the SDK's endpoint."""

    def __init__(
        self, sdk: ASGIApp, server: Server[Any], services: Services, security: TransportSecuritySettings
    ) -> None:
        self.sdk = sdk
        self.services = services
        self.registry: Registry = services.registry
        self.security = TransportSecurityMiddleware(security)
        self.server_info = {"io.modelcontextprotocol/serverInfo": server.server_info_stamp}

    async def __call__(self, scope: Scope, receive: Receive, send: Send, caller: Caller) -> None:
        tool_name = _plain_call(scope)
        if tool_name is None or tool_name not in self.registry:
            await self.sdk(scope, receive, send)
            return
        request = Request(scope, receive)
        if await self.security.validate_request(request, is_post=True) is not None:
            await self.sdk(scope, receive, send)  # the SDK answers with its own rejection
            return
        body = await request.body()
        parsed = _plain_body(body, tool_name)
        if parsed is None:
            await self.sdk(scope, _replay(body, receive), send)
            return
        request_id, arguments = parsed
        context = ToolContext(self.services, caller, base_url(self.services.settings, scope))
        try:
            output = await invoke(self.registry, tool_name, arguments, context)
        except ServiceError as error:
            text = orjson.dumps(error.envelope()).decode()
            result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": True}
        else:
            data = dump(output)
            content: list[dict[str, Any]] = [{"type": "text", "text": orjson.dumps(data).decode()}]
            content += [{"type": "image", "data": i.data, "mimeType": i.mime_type} for i in inline_images(output)]
            result = {"content": content, "isError": False, "structuredContent": data}
        result["resultType"] = "complete"
        result["_meta"] = self.server_info
        payload = orjson.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})
        headers = [*_JSON_HEADERS, (b"content-length", str(len(payload)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": payload})
