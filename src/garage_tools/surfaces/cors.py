"""CORS open to every origin, as a lean ASGI middleware.

The REST tools are meant to be called from any web page (contractor widgets, pages opened from
disk with `Origin: null`), and no credentials ride on cookies, so `Access-Control-Allow-Origin: *`
is the whole policy. Requests without an `Origin` header (servers, agents) pass straight through.
The MCP endpoints apply their own Origin allow-list on top (DNS-rebinding protection).
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from garage_tools.headers import RequestHeaders


class CorsPolicy:
    """The open policy's answers, built once: a preflight's headers, and those every cross-origin answer carries.

    Two layers apply it: `OpenCors` for the routes Starlette answers, and the tool calls' edge (`edge.py`)."""

    def __init__(
        self,
        *,
        allow_methods: Iterable[str],
        allow_headers: Iterable[str],
        expose_headers: Iterable[str] = (),
        max_age: int = 86400,
    ) -> None:
        self.preflight_headers = [
            (b"access-control-allow-origin", b"*"),
            (b"access-control-allow-methods", ", ".join(allow_methods).encode()),
            (b"access-control-allow-headers", ", ".join(allow_headers).encode()),
            (b"access-control-max-age", str(max_age).encode()),
            (b"content-length", b"0"),
        ]
        self.simple_headers = [(b"access-control-allow-origin", b"*")]
        exposed = ", ".join(expose_headers)
        if exposed:
            self.simple_headers.append((b"access-control-expose-headers", exposed.encode()))

    @staticmethod
    def is_preflight(scope: Scope, headers: RequestHeaders) -> bool:
        """A cross-origin `OPTIONS` asking which method it may use: answered here, never by a route."""
        return headers.preflight and headers.origin is not None and scope["method"] == "OPTIONS"

    async def answer_preflight(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": 204, "headers": self.preflight_headers})
        await send({"type": "http.response.body", "body": b""})


class OpenCors:
    """ASGI middleware applying `CorsPolicy` to every route behind it."""

    def __init__(self, app: ASGIApp, policy: CorsPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = RequestHeaders.of(scope)
        if headers.origin is None:
            await self.app(scope, receive, send)
            return
        if self.policy.is_preflight(scope, headers):
            await self.policy.answer_preflight(send)
            return
        added = self.policy.simple_headers

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *added]
            await send(message)

        await self.app(scope, receive, send_with_cors)
