"""The front door: tool calls go straight to their access gates, everything else through Starlette.

Tool calls are the service's hot path, and Starlette's generic machinery in front of them (two
exception middlewares, the router's pattern matching, request state) costs about a third of what a
bare Starlette call does in all. So `/api/v1/<tool>` (but a GET), `/mcp` and `/mcp-pro` are recognised
here by their exact paths and handed to their gates' edges (`edge.py`), which apply the same CORS policy,
request id and last-resort error envelope the app's middleware applies to every other route. Anything
else, including the lifespan, a GET of a tool's path (a browser gets a page about the tool) and odd
shapes of those paths (a trailing slash, a root path), takes the ordinary route. The outer layer
(compression) sees a tool call's answer only when it would change it (`Outer.sender`), and the call is not
dispatched a second time inside it.

A path that differs from a route only by its trailing slash is redirected here too, not by Starlette's
router: Starlette writes the request's `Host` into `Location`, so any client could make the service send
a link to its own domain. These redirects carry a relative `Location` (the path and query alone), and a
redirect to an MCP path first passes the MCP `Host` check, as the call it leads to will.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from garage_tools.errors import HostNotAllowed, InternalError, InvalidText, incident
from garage_tools.headers import RequestHeaders
from garage_tools.inputs import check_target
from garage_tools.surfaces.responses import send_error

log = logging.getLogger("garage_tools.app")

REST_PREFIX = "/api/v1/"


def unexpected_error(method: str, path: str) -> InternalError:
    """Log the failure in hand, which no handler expected, once with its traceback and an incident id; what
    the caller sees instead (the id, no details). The path is cut: it is the caller's, of any length."""
    shown = path if len(path) <= 200 else path[:200] + "…"
    return incident(log, f"{method} {shown}")


class LastResort:
    """ASGI middleware (inside `RequestIds`, so the answer carries the request id): an exception a route did
    not expect becomes the 500 envelope with an incident id, logged once, and goes no further, so the server
    neither logs it again nor drops the connection (the client's next keep-alive request is answered)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await _answering_failures(self.app, scope, receive, send)


async def _answering_failures(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    started = False

    async def tracking_send(message: Message) -> None:
        nonlocal started
        started = started or message["type"] == "http.response.start"
        await send(message)

    try:
        await app(scope, receive, tracking_send)
    except Exception:
        error = unexpected_error(scope["method"], scope["path"])
        if not started:
            await send_error(error, send)


class Outer(Protocol):
    """A layer around both ways in (compression) that only acts on the answer: what it sends the answer through
    (`send` itself when it would leave the answer alone)."""

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Any: ...

    def sender(self, scope: Scope, send: Send) -> Send: ...


class Service(Starlette):
    """The Starlette app, with tool calls dispatched before its middleware and router."""

    _rest: ASGIApp | None = None
    _mcp: Mapping[str, ASGIApp] = {}
    _mcp_host_allowed: Callable[[str | None], bool] = staticmethod(lambda host: True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.router.redirect_slashes = False
        self._not_found = self.router.default
        self.router.default = self._slash_redirect_or_not_found
        self._entry: ASGIApp = self._dispatch
        self._outer: Outer | None = None

    def wrap_everything(self, outer: Callable[[ASGIApp], Outer]) -> None:
        """Put `outer` (compression) around both ways in: the tool calls and Starlette's middleware."""
        self._outer = outer(self._dispatch)
        self._entry = self._outer

    def route_tool_calls(
        self,
        *,
        rest: ASGIApp,
        mcp: Mapping[str, ASGIApp],
        mcp_host_allowed: Callable[[str | None], bool] | None = None,
    ) -> None:
        """Send `/api/v1/<tool>` to `rest` and each MCP path to its gate's edge (`edge.py`: CORS, request id, the
        last resort); `mcp_host_allowed` is the MCP `Host` check, applied also to a redirect to an MCP path."""
        self._rest = rest
        self._mcp = dict(mcp)
        if mcp_host_allowed is not None:
            self._mcp_host_allowed = mcp_host_allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            try:  # the one edge every request crosses: a path or query the service cannot keep goes no further
                check_target(scope["path"], scope.get("query_string", b""))
            except InvalidText as refused:
                await send_error(refused, send)
                return
            # A tool call's gate, found here without a call of its own (every tool call passes). A root path takes
            # the ordinary route, and a GET the router: a browser gets a page about the tool there, anyone else
            # this gate's 405.
            target = None
            if not scope.get("root_path"):
                path: str = scope["path"]
                target = self._mcp.get(path)
                rest = self._rest
                if target is None and rest is not None and scope["method"] != "GET" and path.startswith(REST_PREFIX):
                    tool = path[len(REST_PREFIX) :]
                    if tool and "/" not in tool:
                        scope["path_params"] = {"tool": tool}
                        target = rest
            if target is not None:
                await target(scope, receive, send if self._outer is None else self._outer.sender(scope, send))
                return
        await self._entry(scope, receive, send)

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Starlette's middleware and router: all but the tool calls, which `__call__` sent to their gates."""
        await super().__call__(scope, receive, send)

    async def _slash_redirect_or_not_found(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Redirect to the same path with or without its trailing slash when that is a route; else 404."""
        target = _other_slash(scope["path"]) if scope["type"] == "http" else None
        if target is not None and any(
            route.matches({**scope, "path": target})[0] is not Match.NONE for route in self.router.routes
        ):
            if target[len(scope.get("root_path", "")) :] in self._mcp:
                host = RequestHeaders.of(scope).host
                if not self._mcp_host_allowed(host):
                    await send_error(HostNotAllowed(f"This server does not answer to the host {host!r}."), send)
                    return
            query = scope.get("query_string", b"").decode("latin-1")
            location = f"{target}?{query}" if query else target
            await send(
                {
                    "type": "http.response.start",
                    "status": 307,
                    "headers": [(b"location", location.encode("latin-1")), (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        await self._not_found(scope, receive, send)


def _other_slash(path: str) -> str | None:
    """`path` with its trailing slash dropped, or one added; None for the root and for a path starting
    `//`, which a browser would read as a link to another host."""
    if path == "/" or path.startswith("//"):
        return None
    return path.rstrip("/") if path.endswith("/") else path + "/"
