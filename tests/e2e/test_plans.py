"""Plans per key: on `beta` a developer's keys share their address's count; moved to `team` (`garage-tools keys
plan`) each key counts on its own, on REST and MCP alike, within the key cache time. The dashboard shows each
key's plan and its calls per day, from counters that survive a restart."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer, postgres_database, start_server, stop_server
from tests.e2e.test_portal import new_email, new_key, signed_in
from tests.polling import eventually

CACHE_SECONDS = 1.0
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
}
BODY = {"description": "the door makes a loud bang"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("plans"),
        {
            "GARAGE_TOOLS_RATE_LIMIT_PRO": "3/minute",
            "GARAGE_TOOLS_KEY_CACHE_SECONDS": str(CACHE_SECONDS),
            "GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1",
        },
    )
    yield live
    stop_server(live)


def rest(server: LiveServer, key: str, ip: str) -> int:
    headers = {"Authorization": f"Bearer {key}", "X-Forwarded-For": ip}
    return httpx.post(f"{server.url}/api/v1/diagnose", json=BODY, headers=headers).status_code


def mcp(server: LiveServer, key: str, ip: str) -> int:
    """200 for a tool call answered, 429 for one refused by a limit (MCP answers it as a tool error)."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "diagnose", "arguments": BODY, "_meta": META},
    }
    headers = {
        "Authorization": f"Bearer {key}",
        "X-Forwarded-For": ip,
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "diagnose",
    }
    answer = httpx.post(f"{server.url}/mcp-pro", content=json.dumps(message), headers=headers)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    if not result.get("isError"):
        return 200
    return int(json.loads(result["content"][0]["text"])["error"]["status"])


def test_keys_share_the_address_on_beta_and_count_apart_on_team_at_once(server: LiveServer) -> None:
    owner = new_email()
    first_id, first = server.create_key(owner, "first")
    second_id, second = server.create_key(owner, "second")
    ip = "203.0.113.60"
    # beta (the default): one count for the address, 3 a minute, whichever key and surface.
    assert [rest(server, first, ip), mcp(server, second, ip), rest(server, second, ip)] == [200, 200, 200]
    assert rest(server, first, ip) == 429 and mcp(server, second, ip) == 429

    for key_id in (first_id, second_id):
        changed = server.cli("keys", "plan", key_id, "team")
        assert "is now on the team plan" in changed.stdout, changed.stdout + changed.stderr
    # team: each key its own 3 a minute, from the same address, REST and MCP sharing each key's count. Each key
    # waits out the key cache first; a refused call counts nothing, so the polling spends none of the budget.
    eventually(lambda: rest(server, first, ip) == 200, seconds=CACHE_SECONDS + 10, every=0.1)
    assert [mcp(server, first, ip), rest(server, first, ip), mcp(server, first, ip)] == [200, 200, 429]
    eventually(lambda: rest(server, second, ip) == 200, seconds=CACHE_SECONDS + 10, every=0.1)
    assert [rest(server, second, ip), mcp(server, second, ip), rest(server, second, ip)] == [200, 200, 429]

    assert server.cli("keys", "plan", first_id, "default").returncode == 0
    refused = server.cli("keys", "plan", first_id, "gold", check=False)
    assert refused.returncode != 0 and "beta" in refused.stderr
    assert server.cli("keys", "plan", "nosuchkey", "team", check=False).returncode != 0


def usage_of(page: str, key_name: str) -> dict[str, int]:
    """The day-by-day table under a key's chart: ISO day -> calls."""
    figure = re.search(rf"<figure class=\"usage\".*?<strong>{key_name}</strong>.*?</figure>", page, re.S)
    assert figure, page
    assert "<svg" in figure.group(0) and "<title" in figure.group(0) and "<desc" in figure.group(0)
    rows = re.findall(r'<time datetime="([\d-]+)">[\d-]+</time></td><td>(\d+)</td>', figure.group(0))
    return {day: int(calls) for day, calls in rows}


def test_the_dashboard_shows_the_plan_and_30_days_of_calls_that_survive_a_restart(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    workdir = tmp_path_factory.mktemp("usage")
    env = {"GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1", "GARAGE_TOOLS_USAGE_FLUSH_SECONDS": "3600"}
    first = start_server(workdir, env)
    database = {"GARAGE_TOOLS_DATABASE_URL": first.env["GARAGE_TOOLS_DATABASE_URL"]} if first.owned_database else {}
    try:
        owner = new_email()
        visitor = signed_in(first, owner)
        key_id, key = new_key(visitor, "laptop")
        for _ in range(4):
            assert rest(first, key, "203.0.113.70") == 200
        assert mcp(first, key, "203.0.113.70") == 200
        assert first.cli("keys", "plan", key_id, "team").returncode == 0
        page = visitor.dashboard().text
        today = datetime.now(UTC).date().isoformat()
        days = usage_of(page, "laptop")
        assert len(days) == 30 and days[today] == 5 and sum(days.values()) == 5  # pending, not yet written
        assert "Team key, counted per key" in page
    finally:
        first.process.terminate()
        first.process.wait(timeout=20)  # a clean stop writes the pending counts (the flush is an hour away)
    second = start_server(workdir, {**env, **database})
    try:
        again = signed_in(second, owner)
        days = usage_of(again.dashboard().text, "laptop")
        assert days[today] == 5
    finally:
        stop_server(second)
        if first.owned_database:
            postgres_database(first.database_url.rsplit("/", 1)[1], drop=True)  # the second server's too
