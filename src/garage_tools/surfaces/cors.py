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


class OpenCors:
    def __init__(
        self,
        app: ASGIApp,
        *,
        allow_methods: Iterable[str],
        allow_headers: Iterable[str],
        expose_headers: Iterable[str] = (),
        max_age: int = 86400,
    ) -> None:
        self.app = app
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

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = RequestHeaders.of(scope)
        if headers.origin is None:
            await self.app(scope, receive, send)
            return
        if headers.preflight and scope["method"] == "OPTIONS":
            await send({"type": "http.response.start", "status": 204, "headers": self.preflight_headers})
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *self.simple_headers]
            await send(message)

        await self.app(scope, receive, send_with_cors)
