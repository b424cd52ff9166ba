"""MCP: every registry tool on `/mcp` (public) and `/mcp-pro` (API key), through the official SDK.

Both endpoints run the SDK's low-level `Server` in stateless, JSON-response mode, so any
worker can answer any request, on both protocol revisions (2025-11-25 with its handshake,
2026-07-28 without). Tool listings and schemas come from the registry; calls go through
`invoke`, and errors become `isError` results carrying the envelope REST returns. Each lab is
also a resource, `lab://<slug>` (mcp_resources.py), on both endpoints. The access
gate in front (surfaces/gate.py) has settled the caller, Host/Origin, body and limits; plain
`tools/call` requests (and `tools/list` on the handshake revisions) are answered by the fast
path in `mcp_fast.py`.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp import MCPError
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS, unsupported_protocol_version_rejection
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Send

from garage_tools import __version__
from garage_tools.access.body import replay
from garage_tools.access.caller import Tier
from garage_tools.registry import Registry
from garage_tools.services import Services
from garage_tools.surfaces.gate import Admitted
from garage_tools.surfaces.jsonrpc import INVALID_REQUEST
from garage_tools.surfaces.mcp_apps import EXTENSION_ID, SETTINGS, Views
from garage_tools.surfaces.mcp_elicit import ask_or_answer, can_elicit, missing_questions
from garage_tools.surfaces.mcp_encoding import call_result, jsonrpc_error, refusal
from garage_tools.surfaces.mcp_fast import LISTING_TTL_MS, FastPath, plain_message
from garage_tools.surfaces.mcp_listing import ToolListing
from garage_tools.surfaces.mcp_prompts import Prompts
from garage_tools.surfaces.mcp_resources import lab_resources, read_lab
from garage_tools.surfaces.responses import send_json

SERVER_NAME = "garage-door-tools"
SERVER_TITLE = "Garage Door Tools"
INSTRUCTIONS = (
    "Tools about residential garage doors for homeowners and the people helping them: diagnose a symptom "
    "(in words or from a photo), estimate a repair cost, find a local pro and their offers, browse door styles, "
    "show reference photos of parts, identify an opener, file a 24-point inspection, and open or cite the "
    "interactive labs (each lab is also a lab://<slug> resource). When a result has safetyFlag true or a diyRisk "
    "of 'unsafe', tell the user to stop using the door and call a professional."
)
_ADMITTED = "garage_tools.admitted"


def build_server(registry: Registry, services: Services) -> Server[Any]:
    """One low-level MCP server over the registry (one per endpoint: the SDK runs each once)."""
    listing = ToolListing(registry)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing(_admitted(ctx).base_url))

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        tool = registry.find(params.name)
        if tool is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        arguments: dict[str, Any] = dict(params.arguments or {})
        if missing_questions(tool, arguments) and can_elicit(ctx.protocol_version, ctx.session.client_capabilities):
            asked = ask_or_answer(tool, params)
            if isinstance(asked, types.InputRequiredResult):
                return asked
            arguments = asked
        result = await call_result(_admitted(ctx), params.name, arguments, registry, services)
        return types.CallToolResult.model_validate(result)

    labs = services.knowledge.labs
    views = Views(registry)
    resources = [*views.resources, *lab_resources(labs)]

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resources)

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return views.read(params.uri) or read_lab(labs, params.uri)

    prompts = Prompts(services.knowledge)

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=prompts.listing)

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
        admitted = _admitted(ctx)
        pro = admitted.caller.tier is Tier.PRO
        return prompts.get(params.name, params.arguments, pro=pro, base_url=admitted.base_url)

    async def complete(ctx: ServerRequestContext[Any], params: types.CompleteRequestParams) -> types.CompleteResult:
        return prompts.complete(params)

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=prompts.templates)

    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title=SERVER_TITLE,
        instructions=INSTRUCTIONS,
        cache_hints={
            method: CacheHint(ttl_ms=LISTING_TTL_MS, scope="public")
            for method in ("tools/list", "resources/list", "resources/read", "prompts/list", "resources/templates/list")
        },
        get_tool_input_schema=listing.input_schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_resource_templates=list_templates,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
    )
    server.extensions[EXTENSION_ID] = SETTINGS
    # The default middleware opens an OpenTelemetry span per message; we export no traces.
    server.middleware = []
    return server


def _admitted(ctx: ServerRequestContext[Any]) -> Admitted:
    """What the access gate settled about the request the SDK is answering."""
    request: Request | None = ctx.request
    if request is None or _ADMITTED not in request.scope:
        raise MCPError(code=types.INTERNAL_ERROR, message="The request did not pass the access gate.")
    admitted: Admitted = request.scope[_ADMITTED]
    return admitted


class McpSurface:
    """One MCP endpoint behind the gate: the fast path when it applies, the SDK otherwise."""

    def __init__(self, sdk: ASGIApp, fast: FastPath | None) -> None:
        self.sdk = sdk
        self.fast = fast

    async def __call__(self, request: Admitted, send: Send) -> None:
        request_id = request.message.get("id") if isinstance(request.message, dict) else None
        # The revision a request names (None: no header, or two), read once for this check and the fast path's.
        version = request.headers.mcp.get("mcp-protocol-version")
        if version is not None and version not in KNOWN_PROTOCOL_VERSIONS:
            # The SDK would answer this with a complaint about `params._meta`; same code and data, clearer words.
            rejection = unsupported_protocol_version_rejection(version)
            assert rejection is not None
            message = (
                f"Unsupported protocol version {version!r} in the MCP-Protocol-Version header. This server speaks "
                f"{', '.join(MODERN_PROTOCOL_VERSIONS)} per request, and "
                f"{', '.join(HANDSHAKE_PROTOCOL_VERSIONS)} through the initialize handshake."
            )
            body = jsonrpc_error(request_id, rejection.code, message, rejection.data)
            await send_json(send, ERROR_CODE_HTTP_STATUS.get(rejection.code, 400), body)
            return
        if request.invalid is not None:
            body = jsonrpc_error(None, INVALID_REQUEST, request.invalid)
            await send_json(send, ERROR_CODE_HTTP_STATUS.get(INVALID_REQUEST, 400), body)
            return
        if request.denial is not None and request.tool is None and request_id is not None:
            # A handshake or listing over the protocol guard's limit (tool calls answer as tool errors).
            await send_json(send, 200, refusal(request_id, request.denial), request.answer_headers())
            return
        if self.fast is not None and (plain := plain_message(request, version)) is not None:
            await self.fast(request, plain, send)
            return
        request.scope[_ADMITTED] = request

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start" and (extra := request.answer_headers()):
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        await self.sdk(request.scope, replay(request.body, request.receive), send_with_headers)


class McpServers:
    """The two MCP servers, their SDK endpoints and their lifespans."""

    def __init__(self, registry: Registry, services: Services, *, fast_path: bool) -> None:
        # Host and Origin are checked by the access gate for both MCP endpoints, with the service's
        # own messages and error envelope; the SDK's copy of that check is switched off.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        self.public = build_server(registry, services)
        self.pro = build_server(registry, services)
        self.surfaces: dict[str, McpSurface] = {}
        for server, path in ((self.public, "/mcp"), (self.pro, "/mcp-pro")):
            app = server.streamable_http_app(
                streamable_http_path=path, stateless_http=True, json_response=True, transport_security=security
            )
            (sdk_route,) = [r for r in app.routes if isinstance(r, Route)]
            fast = FastPath(registry, services, server.server_info_stamp, ToolListing(registry)) if fast_path else None
            self.surfaces[path] = McpSurface(sdk_route.app, fast)

    def session_managers(self) -> list[Any]:
        return [self.public.session_manager, self.pro.session_manager]
