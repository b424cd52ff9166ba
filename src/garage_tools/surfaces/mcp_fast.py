"""A fast path for the exchanges agents make most: a plain `tools/call` or `tools/list`
answered as JSON without the SDK's generic machinery.

A stateless `tools/call` is a single POST, and the SDK spends about 250 µs of CPU per call on
generic machinery (a dozen pydantic round trips, stdlib JSON, span and middleware plumbing)
around a tool that takes tens of microseconds; on the handshake revisions (2024-11-05 to
2025-11-25; `npx mcp-remote` negotiates 2025-06-18 and the Python SDK client 2025-11-25) it also
builds a transport per request, several times more. This path answers those exchanges directly
when, and only when, the request has exactly the plain shape below; anything else (another
method or revision, unknown tools, extra params or `_meta`, a cursor, `Mcp-Param-*` headers,
duplicated or unexpected routing headers, media types the SDK reads differently) goes to the
SDK untouched, body included. The access gate has already checked Host, Origin, media type,
size and limits for both paths. Answers match the SDK's: the test suite sends the same requests
with the fast path on and off and compares them, and the official conformance suite runs
against it on every revision.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import orjson
from starlette.types import Send

from garage_tools.registry import Registry
from garage_tools.services import Services
from garage_tools.surfaces.gate import Admitted
from garage_tools.surfaces.mcp_encoding import call_result, tool_result_json
from garage_tools.surfaces.mcp_listing import ToolListing
from garage_tools.surfaces.responses import send_json
from garage_tools.values import value

#: The per-request revision: routing headers and `_meta` on every message, no handshake.
REVISION = "2026-07-28"
#: Revisions that negotiate in an `initialize` handshake; after it, a call is a bare JSON-RPC message.
HANDSHAKE_REVISIONS = frozenset({"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"})
#: How long clients may reuse a listing or a lab's text (both change only with a deploy); the SDK
#: server declares it as its cache hint and this path repeats it.
LISTING_TTL_MS = 5 * 60 * 1000
_META_VERSION = "io.modelcontextprotocol/protocolVersion"
_META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_META_CLIENT = "io.modelcontextprotocol/clientInfo"
_ENVELOPE = frozenset({"jsonrpc", "id", "method"})
_ENVELOPE_WITH_PARAMS = _ENVELOPE | {"params"}


@value
class PlainMessage:
    """A request the fast path answers: its id, method, revision and (for a call) the arguments."""

    request_id: str | int
    method: str  # "tools/call" or "tools/list"
    revision: str
    arguments: dict[str, Any]


def plain_message(request: Admitted, version: str | None) -> PlainMessage | None:
    """The request as a `PlainMessage` when it has exactly a plain shape, else None (the SDK answers). `version`: its
    one `MCP-Protocol-Version` header (None: none, or more than one)."""
    headers = request.headers
    if headers.mcp_param or not _sdk_accepts_json(headers.accept) or not _sdk_json_body(headers.content_type):
        return None
    message = request.message
    if not isinstance(message, dict) or not _ENVELOPE <= message.keys() <= _ENVELOPE_WITH_PARAMS:
        return None
    request_id, method, params = message["id"], message["method"], message.get("params", {})
    if (
        message["jsonrpc"] != "2.0"
        or isinstance(request_id, bool)
        or not isinstance(request_id, (str, int))
        or not isinstance(params, dict)
    ):
        return None
    if version == REVISION:
        return _per_request_call(request, request_id, method, params)
    return _handshake_revision_message(request, version, request_id, method, params)


@lru_cache(maxsize=256)  # clients send a handful of distinct values; the cache is bounded for the rest
def _sdk_json_body(content_type: str | None) -> bool:
    """The SDK's own test of a request's media type: exactly `application/json` before any parameter.

    The gate admits any `application/*+json`; the SDK refuses those with 415, so they must reach it.
    """
    if content_type is None:
        return False
    return any(part.strip() == "application/json" for part in content_type.split(";", 1)[0].split(","))


@lru_cache(maxsize=256)
def _sdk_accepts_json(accept: str) -> bool:
    """The SDK's own reading of `Accept` for JSON responses: `application/json`, `application/*` or `*/*`."""
    for media_type in accept.split(","):
        if media_type.split(";", 1)[0].strip().lower() in ("application/json", "application/*", "*/*"):
            return True
    return False


