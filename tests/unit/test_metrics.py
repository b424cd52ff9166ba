"""Metrics in one process: what a tool call, a refusal, a provider call and a delivery record, and `/metrics`.

The metrics live in prometheus_client's process-wide registry, so each test reads a sample before and
after and checks the difference. Several workers adding up through PROMETHEUS_MULTIPROC_DIR are
tested against a real `serve --workers 2` in tests/e2e/test_observability.py.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY, CollectorRegistry, Histogram
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.utils import floatToGoString
from starlette.testclient import TestClient

from garage_tools import __version__
from garage_tools.access.ratelimit import Policy, RateLimiter
from garage_tools.app import create_app
from garage_tools.mail import Mail, MailWorker, Outbox
from garage_tools.mail.transports import FileTransport
from garage_tools.observability.metrics import (
    MULTIPROCESS_ENV,
    REQUEST_BUCKETS,
    RequestMetrics,
    record_provider_call,
)
from garage_tools.observability.multiprocess import shared_metrics_directory
from garage_tools.settings import Settings
from garage_tools.store.database import Database
from tests.fakes.clock import FakeClock

LOCAL = "http://127.0.0.1"
TOKEN = "metrics-token-for-tests"
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Mcp-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "diagnose",
}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def requests_seen(tool: str, surface: str, status: int) -> float:
    labels = {"tool": tool, "surface": surface, "status": str(status)}
    return sample("garage_tools_request_duration_seconds_count", **labels)


def settings(tmp_path: Path, **changes: Any) -> Settings:
    return Settings(data_dir=tmp_path / "var", mail_worker_in_process=False, **changes)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(settings(tmp_path, metrics_token=TOKEN)), base_url=LOCAL) as test_client:
        yield test_client


def scrape(client: TestClient) -> dict[str, Any]:
    """The samples of one scrape, as {(name, sorted labels): value}."""
    response = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


# -- tool calls -----------------------------------------------------------------------------------


def test_rest_calls_are_observed_under_their_tool_surface_and_status(client: TestClient) -> None:
    ok, missing = requests_seen("diagnose", "rest", 200), requests_seen("_unknown", "rest", 404)
    wrong_method = requests_seen("diagnose", "rest", 405)

    assert client.post("/api/v1/diagnose", json={"description": "the door makes a loud bang"}).status_code == 200
    assert client.post("/api/v1/diagnose", json={"description": "the opener hums"}).status_code == 200
    assert client.post("/api/v1/no-such-tool", json={}).status_code == 404
    assert client.get("/api/v1/diagnose").status_code == 405

    assert requests_seen("diagnose", "rest", 200) == ok + 2
    assert requests_seen("_unknown", "rest", 404) == missing + 1
    assert requests_seen("diagnose", "rest", 405) == wrong_method + 1


def test_mcp_calls_are_observed_under_the_tool_their_body_names(client: TestClient) -> None:
    before = requests_seen("diagnose", "mcp", 200)
    handshake = requests_seen("_none", "mcp", 200)
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    params = {"name": "diagnose", "arguments": {"description": "the door reverses"}, "_meta": META}

    answer = client.post("/mcp", json={**message, "params": params}, headers=MCP_HEADERS)
    assert answer.status_code == 200 and answer.json()["result"]["isError"] is False
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}}
    headers = {**MCP_HEADERS, "Mcp-Method": "tools/list"}
    del headers["Mcp-Name"]
    assert client.post("/mcp", json=listing, headers=headers).status_code == 200

    assert requests_seen("diagnose", "mcp", 200) == before + 1
    assert requests_seen("_none", "mcp", 200) == handshake + 1


def test_unknown_tool_names_share_one_label_and_never_grow_the_cache() -> None:
    metrics = RequestMetrics("rest", ["diagnose"])
    before = requests_seen("_unknown", "rest", 404)
    for n in range(50):
        metrics.observe(f"made-up-{n}", 404, 0.001)
    metrics.observe("diagnose", 200, 0.001)
    metrics.observe("diagnose", 200, 0.002)
    assert requests_seen("_unknown", "rest", 404) == before + 50
    assert list(metrics._children) == [("diagnose", 200)]


# -- rate limits, providers, mail -----------------------------------------------------------------


async def test_rate_limit_refusals_are_counted_under_the_full_window() -> None:
    limiter = RateLimiter()
    policy = Policy.parse("metrics-test", "2/minute;100/day")
    before = sample("garage_tools_rate_limit_rejections_total", policy="metrics-test-minute")
    results = [(await limiter.check("198.51.100.7", [policy])).allowed for _ in range(4)]
    assert results == [True, True, False, False]
    assert not (await limiter.peek("198.51.100.7", [policy])).allowed
    assert sample("garage_tools_rate_limit_rejections_total", policy="metrics-test-minute") == before + 3
    assert sample("garage_tools_rate_limit_rejections_total", policy="metrics-test-day") == 0.0


def test_provider_calls_record_latency_and_failures_by_outcome() -> None:
    labels = {"provider": "stand-in", "operation": "complete_json"}
    calls = "garage_tools_provider_call_duration_seconds_count"
    errors = "garage_tools_provider_errors_total"
    record_provider_call("stand-in", "complete_json", 0.4, "ok")
    record_provider_call("stand-in", "complete_json", 2.0, "timeout")
    record_provider_call("stand-in", "complete_json", 0.1, "ConnectError: secret-host refused")
    assert sample(calls, **labels, outcome="ok") == 1
    assert sample(calls, **labels, outcome="timeout") == 1
    assert sample(calls, **labels, outcome="error") == 1  # free text never becomes a label
    assert sample(errors, **labels, outcome="ok") == 0
    assert sample(errors, **labels, outcome="timeout") == sample(errors, **labels, outcome="error") == 1
    assert sample("garage_tools_provider_call_duration_seconds_sum", **labels, outcome="ok") == pytest.approx(0.4)


class RefusingTransport:
    deadline = 5.0

    def describe(self) -> str:
        return "nowhere"

    async def send(self, message: EmailMessage, *, sender: str, recipient: str) -> None:
        raise ConnectionRefusedError("the SMTP server is down")


async def test_mail_deliveries_are_counted_by_outcome(database: Database, tmp_path: Path) -> None:
    outbox = Outbox(database, clock=FakeClock())
    sent, retrying = (sample("garage_tools_mail_deliveries_total", outcome=o) for o in ("sent", "retrying"))
    mail = Mail(to="owner@example.com", subject="Report", text="Your door passed.", kind="inspection_report")
    await outbox.submit(mail)
    await MailWorker(outbox, RefusingTransport(), sender="no-reply@example.com").run_once()
    assert sample("garage_tools_mail_deliveries_total", outcome="retrying") == retrying + 1

    await outbox.submit(mail)
    await MailWorker(outbox, FileTransport(tmp_path / "mail"), sender="no-reply@example.com").run_once()
    assert sample("garage_tools_mail_deliveries_total", outcome="sent") == sent + 1


# -- the /metrics endpoint ------------------------------------------------------------------------


def test_metrics_need_the_bearer_token_when_one_is_set(client: TestClient) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
        refused = client.get("/metrics", headers=headers)
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "auth_required"
        assert refused.headers["WWW-Authenticate"].startswith("Bearer")
        assert TOKEN not in refused.text
    assert client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_metrics_are_open_without_a_token_and_stay_out_of_the_api_description(tmp_path: Path) -> None:
    with TestClient(create_app(settings(tmp_path)), base_url=LOCAL) as client:
        assert client.get("/metrics").status_code == 200
        assert "/metrics" not in client.get("/openapi.json").json()["paths"]
        assert "/metrics" not in client.get("/api/v1").text


def test_the_scrape_reports_the_outbox_depth_from_the_store(client: TestClient) -> None:
    samples = scrape(client)
    assert samples["garage_tools_worker_start_time_seconds", (("version", __version__),)] > 0  # set by the lifespan
    assert samples["garage_tools_store_up", ()] == 1
    assert samples["garage_tools_outbox_messages", (("status", "pending"),)] == 0
    assert ("garage_tools_redis_up", ()) not in samples  # no Redis configured

    outbox: Outbox = client.app.state.services.outbox  # type: ignore[attr-defined]
    mail = Mail(to="owner@example.com", subject="Report", text="Your door passed.", kind="inspection_report")
    client.portal.call(outbox.submit, mail)  # type: ignore[union-attr]
    client.portal.call(outbox.submit, mail)  # type: ignore[union-attr]

    samples = scrape(client)
    assert samples["garage_tools_outbox_messages", (("status", "pending"),)] == 2
    assert samples["garage_tools_outbox_messages", (("status", "dead"),)] == 0
    assert samples["garage_tools_outbox_oldest_waiting_seconds", ()] >= 0
    assert "owner@example.com" not in client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text


@pytest.mark.parametrize(("url", "up"), [("redis://127.0.0.1:6379/0", 1), ("redis://127.0.0.1:1/0", 0)])
def test_the_scrape_says_whether_redis_answers(tmp_path: Path, url: str, up: int) -> None:
    with TestClient(create_app(settings(tmp_path, redis_url=url)), base_url=LOCAL) as client:
        assert scrape_open(client)["garage_tools_redis_up", ()] == up


def scrape_open(client: TestClient) -> dict[str, Any]:
    text = client.get("/metrics").text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


# -- the shared directory of several workers ------------------------------------------------------


def test_serve_makes_and_removes_a_directory_for_several_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MULTIPROCESS_ENV, raising=False)
    with shared_metrics_directory(1) as none:
        assert none is None and MULTIPROCESS_ENV not in os.environ
    with shared_metrics_directory(2) as made:
        assert made is not None and made.is_dir()
        assert os.environ[MULTIPROCESS_ENV] == str(made)
        (made / "counter_123.db").write_bytes(b"")  # as a worker would
    assert not made.exists()
    assert MULTIPROCESS_ENV not in os.environ


def test_an_operators_directory_is_used_as_given_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    given = tmp_path / "metrics"
    monkeypatch.setenv(MULTIPROCESS_ENV, str(given))
    with shared_metrics_directory(4) as used:
        assert used == given and given.is_dir()
    assert given.is_dir()
    assert os.environ[MULTIPROCESS_ENV] == str(given)


def test_a_request_lands_in_the_bucket_histogram_observe_would_put_it_in() -> None:
    """`RequestMetrics` increments the child's values itself: the exposition must be what `observe` makes, for
    values on, just under and just over every bound."""
    values = [0.0, 100.0]
    for bound in REQUEST_BUCKETS:
        values += [bound, math.nextafter(bound, 0.0), math.nextafter(bound, math.inf)]
    labels = {"tool": "diagnose", "surface": "bucket-test", "status": "200"}
    twin = Histogram("twin_seconds", "the same buckets", buckets=REQUEST_BUCKETS, registry=CollectorRegistry())
    metrics = RequestMetrics("bucket-test", ["diagnose"])
    for value in values:
        metrics.observe("diagnose", 200, value)
        twin.observe(value)

    expected = {s.labels["le"]: s.value for s in twin.collect()[0].samples if s.name == "twin_seconds_bucket"}
    for bound in [*REQUEST_BUCKETS, math.inf]:
        le = floatToGoString(bound)
        assert sample("garage_tools_request_duration_seconds_bucket", **labels, le=le) == expected[le], le
    assert sample("garage_tools_request_duration_seconds_sum", **labels) == pytest.approx(sum(values))
    assert sample("garage_tools_request_duration_seconds_count", **labels) == len(values)
