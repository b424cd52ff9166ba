"""What a newcomer (person or agent) reads first: the `/api/v1` index, `/llms.txt`, `/docs`, `/openapi.json`.

All of it is generated from the registry, so a new tool shows up here with no edit.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.types import Scope

from garage_tools import __version__
from garage_tools.errors import ServiceUnavailable
from garage_tools.registry import AuthPolicy, Registry
from garage_tools.services import Services
from garage_tools.store.database import RETRY_AFTER
from garage_tools.surfaces.openapi import openapi_document
from garage_tools.surfaces.responses import error_response, json_response


def tool_index(registry: Registry, base: str) -> dict[str, Any]:
    return {
        "version": "v1",
        "serviceVersion": __version__,
        "openapi": f"{base}/openapi.json",
        "mcp": {"public": f"{base}/mcp", "pro": f"{base}/mcp-pro"},
        "docs": f"{base}/docs",
        "tools": [
            {
                "name": tool.name,
                "title": tool.title,
                "summary": tool.summary,
                "auth": tool.auth.value,
                "method": "POST",
                "path": f"/api/v1/{tool.name}",
                "url": f"{base}/api/v1/{tool.name}",
                "docs": f"{base}/docs#{tool.name}",
            }
            for tool in registry
        ],
    }


def llms_txt(registry: Registry, base: str) -> str:
    lines = [
        "# Garage Door Tools",
        "",
        "> Tools about residential garage doors for homeowners and the agents helping them: diagnose a symptom,",
        "> estimate a repair cost, browse door styles. REST and MCP, same tools, same answers.",
        "",
        f"- REST: POST {base}/api/v1/<tool> with a JSON object body; the response is the tool's value.",
        '- Errors: {"error": {"code", "message", "status"}} on every surface.',
        f"- OpenAPI 3.1: {base}/openapi.json",
        f"- MCP (streamable HTTP, no key): {base}/mcp",
        f"- MCP pro tier (Authorization: Bearer svc_live_...): {base}/mcp-pro",
        "- Safety: when a result has safetyFlag true or diyRisk 'unsafe', tell the user to stop using the door",
        "  and call a professional.",
        "",
        "## Tools",
        "",
    ]
    for tool in registry:
        key = " (API key required)" if tool.auth is AuthPolicy.BEARER else ""
        lines.append(f"- [{tool.name}]({base}/docs#{tool.name}){key}: {tool.summary}")
    return "\n".join(lines) + "\n"


def docs_html(registry: Registry, base: str) -> str:
    sections = []
    for tool in registry:
        key = "API key required" if tool.auth is AuthPolicy.BEARER else "No key needed (a key raises your limits)"
        sections.append(
            f'<section id="{html.escape(tool.name)}"><h2>{html.escape(tool.title)} '
            f"<code>{html.escape(tool.name)}</code></h2>"
            f"<p>{html.escape(tool.description)}</p>"
            f"<p><strong>{key}.</strong> <code>POST {html.escape(base)}/api/v1/{html.escape(tool.name)}</code></p>"
            "</section>"
        )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Garage Door Tools: API docs</title>"
        "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}"
        "code{background:#f3f3f3;padding:0 .25em}section{border-top:1px solid #ddd;margin-top:1.5rem}</style>"
        "</head><body><h1>Garage Door Tools</h1>"
        f"<p>REST: <code>POST {html.escape(base)}/api/v1/&lt;tool&gt;</code> with a JSON object. "
        f'<a href="{html.escape(base)}/openapi.json">OpenAPI 3.1</a> · MCP: <code>{html.escape(base)}/mcp</code> '
        f"(public) and <code>{html.escape(base)}/mcp-pro</code> (API key). "
        f'<a href="{html.escape(base)}/privacy">Privacy</a></p>' + "".join(sections) + "</body></html>"
    )


PRIVACY_HTML = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Privacy: Garage Door Tools</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}</style></head>
<body><h1>Privacy</h1>
<p>The tools answer from the request alone. Descriptions, ZIP codes and door sizes you send are used to compute
the answer and are not stored or shared. The client IP address is used for rate limiting only.</p>
<p>When you create an API key we store your e-mail address, the key's name and a one-way hash of the key, never
the key itself. You can revoke a key at any time.</p>
</body></html>"""


class Discovery:
    def __init__(self, services: Services, registry: Registry, base_url: Callable[[Scope, str | None], str]) -> None:
        self.services = services
        self.registry = registry
        self.base_url = base_url
        self._openapi: dict[str, bytes] = {}

    async def index(self, request: Request) -> Response:
        return json_response(tool_index(self.registry, self.base_url(request.scope, None)))

    async def openapi(self, request: Request) -> Response:
        base = self.base_url(request.scope, None)
        body = self._openapi.get(base)
        if body is None:
            response = json_response(openapi_document(self.registry, base))
            if len(self._openapi) < 16:  # one per distinct base URL; bounded against Host spoofing
                self._openapi[base] = bytes(response.body)
            return response
        return Response(body, media_type="application/json")

    async def llms(self, request: Request) -> Response:
        return PlainTextResponse(llms_txt(self.registry, self.base_url(request.scope, None)))

    async def docs(self, request: Request) -> Response:
        return HTMLResponse(docs_html(self.registry, self.base_url(request.scope, None)))

    async def privacy(self, request: Request) -> Response:
        return HTMLResponse(PRIVACY_HTML)

    async def health(self, request: Request) -> Response:
        return json_response({"status": "ok", "version": __version__, "tools": len(self.registry)})

    async def ready(self, request: Request) -> Response:
        """Readiness, unlike `/healthz` (liveness): 503 while the store does not answer, so a balancer skips us."""
        if await self.services.database.ping():
            return json_response({"status": "ready", "checks": {"store": "ok"}})
        message = "The service's data store is not answering; retry shortly."
        return error_response(ServiceUnavailable(message, retry_after=RETRY_AFTER))
