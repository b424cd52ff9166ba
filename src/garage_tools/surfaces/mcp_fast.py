"""A fast path for the one MCP exchange agents make most: a 2026-07-28 `tools/call` answered as JSON.

On the 2026-07-28 revision a `tools/call` is a single stateless POST, and the SDK spends about
250 µs of CPU per call on generic machinery (a dozen pydantic round trips, stdlib JSON, span
and middleware plumbing) around a tool that takes tens of microseconds. This path answers that
exchange directly when, and only when, the request has exactly the plain shape below; anything
else (another method or revision, unknown tools, extra params or `_meta`, `Mcp-Param-*` headers,
duplicated routing headers) goes to the SDK untouched, body included. The access gate has
already checked Host, Origin, media type, size and limits for both paths. Answers match the
SDK's: the test suite sends the same requests with the fast path on and off and compares them,
and the official conformance suite runs against it.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.types import Send

from garage_tools.access.gate import Admitted
from garage_tools.errors import ServiceError
from garage_tools.registry import Registry, invoke
from garage_tools.services import Services
from garage_tools.surfaces.mcp_encoding import error_result, tool_result
from garage_tools.surfaces.responses import send_json

REVISION = "2026-07-28"
_META_VERSION = "io.modelcontextprotocol/protocolVersion"
_META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_META_CLIENT = "io.modelcontextprotocol/clientInfo"
_ROUTING = ("mcp-protocol-version", "mcp-method", "mcp-name")


def plain_call(request: Admitted) -> tuple[str | int, dict[str, Any]] | None:
    """(request id, arguments) of a request with exactly the plain tools/call shape, else None."""
    headers = request.headers
    if (
        request.tool is None
        or headers.mcp_param
        or any(len(headers.mcp.get(name, ())) != 1 for name in _ROUTING)
        or headers.mcp_header("mcp-protocol-version") != REVISION
        or headers.mcp_header("mcp-method") != "tools/call"
        or headers.mcp_header("mcp-name") != request.tool.name
        or "application/json" not in headers.accept
        or not (headers.content_type or "").startswith("application/json")
    ):
        return None
    message = request.message
    if not isinstance(message, dict) or message.keys() != {"jsonrpc", "id", "method", "params"}:
        return None
    request_id, params = message["id"], message["params"]
    if (
        message["jsonrpc"] != "2.0"
        or isinstance(request_id, bool)
        or not isinstance(request_id, (str, int))
        or not isinstance(params, dict)
        or not params.keys() <= {"name", "arguments", "_meta"}
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


class FastToolCall:
    """Answers a plain 2026-07-28 tools/call that `plain_call` recognised."""

    def __init__(self, registry: Registry, services: Services, server_info_stamp: dict[str, Any]) -> None:
        self.registry = registry
        self.services = services
        self.meta = {"io.modelcontextprotocol/serverInfo": server_info_stamp}

    async def __call__(self, request: Admitted, request_id: str | int, arguments: dict[str, Any], send: Send) -> None:
        assert request.tool is not None
        try:
            if request.denial is not None:
                raise request.denial
            context = self.services.tool_context(request.caller, request.base_url, request.headers.idempotency_key)
            result = tool_result(await invoke(self.registry, request.tool.name, arguments, context))
        except ServiceError as error:
            result = error_result(error)
        result["resultType"] = "complete"
        result["_meta"] = self.meta
        payload = orjson.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})
        await send_json(send, 200, payload, request.response_headers)
