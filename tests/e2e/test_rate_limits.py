"""Rate limits as the spec's table says, on REST and MCP, in one bucket per caller, across workers."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from garage_tools.access.keys import new_key
from tests.conftest import LiveServer, start_server, stop_server

SPEC_LIMITS = {
    "GARAGE_TOOLS_RATE_LIMIT_PUBLIC": "60/minute;2000/day",
    "GARAGE_TOOLS_RATE_LIMIT_PRO": "240/minute;10000/day",
    "GARAGE_TOOLS_RATE_LIMIT_MCP_PROTOCOL": "600/minute",
    "GARAGE_TOOLS_RATE_LIMIT_BAD_KEYS": "20/minute",
}
BEHIND_PROXY = {**SPEC_LIMITS, "GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1"}
_addresses = (f"198.51.100.{n}" for n in itertools.count(1))
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}


def client_address() -> str:
    """A fresh client address per test, so tests on one server never share a bucket."""
    return next(_addresses)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The service behind a proxy on 127.0.0.1, with the spec's limits."""
    server = start_server(tmp_path_factory.mktemp("limits"), BEHIND_PROXY)
    yield server
    stop_server(server)


def rest(client: httpx.Client, ip: str, key: str | None = None) -> httpx.Response:
    headers = {"X-Forwarded-For": ip}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return client.post("/api/v1/diagnose", json={"description": "loud bang"}, headers=headers)


def mcp(client: httpx.Client, ip: str, method: str = "tools/call", *, sdk: bool = False) -> httpx.Response:
    meta = {**META, "progressToken": "p"} if sdk else META  # an extra _meta field leaves the fast path
    params: dict[str, Any] = {"_meta": meta}
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
        "X-Forwarded-For": ip,
    }
    if method == "tools/call":
        params.update(name="diagnose", arguments={"description": "loud bang"})
        headers["Mcp-Name"] = "diagnose"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return client.post("/mcp", content=json.dumps(body), headers=headers)


def mcp_error(response: httpx.Response) -> dict[str, Any] | None:
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    if not result["isError"]:
        return None
    error: dict[str, Any] = json.loads(result["content"][0]["text"])["error"]
    return error


def test_the_61st_public_call_in_a_minute_is_refused_with_retry_after(proxied: LiveServer) -> None:
    ip = client_address()
    with httpx.Client(base_url=proxied.url) as client:
        answers = [rest(client, ip) for _ in range(60)]
        refused = rest(client, ip)
    assert [a.status_code for a in answers] == [200] * 60
    assert answers[0].headers["ratelimit-policy"] == '"public-minute";q=60;w=60, "public-day";q=2000;w=86400'
    assert answers[0].headers["ratelimit"].startswith('"public-minute";r=59;t=')
    assert answers[-1].headers["ratelimit"].startswith('"public-minute";r=0;t=')
    assert '"public-day";r=1940;' in answers[-1].headers["ratelimit"]
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited" and refused.json()["error"]["status"] == 429
    assert 0 < int(refused.headers["retry-after"]) <= 60
    assert refused.headers["ratelimit"].startswith('"public-minute";r=0;')


def test_rest_and_mcp_share_one_bucket(proxied: LiveServer) -> None:
    ip = client_address()
    with httpx.Client(base_url=proxied.url) as client:
        for _ in range(20):
            assert rest(client, ip).status_code == 200
            assert mcp_error(mcp(client, ip)) is None  # fast path
            assert mcp_error(mcp(client, ip, sdk=True)) is None  # SDK path
        over_rest = rest(client, ip)
        over_fast = mcp(client, ip)
        over_sdk = mcp(client, ip, sdk=True)
    assert over_rest.status_code == 429
    for over in (over_fast, over_sdk):
        error = mcp_error(over)  # MCP answers a tool error, never HTTP 429 (connectors read that as auth failure)
        assert error is not None and error["code"] == "rate_limited" and error["status"] == 429
        assert int(over.headers["retry-after"]) > 0


def test_handshakes_and_listings_do_not_eat_the_budget(proxied: LiveServer) -> None:
    ip = client_address()
    with httpx.Client(base_url=proxied.url) as client:
        for _ in range(100):
            listing = mcp(client, ip, "tools/list")
            assert listing.status_code == 200 and "tools" in listing.json()["result"]
            assert "ratelimit" not in listing.headers
        assert all(mcp_error(mcp(client, ip)) is None for _ in range(60))
        assert mcp_error(mcp(client, ip)) is not None


