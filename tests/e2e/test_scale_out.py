"""The production topology: two server processes sharing one PostgreSQL database and one Redis.

Each process stands for a worker or a host behind a load balancer. Whatever a caller does through
one must hold through the other: the rate limit is one budget, a key made in one works in the
other, reports and referrals land in the shared store, and the outbox delivers each message once even
though both processes run a mail worker. (That `serve --workers 2` really spreads calls over both
workers is shown in test_observability.py, by the worker pids in the access log.)
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.conftest import REDIS_URL, LiveServer, postgres_database, start_server, stop_server
from tests.e2e.test_inspection import submission
from tests.e2e.test_portal import new_key, signed_in
from tests.fakes.smtp_sink import SmtpSink
from tests.polling import eventually

pytestmark = pytest.mark.postgres

PUBLIC_LIMIT = 10


@dataclass
class Cluster:
    first: LiveServer
    second: LiveServer
    sink: SmtpSink

    @property
    def servers(self) -> tuple[LiveServer, LiveServer]:
        return self.first, self.second


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    name = f"garage_tools_test_{uuid.uuid4().hex[:12]}"
    shared = {
        "GARAGE_TOOLS_DATABASE_URL": postgres_database(name),
        "GARAGE_TOOLS_REDIS_URL": REDIS_URL,
        "GARAGE_TOOLS_REDIS_KEY_PREFIX": f"garage-tools-test-{uuid.uuid4().hex[:12]}:",
        "GARAGE_TOOLS_RATE_LIMIT_PUBLIC": f"{PUBLIC_LIMIT}/minute",
        "GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1",  # as behind a load balancer: the client is in X-Forwarded-For
        "GARAGE_TOOLS_SMTP_STARTTLS": "false",
        "GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.2",
        "GARAGE_TOOLS_MAIL_FROM": "Garage Door Tools <no-reply@example.com>",
    }
    with SmtpSink() as sink:
        shared |= {"GARAGE_TOOLS_SMTP_HOST": "127.0.0.1", "GARAGE_TOOLS_SMTP_PORT": str(sink.port)}
        first = start_server(tmp_path_factory.mktemp("first"), shared)
        second = start_server(tmp_path_factory.mktemp("second"), shared)
        try:
            yield Cluster(first, second, sink)
        finally:
            stop_server(first)
            stop_server(second)
            postgres_database(name, drop=True)


_addresses = (f"198.51.100.{n}" for n in itertools.cycle(range(1, 255)))


def post(server: LiveServer, tool: str, body: Any, **headers: str) -> httpx.Response:
    """A call from a client address of its own (unless the test names one), so only the limit test meets the limit."""
    headers.setdefault("X-Forwarded-For", next(_addresses))
    return httpx.post(f"{server.url}/api/v1/{tool}", json=body, headers=headers, timeout=10)


def test_the_public_limit_is_one_budget_across_processes(cluster: Cluster) -> None:
    # Alternate between the two processes, as a round-robin load balancer would.
    statuses = [
        post(cluster.servers[n % 2], "getDoorStyles", {}, **{"X-Forwarded-For": "203.0.113.9"}).status_code
        for n in range(PUBLIC_LIMIT + 4)
    ]
    assert statuses.count(200) == PUBLIC_LIMIT
    assert statuses[PUBLIC_LIMIT:] == [429] * 4
    refused = post(cluster.second, "getDoorStyles", {}, **{"X-Forwarded-For": "203.0.113.9"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0


def test_a_key_made_in_the_portal_of_one_works_in_the_other(cluster: Cluster) -> None:
    visitor = signed_in(cluster.first)
    key_id, key = new_key(visitor, "scale-out")
    answer = post(cluster.second, "getDoorStyles", {}, Authorization=f"Bearer {key}")
    assert answer.status_code == 200
    assert '"pro-minute"' in answer.headers["RateLimit-Policy"]
    # Revoked through the first, refused by the second once its key cache expires (5 s by default).
    assert visitor.revoke(key_id).status_code < 400
    eventually(
        lambda: post(cluster.second, "getDoorStyles", {}, Authorization=f"Bearer {key}").status_code == 401,
        seconds=10,
        every=0.1,
    )


def test_a_report_filed_through_one_is_served_by_the_other(cluster: Cluster) -> None:
    filed = post(cluster.first, "submitInspection", submission("shared.report@example.com", emailReport=False))
    assert filed.status_code == 200, filed.text
    path = httpx.URL(filed.json()["reportUrl"]).path
    page = httpx.get(f"{cluster.second.url}{path}", timeout=10)
    assert page.status_code == 200 and "Sam" in page.text and "cables" in page.text.lower()


def test_referrals_from_both_land_in_the_shared_store(cluster: Cluster) -> None:
    count = "SELECT count(*) FROM referrals WHERE zip = '84770'"
    before = cluster.first.query(count)[0][0]
    for server, issue in zip(cluster.servers, ("wont_close", "broken_spring"), strict=True):
        body = {"zipOrLocation": "84770", "issue": issue, "leadHeat": "hot"}
        assert post(server, "routeByZip", body).status_code == 200
    eventually(lambda: cluster.second.query(count)[0][0] == before + 2, seconds=30)


def test_the_outbox_delivers_each_message_once_with_two_workers_running(cluster: Cluster) -> None:
    run = uuid.uuid4().hex[:8]
    addresses = [f"once-{run}-{n}@example.com" for n in range(12)]
    for n, address in enumerate(addresses):
        answer = post(cluster.servers[n % 2], "submitInspection", submission(address))
        assert answer.status_code == 200 and answer.json()["emailQueued"] is True

    def delivered() -> list[str]:
        return [to for received in cluster.sink.received for to in received.rcpt_tos if run in to]

    eventually(lambda: len(delivered()) >= len(addresses), seconds=30)
    # A sleep on purpose: room for a second, duplicate delivery to show up if a message were claimed twice (an
    # absence cannot be awaited).
    time.sleep(1)
    assert sorted(delivered()) == sorted(addresses)
    rows = cluster.first.query("SELECT status, attempts FROM outbox WHERE to_address LIKE $1", f"%{run}%")
    # Each message was claimed by exactly one of the two workers, exactly once.
    assert sorted(tuple(row) for row in rows) == [("sent", 1)] * len(addresses)
