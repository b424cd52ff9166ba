"""The console's Webhooks page through a real server (two workers, the in-process mail worker delivering):
an endpoint added from the page shows its secret once, a test event reaches a receiver on loopback signed
so that the `standardwebhooks` library verifies it, the log shows the answer, and one partner can neither
see nor change another's endpoints. Embedded stack, or PostgreSQL and Redis with
GARAGE_TOOLS_TEST_STACK=postgres-redis."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.test_partner_console import BOTH_WORKERS, DIXIE, RED_ROCK, Partner
from tests.fakes.webhook_receiver import WebhookReceiver
from tests.polling import eventually

SECRET = re.compile(r"whsec_[A-Za-z0-9+/=]+")
ENDPOINT = re.compile(r"/partners/webhooks/(ep_[0-9a-f]+)/test")


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as fake:
        yield fake


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("webhooks"),
        {
            "GARAGE_TOOLS_TRUSTED_PROXIES": "127.0.0.1",
            "GARAGE_TOOLS_WORKERS": "2",
            "GARAGE_TOOLS_MAIL_POLL_SECONDS": "0.2",
            "GARAGE_TOOLS_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1",
        },
    )
    yield live
    stop_server(live)


@pytest.fixture(scope="module")
def dixie(server: LiveServer) -> Partner:
    return Partner(server).sign_in(DIXIE)


@pytest.fixture(scope="module")
def red_rock(server: LiveServer) -> Partner:
    return Partner(server).sign_in(RED_ROCK)


def test_an_endpoint_added_in_the_console_gets_a_signed_test_event(
    server: LiveServer, dixie: Partner, receiver: WebhookReceiver
) -> None:
    added = dixie.post("/partners/webhooks", url=receiver.url)
    assert added.status_code == 200, added.text
    secret = SECRET.search(added.text)
    assert secret and "will not show it again" in added.text
    page = dixie.client.get("/partners/webhooks").text
    assert receiver.url in page and secret.group(0) not in page  # shown once
    [sealed] = server.query("SELECT secret_sealed FROM webhook_endpoints WHERE partner_id = $1", DIXIE)
    assert secret.group(0).encode() not in bytes(sealed[0])

    receiver.secret = secret.group(0)
    endpoint = ENDPOINT.search(page)
    assert endpoint
    sent = dixie.post(f"/partners/webhooks/{endpoint.group(1)}/test")
    assert sent.status_code == 303
    eventually(receiver.verified)
    [event] = [r.verified for r in receiver.verified()]
    assert event["type"] == "endpoint.test"
    log = eventually(
        lambda: "Delivered" in (text := dixie.client.get("/partners/webhooks").text) and text, times=BOTH_WORKERS
    )
    assert "HTTP 200" in log and receiver.verified()[0].webhook_id in log
    audit = server.query("SELECT action FROM partner_audit WHERE partner_id = $1", DIXIE)
    assert {("webhook.add",), ("webhook.test",)} <= set(audit)


def test_an_address_the_guard_refuses_is_explained_and_not_saved(server: LiveServer, dixie: Partner) -> None:
    for url in ("https://10.0.0.5/hooks", "http://hooks.example.com/x", "ftp://example.com"):
        refused = dixie.post("/partners/webhooks", url=url)
        assert refused.status_code == 400 and 'aria-invalid="true"' in refused.text, url
    assert server.query("SELECT count(*) FROM webhook_endpoints WHERE url LIKE '%10.0.0.5%'") == [(0,)]


def test_a_partner_cannot_see_or_change_anothers_endpoints(
    server: LiveServer, dixie: Partner, red_rock: Partner, receiver: WebhookReceiver
) -> None:
    assert dixie.post("/partners/webhooks", url=receiver.url + "?dixie").status_code == 200
    [(theirs,)] = server.query("SELECT id FROM webhook_endpoints WHERE url LIKE '%?dixie'")
    mine = red_rock.client.get("/partners/webhooks").text
    assert receiver.url not in mine and theirs not in mine
    for action in ("test", "enable", "remove"):
        assert red_rock.post(f"/partners/webhooks/{theirs}/{action}").status_code == 404, action
    assert server.query("SELECT count(*) FROM webhook_endpoints WHERE id = $1", theirs) == [(1,)]
    # Every form needs the session's own token.
    forged = dixie.client.post(f"/partners/webhooks/{theirs}/remove", data={"csrf": "x" * 64})
    assert forged.status_code == 403
    foreign = dixie.client.post(
        "/partners/webhooks",
        data={"csrf": dixie.token(), "url": receiver.url},
        headers={"Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
    assert dixie.post(f"/partners/webhooks/{theirs}/remove").status_code == 303
    assert server.query("SELECT count(*) FROM webhook_endpoints WHERE id = $1", theirs) == [(0,)]
    # Signed out: the page sends you to sign in, and its forms do nothing.
    assert Partner(server).client.get("/partners/webhooks").status_code == 303


def test_an_inspection_shared_with_consent_arrives_as_a_signed_lead(
    server: LiveServer, dixie: Partner, receiver: WebhookReceiver
) -> None:
    # Dixie's endpoint (the first test's) is on; the homeowner in 84770 agrees that the pro may contact them.
    before = len(receiver.verified())
    body = {
        "recipient": {"email": "sam.rivera@example.com", "zip": "84770", "name": "Sam Rivera"},
        "consent": {"marketing": False, "contactShare": True},
        "items": {"springs": {"status": "fix"}},
    }
    report = httpx.post(f"{server.url}/api/v1/submitInspection", json=body, timeout=15).json()
    eventually(lambda: any(r.verified["type"] == "lead.inspection" for r in receiver.verified()[before:]))
    [lead] = [r.verified for r in receiver.verified()[before:] if r.verified["type"] == "lead.inspection"]
    data = lead["data"]
    assert data["reportId"] == report["reportId"] and data["reportUrl"].endswith(report["reportId"])
    assert data["contact"] == {"name": "Sam Rivera", "email": "sam.rivera@example.com"} and data["zip"] == "84770"
    # Without consent the homeowner's details stay with us: no lead event at all.
    quiet = {
        **body,
        "recipient": {**body["recipient"], "email": "quiet@example.com"},
        "consent": {"marketing": False, "contactShare": False},
    }
    assert httpx.post(f"{server.url}/api/v1/submitInspection", json=quiet, timeout=15).status_code == 200
    # A sleep on purpose: the check is that nothing arrives, and an absence cannot be awaited. The mail worker
    # polls every 0.2 s, so a second event would have arrived by now.
    time.sleep(1.5)
    assert sum(r.verified["type"] == "lead.inspection" for r in receiver.verified()) == 1
