"""Webhook deliveries through the outbox's worker, to a receiver on loopback that verifies each one with the
`standardwebhooks` library, on SQLite and PostgreSQL: signed, retried, logged, refused by the address guard,
and an endpoint turned off (its partner e-mailed) after failures in a row."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from garage_tools.mail import MailWorker, Outbox
from garage_tools.mail.transports import FileTransport
from garage_tools.mail.webhooks import (
    EndpointRefused,
    EndpointRules,
    WebhookChannel,
    WebhookTransport,
    check_endpoint_url,
    disabled_notice,
)
from garage_tools.outbound import parse_networks
from garage_tools.store.database import Database
from garage_tools.store.models import OutboxMessage, PartnerAuditEntry, WebhookEndpoint
from garage_tools.store.partners import PartnerRepository
from garage_tools.store.webhooks import WebhookRepository, enqueue_event
from tests.fakes.webhook_receiver import WebhookReceiver
from tests.polling import eventually_async
from tests.unit.partner_data import partner

RED, BLUE = "red-doors", "blue-doors"
KEY = "a-test-secrets-key"
SENDER = "Garage Door Tools <no-reply@doors.example.com>"
LOOPBACK = EndpointRules(allow=parse_networks(["127.0.0.1"]))
REQUEST = {"requestId": "req_1", "zip": "84770", "contact": {"name": "Sam", "phone": "435-555-0100"}}


@pytest.fixture
async def hooks(database: Database) -> WebhookRepository:
    await PartnerRepository(database).seed(
        [
            partner(RED, zipPrefixes=["847"], contactEmail="office@red.example.com"),
            partner(BLUE, zipPrefixes=["847"], contactEmail="office@blue.example.com"),
        ],
        [],
    )
    return WebhookRepository(database, KEY)


@pytest.fixture
async def receiver() -> AsyncIterator[WebhookReceiver]:
    fake = WebhookReceiver()
    await asyncio.to_thread(fake.start)
    yield fake
    fake.let_go.set()
    await asyncio.to_thread(fake.stop)


def worker_for(
    database: Database, hooks: WebhookRepository, tmp_path: Path, rules: EndpointRules = LOOPBACK, **policy: Any
) -> MailWorker:
    outbox = Outbox(database)
    channel = WebhookChannel(WebhookTransport(hooks, rules, timeout=5), disabled_notice(outbox), **policy)
    return MailWorker(outbox, FileTransport(tmp_path / "mail"), sender=SENDER, webhooks=channel)


async def queue(database: Database, partner_id: str, event: str = "request.created") -> int:
    async with database.session() as session, session.begin():
        return await enqueue_event(session, partner_id, event, REQUEST)


async def work_until(worker: MailWorker, done: Callable[[], Any], seconds: float = 20) -> None:
    """Let the worker deliver what is due, again and again, until `done()` holds."""

    async def delivered() -> bool:
        if await _holds(done):
            return True
        await worker.run_once()
        return False

    await eventually_async(delivered, seconds=seconds, what=getattr(done, "__qualname__", repr(done)))


async def _holds(done: Callable[[], Any]) -> bool:
    result = done()
    return bool(await result) if asyncio.iscoroutine(result) else bool(result)


async def test_a_failed_delivery_is_retried_within_ten_seconds_and_verifies(
    database: Database, hooks: WebhookRepository, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    added = await hooks.add(RED, receiver.url, "operator")
    assert added is not None and added.secret.startswith("whsec_")
    receiver.secret, receiver.fail_first = added.secret, 1
    assert await queue(database, RED) == 1

    await work_until(worker_for(database, hooks, tmp_path), receiver.verified)

    first, second = receiver.received
    assert first.status == 500 and second.status == 200
    assert first.webhook_id == second.webhook_id and first.webhook_id.startswith("msg_")  # the same event, twice
    assert second.at - first.at < 10  # the first retry comes within ten seconds
    assert second.verified == {"type": "request.created", "timestamp": second.verified["timestamp"], "data": REQUEST}
    assert second.headers["webhook-signature"].startswith("v1,")
    [log] = await hooks.deliveries(RED)
    assert (log.status, log.attempts, log.last_status, log.last_response) == ("sent", 2, 200, "thanks")
    assert log.event == "request.created" and log.webhook_id == first.webhook_id
    assert await hooks.deliveries(BLUE) == []


async def test_the_answer_kept_in_the_log_is_bounded(
    database: Database, hooks: WebhookRepository, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    added = await hooks.add(RED, receiver.url, "operator")
    assert added is not None
    receiver.secret, receiver.always_fail = added.secret, True
    await queue(database, RED)
    worker = worker_for(database, hooks, tmp_path, max_attempts=1)

    async def dead() -> bool:
        return [d.status for d in await hooks.deliveries(RED)] == ["dead"]

    await work_until(worker, dead)
    [log] = await hooks.deliveries(RED)
    assert log.last_status == 500 and log.last_error == "the endpoint answered HTTP 500"
    assert log.last_response is not None and log.last_response.startswith("receiver is down")
    assert len(log.last_response) == 500  # the receiver sent over 2,000 characters


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hooks",  # loopback, and plain http
        "https://127.0.0.1/hooks",
        "https://10.0.0.5/hooks",
        "https://169.254.169.254/latest/meta-data",  # the cloud metadata service
        "https://[::ffff:127.0.0.1]/hooks",  # loopback inside IPv6
        "https://crm.internal/hooks",  # a name that resolves to a private address
        "https://hooks.example.com:8443/x",  # public, but not port 443
        "http://hooks.example.com/x",  # public, but not https
        "https://user:secret@hooks.example.com/x",
        "ftp://hooks.example.com/x",
        "not a url",
    ],
)
async def test_the_address_guard_refuses_what_is_not_public_https(url: str) -> None:
    with pytest.raises(EndpointRefused):
        await check_endpoint_url(url, EndpointRules(resolver=_resolver))


async def test_the_allow_setting_opens_only_the_networks_it_names() -> None:
    internal = EndpointRules(allow=parse_networks(["10.0.0.0/8"]), resolver=_resolver)
    parsed, address = await check_endpoint_url("http://crm.internal:8080/hooks", internal)
    assert (parsed.host, str(address)) == ("crm.internal", "10.0.0.7")
    with pytest.raises(EndpointRefused):
        await check_endpoint_url("http://127.0.0.1:8080/hooks", internal)
    _, public = await check_endpoint_url("https://hooks.example.com/x", EndpointRules(resolver=_resolver))
    assert str(public) == "93.184.216.34"


async def _resolver(host: str, port: int) -> list[str]:
    return {"crm.internal": ["10.0.0.7"], "hooks.example.com": ["93.184.216.34"]}[host]


async def test_the_guard_holds_at_delivery_too_without_the_allow_setting(
    database: Database, hooks: WebhookRepository, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    added = await hooks.add(RED, receiver.url, "operator")  # stored as if the setting had allowed it then
    assert added is not None
    await queue(database, RED)
    worker = worker_for(database, hooks, tmp_path, rules=EndpointRules(), max_attempts=1)

    async def dead() -> bool:
        return [d.status for d in await hooks.deliveries(RED)] == ["dead"]

    await work_until(worker, dead)
    [log] = await hooks.deliveries(RED)
    assert log.last_status is None and log.last_error is not None and "address guard" in log.last_error
    assert receiver.received == []


async def test_failures_in_a_row_turn_the_endpoint_off_and_tell_the_partner_once(
    database: Database, hooks: WebhookRepository, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    added = await hooks.add(RED, receiver.url, "operator")
    assert added is not None
    receiver.secret, receiver.always_fail = added.secret, True
    await queue(database, RED)
    await queue(database, RED, "request.updated")
    worker = worker_for(database, hooks, tmp_path, disable_after=3, first_retry=timedelta(milliseconds=1))

    async def off() -> bool:
        return not (await hooks.endpoints(RED))[0].enabled

    await work_until(worker, off)
    await work_until(worker, lambda: _all_settled(database))
    assert len(receiver.received) == 3
    async with database.session() as session:
        mails = (await session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "webhook_disabled"))).all()
        audit = (await session.scalars(select(PartnerAuditEntry.action))).all()
    assert [m.to_address for m in mails] == ["office@red.example.com"]
    assert receiver.url in mails[0].text_body
    assert audit.count("webhook.disable") == 1
    assert {d.status for d in await hooks.deliveries(RED)} == {"dead"}  # nothing more goes to it
    assert await queue(database, RED) == 0  # nor is queued for it

    assert await hooks.enable(RED, added.endpoint.id, "office@red.example.com")
    assert (await hooks.endpoints(RED))[0].failures == 0
    assert await queue(database, RED) == 1


async def _all_settled(database: Database) -> bool:
    async with database.session() as session:
        waiting = await session.scalars(
            select(OutboxMessage.id).where(OutboxMessage.channel == "webhook", OutboxMessage.status != "dead")
        )
        return not waiting.all()


async def test_the_secret_is_sealed_at_rest_and_a_changed_key_gives_up_at_once(
    database: Database, hooks: WebhookRepository, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    added = await hooks.add(RED, receiver.url, "operator")
    assert added is not None
    async with database.session() as session:
        sealed = await session.scalar(select(WebhookEndpoint.secret_sealed))
    assert sealed is not None and added.secret.encode() not in sealed and added.secret[6:].encode() not in sealed
    other = WebhookRepository(database, "another-key")
    await queue(database, RED)

    async def dead() -> bool:
        return [d.status for d in await hooks.deliveries(RED)] == ["dead"]

    await work_until(worker_for(database, other, tmp_path), dead)
    assert "secrets key" in str((await hooks.deliveries(RED))[0].last_error)
    assert receiver.received == []


async def test_a_partner_cannot_touch_anothers_endpoints(database: Database, hooks: WebhookRepository) -> None:
    added = await hooks.add(RED, "https://hooks.example.com/red", "office@red.example.com")
    assert added is not None
    endpoint = added.endpoint.id
    assert not await hooks.remove(BLUE, endpoint, "office@blue.example.com")
    assert not await hooks.send_test(BLUE, endpoint, "office@blue.example.com")
    assert not await hooks.enable(BLUE, endpoint, "office@blue.example.com")
    assert await hooks.endpoints(BLUE) == [] and len(await hooks.endpoints(RED)) == 1
    assert await hooks.send_test(RED, endpoint, "office@red.example.com")
    assert await hooks.deliveries(BLUE) == [] and len(await hooks.deliveries(RED)) == 1
    assert await hooks.add("no-such-partner", "https://hooks.example.com/x", "operator") is None
    assert await hooks.remove(RED, endpoint, "office@red.example.com")
    assert await hooks.endpoints(RED) == [] and await hooks.deliveries(RED) == []
