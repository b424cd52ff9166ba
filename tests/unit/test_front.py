"""The front door dispatches tool calls straight to their gates, and leaves everything else to Starlette."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from garage_tools.app import with_cors
from garage_tools.surfaces.front import Service
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
    app.route_tool_calls(rest=rest, mcp={"/mcp": mcp, "/mcp-pro": mcp}, wrap=with_cors)
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
    assert any("unhandled error on POST /api/v1/diagnose" in r.getMessage() for r in caplog.records)
