"""A stand-in for two model providers on one loopback port, served by uvicorn in a thread.

`POST /v1/chat/completions` answers in OpenAI's Chat Completions shape and `POST /v1/messages` in
Anthropic's Messages shape, so the real clients run unchanged: point an OpenAI-compatible client at
`openai_base_url` and an Anthropic one at `anthropic_base_url`.

What each request gets comes from a script: `queue(...)` lines up `Reply`s, one per request, and
once it is empty every request gets `default` (the text of a normal, successful reply). A `Reply`
can be model text, an HTTP error status with headers (429 with Retry-After, 500, 401), or a late
answer (for timeouts). `reject_response_format` makes the Chat Completions route refuse JSON mode
with a 400, as some local servers do. Every request is kept in `requests`, headers and JSON body,
so tests can check what the clients sent.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.loopback import LoopbackFake


@dataclass(frozen=True)
class Reply:
    """One scripted answer: model `text` with `status` 200, or an error `status` with an error body."""

    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float  # time.monotonic() when it arrived


class FakeLLM(LoopbackFake):
    """Start with `start()` (or `with`); script it with `queue` and `default`; read `requests`."""

    name = "fake model provider"

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self.reset()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    def reset(self) -> None:
        """Forget the script and the requests; release any request held by a delay."""
        with self._lock:
            self.requests: list[Received] = []
            self._script: deque[Reply] = deque()
            self.default = Reply(text='{"symptomKey": null, "confidence": 0.0}')
            self.reject_response_format = False
            self._generation = getattr(self, "_generation", 0) + 1

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    def asgi_app(self) -> Starlette:
        routes = [
            Route("/v1/chat/completions", self._chat_completions, methods=["POST"]),
            Route("/v1/messages", self._messages, methods=["POST"]),
        ]
        return Starlette(routes=routes)

    def stop(self) -> None:
        self.reset()  # releases a request held by a slow reply
        super().stop()

    async def _next(self, request: Request) -> tuple[Reply, dict[str, Any]]:
        body = await request.json()
        with self._lock:
            self.requests.append(Received(request.url.path, dict(request.headers), body, time.monotonic()))
            reply = self._script.popleft() if self._script else self.default
            generation = self._generation
        started = time.monotonic()
        # Polls rather than waits on an Event: reset() runs on the test's thread, not this server's loop.
        while time.monotonic() - started < reply.delay_seconds and generation == self._generation:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        return reply, body

    async def _chat_completions(self, request: Request) -> Response:
        reply, body = await self._next(request)
        if self.reject_response_format and "response_format" in body:
            message = "'response_format.type' must be 'json_schema' or 'text'"
            return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, status_code=400)
        if reply.status != 200:
            return _error(reply)
        return JSONResponse(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": reply.text}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    async def _messages(self, request: Request) -> Response:
        reply, body = await self._next(request)
        if reply.status != 200:
            return _error(reply)
        return JSONResponse(
            {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": [{"type": "text", "text": reply.text}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
        )


def _error(reply: Reply) -> Response:
    body = {"error": {"message": reply.text or f"fake error {reply.status}", "type": "fake_error"}}
    return JSONResponse(body, status_code=reply.status, headers=reply.headers)
