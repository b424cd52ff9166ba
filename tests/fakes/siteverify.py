"""A stand-in for Cloudflare Turnstile's siteverify API, served by uvicorn on a free loopback port.

It answers as the documented test secrets do (developers.cloudflare.com/turnstile/troubleshooting/testing):
`1x…AA` passes, `2x…AA` fails with `invalid-input-response`, `3x…AA` reports the token spent. Like the
real service it spends a token on first use and replays its first answer to a request that repeats the
same idempotency key. It can also misbehave (answer 500, answer late, answer HTML, report
`internal-error`), and it keeps every request it received so tests can see what our client sent.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tests.fakes.loopback import LoopbackFake

PASS_SECRET = "1x0000000000000000000000000000000AA"
FAIL_SECRET = "2x0000000000000000000000000000000AA"
SPENT_SECRET = "3x0000000000000000000000000000000AA"
DUMMY_TOKEN = "XXXX.DUMMY.TOKEN.XXXX"
PATH = "/turnstile/v0/siteverify"

Misbehaviour = Literal["http_500", "slow", "not_json", "internal_error"]


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as the fake saw it."""

    content_type: str
    fields: dict[str, str]

    @property
    def secret(self) -> str | None:
        return self.fields.get("secret")

    @property
    def response(self) -> str | None:
        return self.fields.get("response")

    @property
    def remoteip(self) -> str | None:
        return self.fields.get("remoteip")

    @property
    def idempotency_key(self) -> str | None:
        return self.fields.get("idempotency_key")


def _failure(*codes: str) -> dict[str, Any]:
    return {"success": False, "error-codes": list(codes), "messages": []}


class FakeSiteverify(LoopbackFake):
    """Start with `start()` (or `with`); point the verifier at `url`; inspect `requests`."""

    name = "fake siteverify server"

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self.reset()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    def reset(self) -> None:
        """Forget spent tokens and received requests, behave again, release a request held by `slow`."""
        with self._lock:
            self.requests: list[ReceivedRequest] = []
            self.hostname = "example.com"
            self.action = ""
            self.delay_seconds = 30.0
            self._spent: set[str] = set()
            self._replies: dict[tuple[str, str], dict[str, Any]] = {}
            self._misbehaviour: Misbehaviour | None = None
            self._misbehave_left: int | None = None
            self._generation = getattr(self, "_generation", 0) + 1

    def misbehave(self, how: Misbehaviour, times: int | None = None) -> None:
        """Misbehave on the next `times` requests (every request when None). Each is still processed first,
        so a token is spent even when its answer is lost, as when a real answer goes missing on the way."""
        with self._lock:
            self._misbehaviour, self._misbehave_left = how, times

    def asgi_app(self) -> Starlette:
        return Starlette(routes=[Route(PATH, self._siteverify, methods=["POST"])])

    def stop(self) -> None:
        self.reset()  # releases a request held by `slow`
        super().stop()

    async def _siteverify(self, request: Request) -> Response:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith("application/json"):
            body = await request.json()
            fields = {str(k): str(v) for k, v in body.items()} if isinstance(body, dict) else {}
        else:
            form = await request.form()
            fields = {k: v for k, v in form.items() if isinstance(v, str)}
        with self._lock:
            self.requests.append(ReceivedRequest(content_type=content_type, fields=fields))
            answer = self._answer(fields)
            how = self._misbehaviour
            if how is not None and self._misbehave_left is not None:
                self._misbehave_left -= 1
                if self._misbehave_left <= 0:
                    self._misbehaviour = None
            generation = self._generation
        if how == "http_500":
            return PlainTextResponse("upstream failure", status_code=500)
        if how == "not_json":
            return HTMLResponse("<html><body>Please wait while we check your connection</body></html>")
        if how == "internal_error":
            return JSONResponse(_failure("internal-error"))
        if how == "slow":
            started = time.monotonic()
            # Polls rather than waits on an Event: reset() runs on the test's thread, not this server's loop.
            while time.monotonic() - started < self.delay_seconds and generation == self._generation:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        return JSONResponse(answer)

    def _answer(self, fields: dict[str, str]) -> dict[str, Any]:
        """The documented answer; spends the token. Called with the lock held."""
        secret, token, key = fields.get("secret"), fields.get("response"), fields.get("idempotency_key")
        if not secret:
            return _failure("missing-input-secret")
        if secret not in (PASS_SECRET, FAIL_SECRET, SPENT_SECRET):
            return _failure("invalid-input-secret")
        if not token:
            return _failure("missing-input-response")
        if len(token) > 2048:
            return _failure("invalid-input-response")
        if key and (key, token) in self._replies:
            return self._replies[(key, token)]
        if secret == FAIL_SECRET:
            answer = _failure("invalid-input-response")
        elif secret == SPENT_SECRET or token in self._spent:
            answer = _failure("timeout-or-duplicate")
        else:
            self._spent.add(token)
            answer = {
                "success": True,
                "challenge_ts": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "hostname": self.hostname,
                "error-codes": [],
                "action": self.action,
                "cdata": "",
                "metadata": {"interactive": False},
            }
        if key:
            self._replies[(key, token)] = answer
        return answer
