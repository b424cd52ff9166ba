"""`create_app(settings)`: the one place that wires every part together.

A factory, not a module-level app: tests build a fresh app each time, and the MCP session
managers can be started only once per instance. uvicorn calls it with `--factory`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from garage_tools.errors import InternalError, MethodNotAllowed, NotFound, ServiceError
from garage_tools.services import Services, build_services
from garage_tools.settings import Settings
from garage_tools.surfaces.cors import OpenCors
from garage_tools.surfaces.discovery import Discovery
from garage_tools.surfaces.mcp import McpEndpoints
from garage_tools.surfaces.responses import error_response
from garage_tools.surfaces.rest import RestSurface

log = logging.getLogger(__name__)

CORS_HEADERS = [
    "Authorization",
    "Content-Type",
    "Accept",
    "Mcp-Protocol-Version",
    "Mcp-Session-Id",
    "Mcp-Method",
    "Mcp-Name",
    "Last-Event-ID",
]


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return error_response(NotFound(f"No resource at {request.url.path}. See /api/v1 for the tools."))
    if exc.status_code == 405:
        return error_response(
            MethodNotAllowed(f"{request.method} is not allowed here.", headers=dict(exc.headers or {}))
        )
    error = ServiceError(exc.detail)
    error.status = exc.status_code
    return error_response(error)


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(InternalError("An unexpected error occurred; it has been logged. Please try again later."))


def create_app(settings: Settings | None = None, services: Services | None = None) -> Starlette:
    """Build the ASGI app. With no arguments, settings come from the environment."""
    services = services or build_services(settings or Settings())
    rest = RestSurface(services)
    discovery = Discovery(services)
    mcp = McpEndpoints(services)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            await services.start()
            async with AsyncExitStack() as stack:
                for manager in mcp.session_managers():
                    await stack.enter_async_context(manager.run())
                yield
        finally:
            await services.close()

    routes = [
        Route("/api/v1/{tool}", rest, methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]),
        Route("/", lambda request: RedirectResponse("/docs"), methods=["GET"]),
        Route("/api/v1", discovery.index, methods=["GET"]),
        Route("/openapi.json", discovery.openapi, methods=["GET"]),
        Route("/llms.txt", discovery.llms, methods=["GET"]),
        Route("/docs", discovery.docs, methods=["GET"]),
        Route("/privacy", discovery.privacy, methods=["GET"]),
        Route("/healthz", discovery.health, methods=["GET"]),
        *mcp.routes,
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(
                OpenCors,
                allow_methods=["GET", "POST", "OPTIONS", "DELETE"],
                allow_headers=CORS_HEADERS,
                expose_headers=["Mcp-Session-Id", "WWW-Authenticate", "Retry-After"],
            )
        ],
        exception_handlers={HTTPException: _http_error, Exception: _unexpected},
        lifespan=lifespan,
    )
    app.state.services = services
    return app
