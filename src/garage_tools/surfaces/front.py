"""The front door: tool calls go straight to their access gates, everything else through Starlette.

Tool calls are the service's hot path, and Starlette's generic machinery in front of them (two
exception middlewares, the router's pattern matching, request state) costs about a third of what a
bare Starlette call does in all. So `POST /api/v1/<tool>`, `/mcp` and `/mcp-pro` are recognised
here by their exact paths and handed to their gates, wrapped in the same CORS policy and the same
last-resort error envelope the app applies to every other route. Anything else, including the
lifespan and odd shapes of those paths (a trailing slash, a root path), takes the ordinary route.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from garage_tools.errors import InternalError
from garage_tools.surfaces.responses import send_error

log = logging.getLogger("garage_tools.app")

REST_PREFIX = "/api/v1/"


def unexpected_error(method: str, path: str, exc: BaseException) -> InternalError:
    """Log a failure no handler expected, with its traceback; what the caller sees instead (no details)."""
    log.error("unhandled error on %s %s", method, path, exc_info=exc)
    return InternalError("An unexpected error occurred; it has been logged. Please try again later.")


class Service(Starlette):
    """The Starlette app, with tool calls dispatched before its middleware and router."""

    _rest: ASGIApp | None = None
    _mcp: Mapping[str, ASGIApp] = {}

    def route_tool_calls(
        self, *, rest: ASGIApp, mcp: Mapping[str, ASGIApp], wrap: Callable[[ASGIApp], ASGIApp]
    ) -> None:
        """Send `/api/v1/<tool>` to `rest` and each MCP path to its gate, each wrapped by `wrap` (CORS)."""
        self._rest = wrap(rest)
        self._mcp = {path: wrap(gate) for path, gate in mcp.items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        target = self._tool_call_target(scope) if scope["type"] == "http" else None
        if target is None:
            await super().__call__(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await target(scope, receive, tracking_send)
        except Exception as exc:
            error = unexpected_error(scope["method"], scope["path"], exc)
            if not started:
                await send_error(error, send)

    def _tool_call_target(self, scope: Scope) -> Any:
        if scope.get("root_path"):
            return None
        path: str = scope["path"]
        target = self._mcp.get(path)
        if target is None and self._rest is not None and path.startswith(REST_PREFIX):
            tool = path[len(REST_PREFIX) :]
            if tool and "/" not in tool:
                scope["path_params"] = {"tool": tool}
                target = self._rest
        return target