def _per_request_call(
    request: Admitted, request_id: str | int, method: str, params: dict[str, Any]
) -> PlainMessage | None:
    """A 2026-07-28 `tools/call` or `tools/list`: routing headers that agree with the body, and the
    three `_meta` stamps."""
    headers = request.headers
    if method == "tools/list":
        if (
            len(headers.mcp) != 2
            or headers.mcp.get("mcp-method") != "tools/list"
            or params.keys() != {"_meta"}
            or not _plain_meta(params["_meta"])
        ):
            return None
        return PlainMessage(request_id, method, REVISION, {})
    # Each routing header once (`mcp` holds None for a repeated one); the version was checked on the way here.
    if (
        method != "tools/call"
        or request.tool is None
        or headers.mcp.get("mcp-method") != "tools/call"
        or headers.mcp.get("mcp-name") != request.tool.name
        or not params.keys() <= {"name", "arguments", "_meta"}
    ):
        return None
    arguments = params.get("arguments", {})
    if not isinstance(arguments, dict) or not _plain_meta(params.get("_meta")):
        return None
    return PlainMessage(request_id, method, REVISION, arguments)


def _plain_meta(meta: Any) -> bool:
    """Exactly the three stamps a 2026-07-28 client puts on every request, with no capabilities."""
    if not isinstance(meta, dict) or meta.keys() != {_META_VERSION, _META_CAPABILITIES, _META_CLIENT}:
        return False
    client = meta[_META_CLIENT]
    return (
        meta[_META_VERSION] == REVISION
        and meta[_META_CAPABILITIES] == {}
        and isinstance(client, dict)
        and isinstance(client.get("name"), str)
        and isinstance(client.get("version"), str)
    )


def _handshake_revision_message(
    request: Admitted, revision: str | None, request_id: str | int, method: str, params: dict[str, Any]
) -> PlainMessage | None:
    """A bare `tools/call` or `tools/list` after the handshake: one version header, no other routing header."""
    if revision not in HANDSHAKE_REVISIONS or len(request.headers.mcp) != 1:
        return None
    if method == "tools/list":
        return PlainMessage(request_id, method, revision, {}) if not params else None
    if method != "tools/call" or request.tool is None or not params.keys() <= {"name", "arguments"}:
        return None
    arguments = params.get("arguments", {})
    return PlainMessage(request_id, method, revision, arguments) if isinstance(arguments, dict) else None


class FastPath:
    """Answers the messages `plain_message` recognised, as the SDK would."""

    def __init__(
        self, registry: Registry, services: Services, server_info_stamp: dict[str, Any], listing: ToolListing
    ) -> None:
        self.registry = registry
        self.services = services
        self.listing = listing
        self.meta = {"io.modelcontextprotocol/serverInfo": server_info_stamp}
        self._listings: dict[tuple[str, str], orjson.Fragment] = {}

    def listing_json(self, revision: str, base: str) -> orjson.Fragment:
        """The listing for a revision and base URL, encoded once (it is fixed for the life of the process).

        The handshake revisions' ListToolsResult has no fields but `tools`; 2026-07-28 adds cache hints,
        resultType and _meta.
        """
        key = (revision, base)
        encoded = self._listings.get(key)
        if encoded is None:
            tools = [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in self.listing(base)]
            result: dict[str, Any] = {"tools": tools}
            if revision == REVISION:
                result |= {
                    "cacheScope": "public",
                    "ttlMs": LISTING_TTL_MS,
                    "resultType": "complete",
                    "_meta": self.meta,
                }
            if len(self._listings) >= 64:
                self._listings.clear()
            encoded = self._listings[key] = orjson.Fragment(orjson.dumps(result))
        return encoded

    async def __call__(self, request: Admitted, message: PlainMessage, send: Send) -> None:
        if message.method == "tools/list":
            result: Any = self.listing_json(message.revision, request.base_url)
        else:
            assert request.tool is not None
            result = await call_result(
                request, request.tool.name, message.arguments, self.registry, self.services, tool_result_json
            )
            if message.revision == REVISION:
                result["resultType"] = "complete"
                result["_meta"] = self.meta
        payload = orjson.dumps({"jsonrpc": "2.0", "id": message.request_id, "result": result})
        await send_json(send, 200, payload, request.answer_headers())
