"""`create_app(settings)`: the one place that wires every part together.

A factory, not a module-level app: tests build a fresh app each time, and the MCP session
managers can be started only once per instance. uvicorn calls it with `--factory`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from garage_tools.access.client_ip import ClientAddressResolver
from garage_tools.access.limits import Limits
from garage_tools.access.origins import OriginPolicy
from garage_tools.access.policy import Access
from garage_tools.errors import MethodNotAllowed, NotFound, ServiceError
from garage_tools.lifetime import keep_for_life
from garage_tools.mail import mail_worker_running
from garage_tools.observability.metrics import RequestMetrics, worker_metrics
from garage_tools.observability.middleware import RequestIds
from garage_tools.partners.requests import sweeping
from garage_tools.registry import Registry
from garage_tools.services import Services, build_services
from garage_tools.settings import Settings
from garage_tools.surfaces.challenge import ChallengeAdvice
from garage_tools.surfaces.chat import ASK_TOOL, ChatGate, ChatSurface, get_model, list_models, send_chat_error
from garage_tools.surfaces.compression import Compression
from garage_tools.surfaces.cors import CorsPolicy, OpenCors
from garage_tools.surfaces.discovery import Discovery
from garage_tools.surfaces.edge import ToolCallEdge
from garage_tools.surfaces.front import LastResort, Service, unexpected_error
from garage_tools.surfaces.gate import McpGate, RestGate
from garage_tools.surfaces.mcp import McpServers
from garage_tools.surfaces.mcp_discovery import discovery_routes
from garage_tools.surfaces.oauth import oauth_routes
from garage_tools.surfaces.responses import error_response, send_error
from garage_tools.surfaces.rest import RestSurface
from garage_tools.surfaces.scrape import MetricsEndpoint
from garage_tools.surfaces.urls import BaseUrl
from garage_tools.tools import build_registry
from garage_tools.web.about import Contact, about_routes
from garage_tools.web.docs import docs_routes
from garage_tools.web.home import home_routes
from garage_tools.web.inspection import inspection_routes
from garage_tools.web.labs import lab_routes
from garage_tools.web.page_limits import PageLimits
from garage_tools.web.pages import STATIC, render, wants_html
from garage_tools.web.partners import partner_routes
from garage_tools.web.photos import photo_routes
from garage_tools.web.portal import connect, portal_routes
from garage_tools.web.privacy import privacy_routes
from garage_tools.web.service_requests import request_routes
from garage_tools.web.styles import style_routes
from garage_tools.web.tool_page import ToolPages
from garage_tools.web.widget import widget_routes

CORS_HEADERS = [
    "Authorization",
    "Content-Type",
    "Accept",
    "Idempotency-Key",
    "Mcp-Protocol-Version",
    "Mcp-Method",
    "Mcp-Name",
    "X-Request-Id",
]
#: The one CORS policy, for the app's middleware and for the tool calls the front door dispatches.
CORS: dict[str, Any] = {
    "allow_methods": ["GET", "POST", "OPTIONS"],
    "allow_headers": CORS_HEADERS,
    "expose_headers": ["WWW-Authenticate", "Retry-After", "RateLimit", "RateLimit-Policy", "X-Request-Id"],
}
#: The gated endpoints answer every method themselves (405 with `Allow: POST`, in the envelope).
ANY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        if wants_html(request):  # a person in a browser; API clients keep the JSON envelope
            return render(request, "not_found.html", {"path": request.url.path}, status=404)
        return error_response(NotFound(f"No resource at {request.url.path}. See /api/v1 for the tools."))
    if exc.status_code == 405:
        return error_response(
            MethodNotAllowed(f"{request.method} is not allowed here.", headers=dict(exc.headers or {}))
        )
    error = ServiceError(exc.detail)
    error.status = exc.status_code
    return error_response(error)


async def _unexpected(request: Request, exc: Exception) -> Response:
    return error_response(unexpected_error(request.method, request.url.path))


def build_access(services: Services, registry: Registry) -> Access:
    """The access policy of this app: keys, client addresses, origins, limits and the challenge."""
    settings = services.settings
    origins = OriginPolicy.from_settings(settings)
    return Access(
        keys=services.keys,
        apps=services.oauth,
        limiter=services.limiter,
        limits=Limits(settings, {tool.name: tool.usage_cap for tool in registry if tool.usage_cap is not None}),
        challenge=services.challenge,
        origins=origins,
        addresses=ClientAddressResolver(settings.trusted_proxies),
        base_url=BaseUrl(settings, origins),
        body_timeout=settings.body_timeout_seconds,
        usage=services.usage,
    )


def create_app(
    settings: Settings | None = None, services: Services | None = None, registry: Registry | None = None
) -> Starlette:
    """Build the ASGI app. With no arguments, settings come from the environment and the tools from `tools/`."""
    services = services or build_services(settings or Settings())
    registry = registry or build_registry()
    access = build_access(services, registry)
    mcp = McpServers(registry, services, fast_path=services.settings.mcp_fast_path)
    discovery = Discovery(services, registry, access.base_url, access.limits)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            await services.start()
            async with AsyncExitStack() as stack:
                stack.enter_context(worker_metrics())
                for manager in mcp.session_managers():
                    await stack.enter_async_context(manager.run())
                await stack.enter_async_context(mail_worker_running(services.settings, services.database))
                await stack.enter_async_context(
                    sweeping(services.tool_data.partners.requests, services.settings.request_sweep_seconds)
                )
                directory = services.tool_data.partners.directory
                await directory.places()  # the US places: a few ms
                keep_for_life(collect_first=True)  # the knowledge, indexes, schemas and places loaded so far
                directory.warm_up()  # the partner directory, from the store, while the server starts serving
                yield
        finally:
            await services.close()

    # Each gate has its edge (CORS, request id, last resort, one metrics observation) on either way in.
    cors = CorsPolicy(**CORS)
    rest_gate = ToolCallEdge(
        RestGate(access, registry, RestSurface(registry, services), send_error),
        RequestMetrics("rest", registry.names),
        cors,
        tool_param="tool",
    )
    mcp_gates = [
        ToolCallEdge(
            McpGate(access, registry, mcp.surfaces[path], send_error, name=path.lstrip("/"), pro=path == "/mcp-pro"),
            RequestMetrics(path.lstrip("/"), registry.names),
            cors,
        )
        for path in ("/mcp", "/mcp-pro")
    ]
    chat_gate = ToolCallEdge(
        ChatGate(access, registry, ChatSurface(registry, services), send_chat_error),
        RequestMetrics("chat", [ASK_TOOL]),
        cors,
    )
    metrics = MetricsEndpoint(services.outbox, services.limiter, services.settings.metrics_token)
    routes = [
        Route("/api/v1/{tool}", ToolPages(access, registry, rest_gate), methods=["GET"]),  # a browser: a page
        Route("/api/v1/{tool}", rest_gate, methods=ANY_METHOD),
        Route("/mcp", mcp_gates[0], methods=ANY_METHOD),
        Route("/mcp-pro", mcp_gates[1], methods=ANY_METHOD),
        Route("/v1/chat/completions", chat_gate, methods=ANY_METHOD),
        Route("/v1/models", list_models, methods=["GET"]),
        Route("/v1/models/{model}", get_model, methods=["GET"]),
        Route("/api/v1", discovery.index, methods=["GET"]),
        Route("/openapi.json", discovery.openapi, methods=["GET"]),
        Route("/llms.txt", discovery.llms, methods=["GET"]),
        *discovery_routes(access.base_url),
        Route("/docs", discovery.docs, methods=["GET"]),
        Route("/challenge", ChallengeAdvice(access).advise, methods=["GET"]),
        *privacy_routes(services.settings),
        *about_routes(services.settings),
        Route("/healthz", discovery.health, methods=["GET"]),
        Route("/readyz", discovery.ready, methods=["GET"]),
        Route("/metrics", metrics.scrape, methods=["GET"]),
        *home_routes(services, access, registry),
        *style_routes(services, access, registry),
        *docs_routes(access, registry),
        *portal_routes(services, access, registry),
        *oauth_routes(services.oauth, access, connect.problem_page, connect.refusal_page),
        *inspection_routes(services, access),
        *request_routes(services, access, registry),
        *partner_routes(services, access),
        *lab_routes(services, access),
        *photo_routes(services.photos),
        *widget_routes(services, access),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Service(
        routes=routes,
        middleware=[
            Middleware(RequestIds),
            Middleware(LastResort),
            Middleware(OpenCors, policy=cors),
            Middleware(PageLimits, access=access, counted_at_gates={"/v1/chat/completions"}),
        ],
        exception_handlers={HTTPException: _http_error, Exception: _unexpected},
        lifespan=lifespan,
    )
    app.route_tool_calls(
        rest=rest_gate,
        mcp=dict(zip(("/mcp", "/mcp-pro"), mcp_gates, strict=True)),
        mcp_host_allowed=access.origins.mcp_host_allowed,
    )
    app.wrap_everything(Compression)
    app.state.services = services
    app.state.contact = Contact.of(services.settings)  # every page's footer shows it (web/pages.py)
    app.state.registry = registry
    return app
