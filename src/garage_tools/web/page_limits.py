"""One ceiling on everything that is not a tool call or a static file: pages, health checks, sign-in and OAuth.

Tool calls, MCP and the chat endpoint count against their plans at their gates (tool calls never reach
Starlette's stack; the chat endpoint is named to this middleware); every other request is counted here, per
client address, against the `pages` rule of the table (`access/limits.py`). The ceiling is generous (a page
with its styles and scripts is a handful of requests, and many homes share one address behind a carrier's NAT);
it is there so one client cannot make the service render, log and answer without end. A person in a browser gets
a short page that says how long to wait; any other client gets the envelope, both with `Retry-After`.
"""

from __future__ import annotations

from collections.abc import Collection

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from garage_tools.access.policy import Access
from garage_tools.errors import RateLimited
from garage_tools.surfaces.responses import send_error
from garage_tools.web.pages import render, wants_html

PAGES = "pages"
#: Not counted: the styles, scripts and pictures pages load (cached, cheap, and the wait page needs its styles).
FREE_PREFIXES = ("/static/",)


class PageLimits:
    """ASGI middleware: counts each HTTP request against the `pages` rule; a full rule answers 429."""

    def __init__(self, app: ASGIApp, access: Access, counted_at_gates: Collection[str] = ()) -> None:
        self.app = app
        self.access = access
        self.counted_at_gates = frozenset(counted_at_gates)  # paths whose gates count every call themselves

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] != "http" or path in self.counted_at_gates or path.startswith(FREE_PREFIXES):
            await self.app(scope, receive, send)
            return
        decision = await self.access.count_rule(PAGES, self.access.client_ip(scope))
        if decision.allowed:
            await self.app(scope, receive, send)
            return
        refused = self.access.refused(PAGES, decision)
        request = Request(scope)
        if wants_html(request):
            await _wait_page(request, refused, decision.retry_after)(scope, receive, send)
        else:
            await send_error(refused, send)


def _wait_page(request: Request, refused: RateLimited, seconds: int) -> ASGIApp:
    """The page a person sees: what happened and how long to wait, in their language, with the 429's headers."""
    sent = request.method not in ("GET", "HEAD")
    return render(request, "too_many.html", {"seconds": seconds, "sent": sent}, status=429, headers=refused.headers)
