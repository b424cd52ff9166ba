"""The edge of a tool endpoint: the one layer in front of its access gate, whichever way the call came in.

A tool call that comes in by the front door (`front.py`) skips Starlette's middleware, so this layer does
what that middleware does for every other route, with one `send` wrapper where the middleware stack had
four layers and three wrappers (a tenth of a REST call's time in process):

* CORS, by the same policy (`cors.py`): a preflight answered here, the allow headers on every answer;
* the request id (`observability/request_id.py`): begun, and echoed as `X-Request-Id`;
* the last resort (`front.py`): a failure no layer expected is the 500 envelope, with the request id;
* one metrics observation under the tool and status.

A call the router brings (a tool path Starlette answers, `/v1/chat/completions`) has crossed that
middleware already, which began its record: then this layer only observes.
"""

from __future__ import annotations

from time import perf_counter

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from garage_tools.headers import RequestHeaders
from garage_tools.observability.metrics import RequestMetrics
from garage_tools.observability.request_id import HEADER, SCOPE_KEY, RequestRecord, begin_request
from garage_tools.surfaces.cors import CorsPolicy
from garage_tools.surfaces.front import unexpected_error
from garage_tools.surfaces.responses import send_error


class ToolCallEdge:
    """ASGI wrapper of one tool endpoint's gate; see the module's docstring."""

    def __init__(
        self, gate: ASGIApp, metrics: RequestMetrics, cors: CorsPolicy, *, tool_param: str | None = None
    ) -> None:
        self.gate = gate
        self.metrics = metrics
        self.cors = cors
        self.tool_param = tool_param

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = perf_counter()
        record: RequestRecord | None = scope.get(SCOPE_KEY)
        if record is not None:  # through the router: the app's middleware did the rest
            if self.tool_param is not None:
                record.tool = scope["path_params"][self.tool_param]
            try:
                await self.gate(scope, receive, send)
            finally:
                self.metrics.observe(record.tool, record.status, perf_counter() - started)
            return
        headers = RequestHeaders.of(scope)
        if headers.origin is not None and self.cors.is_preflight(scope, headers):
            await self.cors.answer_preflight(send)
            return
        record = begin_request(scope, headers)
        if self.tool_param is not None:
            record.tool = scope["path_params"][self.tool_param]
        echoed = (HEADER, record.id.encode("latin-1"))
        added = [echoed] if headers.origin is None else [echoed, *self.cors.simple_headers]
        responded = False

        async def send_observed(message: Message) -> None:
            nonlocal responded
            if message["type"] == "http.response.start":
                responded = True
                record.status = message["status"]
                message["headers"] = [*message.get("headers", ()), *added]
            await send(message)

        try:
            await self.gate(scope, receive, send_observed)
        except Exception:
            error = unexpected_error(scope["method"], scope["path"])
            if not responded:
                await send_error(error, send_observed)
        finally:
            self.metrics.observe(record.tool, record.status, perf_counter() - started)
