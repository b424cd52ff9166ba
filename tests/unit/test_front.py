"""The front door dispatches tool calls straight to their gates, and leaves everything else to Starlette."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from garage_tools.app import CORS, create_app
from garage_tools.observability.metrics import RequestMetrics
from garage_tools.settings import Settings
from garage_tools.surfaces.compression import Compression
from garage_tools.surfaces.cors import CorsPolicy
from garage_tools.surfaces.edge import ToolCallEdge
from garage_tools.surfaces.front import Service, _other_slash
from garage_tools.surfaces.responses import send_json


class Recorder:
    """A stand-in gate that answers 200 and remembers the paths it saw."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: list[tuple[str, Any]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.seen.append((scope["path"], scope.get("path_params")))
        await send_json(send, 200, f'{{"gate":"{self.name}"}}'.encode())


async def failing_gate(scope: Scope, receive: Receive, send: Send) -> None:
    raise RuntimeError("boom")


def routed(request: Any) -> PlainTextResponse:
    return PlainTextResponse("router")


def service(rest: Any, mcp: Any) -> Service:
    # The router answers every path itself, so any request that reaches it says "router".
    app = Service(routes=[Route("/{path:path}", routed, methods=["GET", "POST"])])
    cors = CorsPolicy(**CORS)
    edge_of_mcp = ToolCallEdge(mcp, RequestMetrics("mcp", ["diagnose"]), cors)
    app.route_tool_calls(
        rest=ToolCallEdge(rest, RequestMetrics("rest", ["diagnose"]), cors, tool_param="tool"),
        mcp={"/mcp": edge_of_mcp, "/mcp-pro": edge_of_mcp},
    )
    return app


def test_tool_calls_skip_the_router_and_carry_the_tool_name() -> None:
    rest, mcp = Recorder("rest"), Recorder("mcp")
    client = TestClient(service(rest, mcp))
    assert client.post("/api/v1/diagnose", json={}).json() == {"gate": "rest"}
    assert client.post("/mcp", json={}).json() == {"gate": "mcp"}
    assert client.post("/mcp-pro", json={}).json() == {"gate": "mcp"}
    assert rest.seen == [("/api/v1/diagnose", {"tool": "diagnose"})]
    assert [path for path, _ in mcp.seen] == ["/mcp", "/mcp-pro"]


@pytest.mark.parametrize("path", ["/api/v1/", "/api/v1/diagnose/", "/api/v1/a/b", "/mcp/", "/api/v1", "/developers"])
def test_other_paths_take_the_ordinary_route(path: str) -> None:
    rest, mcp = Recorder("rest"), Recorder("mcp")
    response = TestClient(service(rest, mcp)).post(path, follow_redirects=False)
    assert response.text == "router"
    assert rest.seen == mcp.seen == []


def test_dispatched_calls_get_the_cors_policy() -> None:
    client = TestClient(service(Recorder("rest"), Recorder("mcp")))
    answer = client.post("/api/v1/diagnose", json={}, headers={"Origin": "https://contractor.example"})
    assert answer.headers["access-control-allow-origin"] == "*"
    assert "RateLimit" in answer.headers["access-control-expose-headers"]
    preflight = client.options(
        "/api/v1/diagnose",
        headers={"Origin": "https://contractor.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 204
    assert "Authorization" in preflight.headers["access-control-allow-headers"]


def test_an_unexpected_failure_is_an_envelope_and_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    client = TestClient(service(failing_gate, Recorder("mcp")), raise_server_exceptions=False)
    with caplog.at_level(logging.ERROR, logger="garage_tools.app"):
        response = client.post("/api/v1/diagnose", json={})
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "internal_error"
    assert "boom" not in response.text
    assert len(response.headers["x-request-id"]) == 32  # the id to quote, as on every other answer
    assert any("POST /api/v1/diagnose failed (incident" in r.getMessage() for r in caplog.records)


def test_a_trailing_slash_redirect_never_carries_the_host_a_client_sent(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "var", mail_worker_in_process=False)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        developers = client.get("/developers/?tab=keys", headers={"Host": "evil.example"}, follow_redirects=False)
        assert developers.status_code == 307
        assert developers.headers["location"] == "/developers?tab=keys"
        # The MCP Host check (DNS rebinding) holds on the way to /mcp too: no redirect for an unknown host.
        refused = client.post("/mcp/", json={}, headers={"Host": "evil.example"}, follow_redirects=False)
        assert refused.status_code == 421
        assert refused.json()["error"]["code"] == "host_not_allowed"
        assert "location" not in refused.headers
        known = client.post("/mcp-pro/", json={}, follow_redirects=False)
        assert (known.status_code, known.headers["location"]) == (307, "/mcp-pro")
        assert client.get("/no-such-page/", follow_redirects=False).status_code == 404
    # A path starting `//` would read as another host in a relative Location: it is never redirected.
    assert _other_slash("//evil.example/") is None
    assert _other_slash("/mcp/") == "/mcp"


def test_a_get_of_a_tool_takes_the_router_where_a_browser_gets_a_page() -> None:
    rest, mcp = Recorder("rest"), Recorder("mcp")
    assert TestClient(service(rest, mcp)).get("/api/v1/diagnose").text == "router"
    assert rest.seen == []


class CountingOuter(Compression):
    """Compression that counts the requests that crossed it whole and the answers it took in hand."""

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.calls = 0
        self.answers = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.calls += 1
        await super().__call__(scope, receive, send)

    def sender(self, scope: Scope, send: Send) -> Send:
        chosen = super().sender(scope, send)
        self.answers += chosen is not send
        return chosen


def test_a_tool_call_goes_straight_to_its_gate_and_the_outer_layer_takes_only_an_answer_it_may_change() -> None:
    rest, mcp = Recorder("rest"), Recorder("mcp")
    app = service(rest, mcp)
    outer: list[CountingOuter] = []
    app.wrap_everything(lambda inner: outer.append(CountingOuter(inner)) or outer[-1])
    client = TestClient(app)
    assert client.post("/api/v1/diagnose", json={}, headers={"Accept-Encoding": "identity"}).status_code == 200
    assert client.post("/mcp", json={}, headers={"Accept-Encoding": "identity"}).status_code == 200
    assert (outer[0].calls, outer[0].answers) == (0, 0)  # the fast path: straight to the gates' edges, untouched
    gzip = client.post("/api/v1/diagnose", json={}, headers={"Accept-Encoding": "gzip"})
    assert gzip.status_code == 200 and gzip.headers["vary"] == "Accept-Encoding"  # the layer's, on the answer
    assert (outer[0].calls, outer[0].answers) == (0, 1)  # the call itself did not cross the layer
    assert client.get("/developers", headers={"Accept-Encoding": "identity"}).text == "router"
    assert (outer[0].calls, outer[0].answers) == (1, 2)  # a page crosses it whole (Vary: it may be cached)
    assert len(rest.seen) == 2 and len(mcp.seen) == 1
