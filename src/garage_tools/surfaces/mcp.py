"""MCP: every registry tool on `/mcp` (public) and `/mcp-pro` (API key), through the official SDK.

Both endpoints run the SDK's low-level `Server` in stateless, JSON-response mode, so any
worker can answer any request, on both protocol revisions (2025-11-25 with its handshake,
2026-07-28 without). Tool listings and schemas come from the registry; calls go through
`invoke`, whose `ServiceError`s become `isError` results carrying the same envelope REST
returns. `/mcp-pro` is guarded by `CallerGate`, which answers HTTP 401 before the SDK runs; plain
2026-07-28 `tools/call` requests take the fast path in `mcp_fast.py`.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
import orjson
from mcp import MCPError
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from garage_tools import __version__
from garage_tools.access.callers import identify
from garage_tools.access.client_ip import client_ip
from garage_tools.errors import InvalidKey, ServiceError
from garage_tools.models import inline_images
from garage_tools.registry import AuthPolicy, Caller, Tool, ToolContext, dump, invoke
from garage_tools.services import Services
from garage_tools.surfaces.mcp_fast import FastToolCall
from garage_tools.surfaces.responses import error_response
from garage_tools.surfaces.urls import base_url

SERVER_NAME = "garage-door-tools"
INSTRUCTIONS = (
    "Tools about residential garage doors for homeowners and the people helping them: diagnose a symptom, "
    "estimate a repair cost, browse door styles. When a result has safetyFlag true or a diyRisk of 'unsafe', "
    "tell the user to stop using the door and call a professional."
)
TOOLS_LIST_TTL_MS = 5 * 60 * 1000
_CALLER = "garage_tools.caller"


def mcp_tool(tool: Tool[Any, Any]) -> types.Tool:
    """The MCP listing of a registry tool."""
    description = tool.description
    if tool.auth is AuthPolicy.BEARER:
        description += " Requires an API key: use /mcp-pro, or send 'Authorization: Bearer svc_live_…'."
    hints = tool.annotations
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=description,
        input_schema=tool.input_model.model_json_schema(by_alias=True),
        output_schema=tool.output_model.model_json_schema(by_alias=True, mode="serialization"),
        annotations=types.ToolAnnotations(
            title=tool.title,
            read_only_hint=hints.read_only,
            destructive_hint=hints.destructive,
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        ),
    )


def error_result(error: ServiceError) -> types.CallToolResult:
    text = orjson.dumps(error.envelope()).decode()
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def tool_result(result: BaseModel) -> types.CallToolResult:
    data = dump(result)
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=orjson.dumps(data).decode())]
    content += [types.ImageContent(type="image", data=i.data, mime_type=i.mime_type) for i in inline_images(result)]
    return types.CallToolResult(content=content, structured_content=data)


def build_server(services: Services) -> Server[Any]:
    """One low-level MCP server over the registry (one per endpoint: the SDK runs each once)."""
    registry = services.registry
    listing = [mcp_tool(tool) for tool in registry]
    schemas = {tool.name: tool.input_schema for tool in listing}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in registry:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        request: Request | None = ctx.request
        caller: Caller = request.scope[_CALLER] if request is not None else Caller.anonymous("mcp")
        base = base_url(services.settings, request.scope) if request is not None else ""
        try:
            result = await invoke(registry, params.name, params.arguments or {}, ToolContext(services, caller, base))
        except ServiceError as error:
            return error_result(error)
        return tool_result(result)

    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="Garage Door Tools",
        instructions=INSTRUCTIONS,
        cache_hints={"tools/list": CacheHint(ttl_ms=TOOLS_LIST_TTL_MS, scope="public")},
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    # The default middleware opens an OpenTelemetry span per message; we export no traces.
    server.middleware = []
    return server


class CallerGate:
    """ASGI wrapper that establishes the caller before the SDK sees the request.

    With `require_key` (the pro endpoint), a missing or invalid key is an HTTP 401 with
    `WWW-Authenticate: Bearer`. Without it (the public endpoint), the call goes on and an
    invalid key surfaces as an `invalid_key` tool error, so connectors never mistake the
    public endpoint for one that needs OAuth.
    """

    def __init__(
        self,
        app: ASGIApp,
        services: Services,
        *,
        surface: str,
        require_key: bool,
        fast: FastToolCall | None = None,
    ) -> None:
        self.app = app
        self.services = services
        self.surface = surface
        self.require_key = require_key
        self.fast = fast

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope = _trim_header_values(scope)
        caller = await identify(
            _header(scope, b"authorization"), surface=self.surface, ip=client_ip(scope), keys=self.services.keys
        )
        if self.require_key and caller.key_id is None:
            error = caller.credential_error or InvalidKey(
                "This endpoint needs an API key: send 'Authorization: Bearer svc_live_…'. "
                "Use /mcp for anonymous access."
            )
            error.headers = {"WWW-Authenticate": 'Bearer realm="garage-tools", error="invalid_token"'}
            await error_response(error)(scope, receive, send)
            return
        scope[_CALLER] = caller
        if self.fast is not None:
            await self.fast(scope, receive, send, caller)
        else:
            await self.app(scope, receive, send)


def _header(scope: Scope, name: bytes) -> str | None:
    return next((v.decode("latin-1") for k, v in scope["headers"] if k == name), None)


_OWS = b" \t"


def _trim_header_values(scope: Scope) -> Scope:
    """Drop leading and trailing whitespace from header values, as RFC 9110 (5.5) defines them.

    uvicorn's httptools parser keeps trailing spaces and the SDK compares `Mcp-Name`,
    `Mcp-Method` and `MCP-Protocol-Version` to the body verbatim, so `Mcp-Name: diagnose ` would
    be refused. The conformance suite's http-header-validation scenario checks exactly this.
    """
    headers = scope["headers"]
    if not any(value[:1] in (b" ", b"\t") or value[-1:] in (b" ", b"\t") for _, value in headers):
        return scope
    return {**scope, "headers": [(key, value.strip(_OWS)) for key, value in headers]}


class McpEndpoints:
    """The two MCP servers, their routes and their lifespans."""

    def __init__(self, services: Services) -> None:
        settings = services.settings
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=settings.dns_rebinding_protection,
            allowed_hosts=settings.mcp_allowed_hosts(),
            allowed_origins=settings.mcp_allowed_origins(),
        )
        self.public = build_server(services)
        self.pro = build_server(services)
        routes: list[Route] = []
        for server, path, require_key in ((self.public, "/mcp", False), (self.pro, "/mcp-pro", True)):
            app = server.streamable_http_app(
                streamable_http_path=path, stateless_http=True, json_response=True, transport_security=security
            )
            (sdk_route,) = [r for r in app.routes if isinstance(r, Route)]
            fast = FastToolCall(sdk_route.app, server, services, security) if settings.mcp_fast_path else None
            gate = CallerGate(sdk_route.app, services, surface=path.lstrip("/"), require_key=require_key, fast=fast)
            routes.append(Route(path, gate, methods=["GET", "POST", "DELETE"]))
        self.routes = routes

    def session_managers(self) -> list[Any]:
        return [self.public.session_manager, self.pro.session_manager]