def test_the_pro_tier_gets_four_times_the_limit(proxied: LiveServer) -> None:
    _, key = proxied.create_key(email="limits@example.com")
    ip = client_address()
    with httpx.Client(base_url=proxied.url) as client:
        statuses = [rest(client, ip, key).status_code for _ in range(241)]
        public = rest(client, ip)  # the public bucket of the same address is untouched
    assert statuses[:240] == [200] * 240 and statuses[240] == 429
    assert public.status_code == 200
    assert public.headers["ratelimit"].startswith('"public-minute";r=59;')


def test_an_address_sending_forged_keys_is_stopped_before_the_key_store(proxied: LiveServer) -> None:
    ip, bystander = client_address(), client_address()
    _, key = proxied.create_key(email="flood@example.com")
    with httpx.Client(base_url=proxied.url) as client:
        assert rest(client, ip, key).status_code == 200  # a real key, now in the cache
        forged = [rest(client, ip, new_key()[1]) for _ in range(21)]
        cached = rest(client, ip, key)
        anonymous = rest(client, ip)
        other = rest(client, bystander, new_key()[1])
    assert [r.status_code for r in forged[:20]] == [401] * 20
    assert forged[20].status_code == 429 and forged[20].json()["error"]["code"] == "rate_limited"
    assert int(forged[20].headers["retry-after"]) > 0
    assert cached.status_code == 200  # a key already verified is answered from the cache
    assert anonymous.status_code == 200  # calls without a key are unaffected
    assert other.status_code == 401  # other addresses are unaffected


def test_a_forwarded_header_from_an_untrusted_peer_is_ignored(tmp_path_factory: pytest.TempPathFactory) -> None:
    server = start_server(tmp_path_factory.mktemp("no-proxy"), SPEC_LIMITS)  # no trusted proxies
    try:
        with httpx.Client(base_url=server.url) as client:
            spoofed = [rest(client, client_address()).status_code for _ in range(61)]
    finally:
        stop_server(server)
    assert spoofed[:60] == [200] * 60 and spoofed[60] == 429


def count_allowed(server: LiveServer, ip: str, calls: int) -> int:
    allowed = 0
    for _ in range(calls):
        with httpx.Client(base_url=server.url) as client:  # a new connection each time: either worker may answer
            allowed += rest(client, ip).status_code == 200
    return allowed


@pytest.fixture
def redis_db() -> str:
    return f"redis://127.0.0.1:6379/{random.randint(1, 15)}"


def test_two_workers_hold_the_limit_exactly_through_redis(
    tmp_path_factory: pytest.TempPathFactory, redis_db: str
) -> None:
    env = {**BEHIND_PROXY, "GARAGE_TOOLS_WORKERS": "2", "GARAGE_TOOLS_REDIS_URL": redis_db}
    server = start_server(tmp_path_factory.mktemp("redis-2w"), env)
    try:
        assert count_allowed(server, f"203.0.113.{random.randint(1, 254)}", 90) == 60
    finally:
        stop_server(server)


def test_without_redis_two_workers_count_apart(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The control for the test above: it shows both workers answered, and that Redis is what joins them."""
    env = {**BEHIND_PROXY, "GARAGE_TOOLS_WORKERS": "2", "GARAGE_TOOLS_REDIS_URL": ""}  # no Redis, on any test stack
    server = start_server(tmp_path_factory.mktemp("memory-2w"), env)
    try:
        assert count_allowed(server, client_address(), 90) > 60
    finally:
        stop_server(server)


def test_with_redis_unreachable_limits_hold_per_process_and_it_is_logged_once(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    env = {**BEHIND_PROXY, "GARAGE_TOOLS_REDIS_URL": "redis://127.0.0.1:1/0"}
    server = start_server(tmp_path_factory.mktemp("redis-down"), env)
    try:
        ip = client_address()
        with httpx.Client(base_url=server.url) as client:
            statuses = [rest(client, ip).status_code for _ in range(61)]
    finally:
        stop_server(server)
    assert statuses[:60] == [200] * 60 and statuses[60] == 429
    log = (server.workdir / "server.log").read_text()
    assert log.count("Redis unreachable") == 1, log
    assert "Traceback" not in log
