"""`GET /api/v1/<tool>` opened in a browser: a page about the tool, with an example call.

A tool is called with POST, so a developer who pastes a tool's address into the address bar used to get
a bare 405 envelope. A browser navigating there (`wants_html`) now gets a page that says what the tool
does, shows a call it would accept, and links to the tool in the interactive reference. Everyone else
(API clients, scripts) is handed to the REST gate and keeps its 405 with `Allow: POST`.
"""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from garage_tools.access.policy import Access
from garage_tools.registry import Registry
from garage_tools.surfaces.openapi import example_arguments
from garage_tools.web.docs import tool_guides
from garage_tools.web.pages import render, wants_html


class ToolPages:
    """The page for a browser, else the REST gate (`api`), at `GET /api/v1/{tool}`."""

    def __init__(self, access: Access, registry: Registry, api: ASGIApp) -> None:
        self.access = access
        self.api = api
        self.guides = {guide.tool.name: guide for guide in tool_guides(registry)}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if not wants_html(request):
            await self.api(scope, receive, send)
            return
        guide = self.guides.get(scope["path_params"]["tool"])
        if guide is None:
            await render(request, "not_found.html", {"path": request.url.path}, status=404)(scope, receive, send)
            return
        schema = guide.tool.input_model.model_json_schema(by_alias=True)
        context = {
            "base": self.access.base_url(scope),
            "guide": guide,
            # In single quotes on a shell line: a quote inside is closed, escaped and reopened.
            "example": json.dumps(example_arguments(schema), indent=2).replace("'", "'\\''"),
        }
        await render(request, "tool.html", context)(scope, receive, send)
