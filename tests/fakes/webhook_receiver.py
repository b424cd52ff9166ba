"""A partner's webhook receiver on loopback: it verifies every delivery with the `standardwebhooks` library,
as a partner's own system would, and can be told to fail, or to hold a delivery without answering."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from tests.fakes.loopback import LoopbackFake


@dataclass
class Received:
    """One delivery as it arrived: its headers, its body, whether it verified, and what we answered."""

    headers: dict[str, str]
    body: bytes
    verified: Any  # the parsed event when the signature verified, else None
    status: int
    at: float = field(default_factory=time.monotonic)

    @property
    def webhook_id(self) -> str:
        return self.headers.get("webhook-id", "")


class WebhookReceiver(LoopbackFake):
    name = "webhook receiver"

    def __init__(self, secret: str = "") -> None:
        super().__init__()
        self.secret = secret
        self.fail_first = 0  # answer 500 to this many deliveries first
        self.always_fail = False
        self.hold = False  # keep deliveries waiting (no answer) until `let_go` is set
        self.holding = threading.Event()
        self.let_go = threading.Event()
        self.received: list[Received] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def asgi_app(self) -> ASGIApp:
        return Starlette(routes=[Route("/hooks", self._receive, methods=["POST"])])

    def verified(self) -> list[Received]:
        with self._lock:
            return [r for r in self.received if r.verified is not None and r.status == 200]

    async def _receive(self, request: Request) -> PlainTextResponse:
        body = await request.body()
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            event = Webhook(self.secret).verify(body, headers) if self.secret else None
        except WebhookVerificationError:
            event = None
        if self.hold:
            self.holding.set()
            await asyncio.to_thread(self.let_go.wait)  # the test sets it (a threading event: set from its thread)
        with self._lock:
            failing = self.always_fail or sum(1 for r in self.received if r.status == 500) < self.fail_first
            status = 500 if failing or event is None else 200
            self.received.append(Received(headers, body, event, status))
        text = "receiver is down for maintenance " + "x" * 2000 if status == 500 else "thanks"
        return PlainTextResponse(text, status_code=status)
