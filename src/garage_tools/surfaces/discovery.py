"""What a newcomer (person or agent) reads first: the `/api/v1` index, `/llms.txt`, `/openapi.json`.

All of it is generated from the registry, so a new tool shows up here with no edit. `/docs` now redirects to
the interactive reference at `/developers/api` (see web/docs.py, with the changelog and the agent guide).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import Scope

from garage_tools import __version__
from garage_tools.access.limits import Limits
from garage_tools.access.limits_text import overview, plain_lines
from garage_tools.errors import ServiceUnavailable
from garage_tools.key_format import PREFIX
from garage_tools.registry import AuthPolicy, Registry
from garage_tools.services import Services
from garage_tools.store.database import RETRY_AFTER
from garage_tools.surfaces.openapi import openapi_document
from garage_tools.surfaces.responses import error_response, json_response
from garage_tools.surfaces.tool_docs import every_tool

API_REFERENCE = "/developers/api"


def tool_index(registry: Registry, base: str) -> dict[str, Any]:
    return {
        "version": "v1",
        "serviceVersion": __version__,
        "openapi": f"{base}/openapi.json",
        "mcp": {"public": f"{base}/mcp", "pro": f"{base}/mcp-pro"},
        "docs": f"{base}{API_REFERENCE}",
        "guide": f"{base}/ai",
        "changelog": f"{base}/developers/changelog",
        "tools": [
            {
                "name": tool.name,
                "title": tool.title,
                "summary": tool.summary,
                "auth": tool.auth.value,
                "method": "POST",
                "path": f"/api/v1/{tool.name}",
                "url": f"{base}/api/v1/{tool.name}",
                "docs": f"{base}{API_REFERENCE}#/tools/{tool.name}",
            }
            for tool in registry
        ],
    }


def llms_txt(registry: Registry, base: str, limits: Limits) -> str:
    lines = [
        "# Garage Door Tools",
        "",
        "> Tools about residential garage doors for homeowners and the agents helping them. REST and MCP, same",
        "> tools, same answers: " + every_tool(registry),
        "",
        f"- REST: POST {base}/api/v1/<tool> with a JSON object body; the response is the tool's value.",
        '- Errors: {"error": {"code", "message", "status"}} on every surface.',
        f"- OpenAPI 3.1: {base}/openapi.json",
        f"- MCP (streamable HTTP, no key): {base}/mcp",
        f"- MCP pro tier (Authorization: Bearer {PREFIX}..., or OAuth 2.1 per the MCP spec): {base}/mcp-pro",
        "- MCP on both tiers: tools, prompts (with completions), the labs as lab:// resources, and views for",
        "  hosts that render MCP Apps.",
        f"- MCP server card: {base}/.well-known/mcp/server-card.json; MCP Registry entry: {base}/server.json",
        "- Safety: when a result has safetyFlag true or diyRisk 'unsafe', tell the user to stop using the door",
        "  and call a professional.",
        "- Limits: 429 rate_limited and 503 service_unavailable carry Retry-After (seconds); wait that long.",
        "",
        "## Limits",
        "",
        *plain_lines(overview(limits)),
        "",
        "## Docs",
        "",
        f"- [Guide for AI agents]({base}/ai): which tool for which question, keys, limits, errors",
        f"- [Developer portal]({base}/developers): API keys (free during the beta)",
        f"- [Interactive API reference]({base}{API_REFERENCE})",
        f"- [Changelog (JSON Feed)]({base}/developers/changelog.json)",
        f"- [Privacy]({base}/privacy)",
        "",
        "## Tools",
        "",
    ]
    for tool in registry:
        key = " (API key required)" if tool.auth is AuthPolicy.BEARER else ""
        lines.append(f"- [{tool.name}]({base}/ai#{tool.name}){key}: {tool.summary}")
    return "\n".join(lines) + "\n"


class Discovery:
    def __init__(
        self, services: Services, registry: Registry, base_url: Callable[[Scope], str], limits: Limits
    ) -> None:
        self.services = services
        self.limits = limits
        self.registry = registry
        self.base_url = base_url
        self._openapi: dict[str, tuple[bytes, str]] = {}  # base URL -> the document and its ETag

    async def index(self, request: Request) -> Response:
        return json_response(tool_index(self.registry, self.base_url(request.scope)))

    async def openapi(self, request: Request) -> Response:
        """The document, built once per base URL. Its strong ETag lets the compression layer compress it once
        (about a ninth of its 80 KB gzipped: the API reference page loads it on every visit)."""
        base = self.base_url(request.scope)
        found = self._openapi.get(base)
        if found is None:
            plain = bytes(json_response(openapi_document(self.registry, base)).body)
            found = (plain, f'"{hashlib.sha256(plain).hexdigest()[:32]}"')
            if len(self._openapi) < 16:  # one per distinct base URL; bounded against Host spoofing
                self._openapi[base] = found
        return Response(found[0], media_type="application/json", headers={"ETag": found[1]})

    async def llms(self, request: Request) -> Response:
        return PlainTextResponse(llms_txt(self.registry, self.base_url(request.scope), self.limits))

    async def docs(self, request: Request) -> Response:
        """The old docs page's address: the interactive reference replaces it (308 keeps the method)."""
        return RedirectResponse(API_REFERENCE, status_code=308)

    async def health(self, request: Request) -> Response:
        return json_response({"status": "ok", "version": __version__, "tools": len(self.registry)})

    async def ready(self, request: Request) -> Response:
        """Readiness, unlike `/healthz` (liveness): 503 while the store does not answer, so a balancer skips us.

        Redis, when configured, is checked and reported too, but an unreachable Redis leaves the service
        ready ("degraded"): the limiter counts in process memory meanwhile, and taking every instance
        out of the balancer over a shared cache would turn its outage into a full one.
        """
        store, redis = await asyncio.gather(self.services.database.ping(), self.services.limiter.ping())
        checks = {"store": "ok" if store else "unreachable"}
        if redis is not None:
            checks["redis"] = "ok" if redis else "unreachable"
        if not store:
            states = ", ".join(f"{name}: {state}" for name, state in checks.items())
            message = f"The service's data store is not answering ({states}); retry shortly."
            return error_response(ServiceUnavailable(message, retry_after=RETRY_AFTER))
        return json_response({"status": "ready" if redis is not False else "degraded", "checks": checks})
