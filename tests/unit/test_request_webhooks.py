"""Service requests reach their partner's software: the requests' one hook queues a signed event per change, in
the change's own transaction, for the partner the request is offered to (a partner it moved away from hears
only that it did, without the homeowner's details); a consented inspection lead is an event too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import select

from garage_tools.partners.request_webhooks import request_events
from garage_tools.store.database import Database
from garage_tools.store.models import OutboxMessage, WebhookEndpoint
from garage_tools.store.partners import PartnerRepository
from garage_tools.store.service_requests import Actor, Change, ServiceRequestRepository, Status
from garage_tools.store.webhooks import WebhookRepository
from tests.fakes.webhook_receiver import WebhookReceiver
from tests.unit.partner_data import partner
from tests.unit.test_service_request_store import new
from tests.unit.test_webhook_delivery import KEY, work_until, worker_for

RED, BLUE = "red-doors", "blue-doors"


@pytest.fixture
async def hooks(database: Database) -> WebhookRepository:
    await PartnerRepository(database).seed([partner(RED, zipPrefixes=["847"]), partner(BLUE, zipPrefixes=["847"])], [])
    return WebhookRepository(database, KEY)


@pytest.fixture
async def receiver() -> AsyncIterator[WebhookReceiver]:
    fake = WebhookReceiver()
    await asyncio.to_thread(fake.start)
    yield fake
    await asyncio.to_thread(fake.stop)


async def events_for(database: Database, partner_id: str) -> list[dict[str, Any]]:
    async with database.session() as session:
        rows = await session.scalars(
            select(OutboxMessage.text_body)
            .join(WebhookEndpoint, WebhookEndpoint.id == OutboxMessage.endpoint_id)
            .where(WebhookEndpoint.partner_id == partner_id)
            .order_by(OutboxMessage.id)
        )
        return [orjson.loads(body) for body in rows.all()]


async def test_each_change_is_an_event_for_the_partner_it_is_offered_to(
    database: Database, hooks: WebhookRepository
) -> None:
    for who in (RED, BLUE):
        assert await hooks.add(who, f"https://hooks.example.com/{who}", "operator") is not None
    requests = ServiceRequestRepository(database, hooks=[request_events])
    created = await requests.create(new(RED))
    number = created.request.id
    [first] = await events_for(database, RED)
    assert first["type"] == "request.created" and first["data"]["requestId"] == number
    assert first["data"]["contact"] == {
        "name": "Dana Homeowner",
        "phone": "(435) 555-0199",
        "email": "dana@example.com",
    }
    assert first["data"]["windows"] == [{"date": "2026-12-01", "partOfDay": "morning"}]

    accepted = await requests.transition(
        number,
        Change(Status.ACCEPTED, Actor.PARTNER, RED, arrival_from=first_time(), arrival_until=first_time(2)),
    )
    assert accepted.status is Status.ACCEPTED
    second = (await events_for(database, RED))[1]
    assert second["type"] == "request.updated" and second["data"]["status"] == "accepted"
    assert second["data"]["arrivalWindow"]["from"].endswith("Z") and second["data"]["previousStatus"] == "received"
    assert await events_for(database, BLUE) == []  # another partner's request: nothing for BLUE

    assert created.token is not None
    await requests.transition(number, Change(Status.CANCELLED, Actor.HOMEOWNER), token=created.token)
    third = (await events_for(database, RED))[2]
    assert third["type"] == "request.cancelled" and third["data"]["changedBy"] == "homeowner"


async def test_a_request_passed_on_is_new_to_the_next_partner_and_gone_for_the_last(
    database: Database, hooks: WebhookRepository
) -> None:
    for who in (RED, BLUE):
        assert await hooks.add(who, f"https://hooks.example.com/{who}", "operator") is not None
    requests = ServiceRequestRepository(database, hooks=[request_events])
    created = await requests.create(new(RED))
    assert await requests.reoffer(created.request.id, BLUE, "no_answer") is not None
    [arrived] = await events_for(database, BLUE)
    assert arrived["type"] == "request.created" and arrived["data"]["contact"]["name"] == "Dana Homeowner"
    gone = (await events_for(database, RED))[-1]
    assert gone["type"] == "request.updated" and gone["data"]["status"] == "reassigned"
    assert "contact" not in gone["data"]


async def test_a_new_request_reaches_the_receiver_signed(
    database: Database, hooks: WebhookRepository, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    added = await hooks.add(RED, receiver.url, "operator")
    assert added is not None
    receiver.secret = added.secret
    requests = ServiceRequestRepository(database, hooks=[request_events])
    created = await requests.create(new(RED))
    await work_until(worker_for(database, hooks, tmp_path), receiver.verified)
    event = receiver.verified()[0].verified
    assert event["type"] == "request.created" and event["data"]["requestId"] == created.request.id


def first_time(hours: int = 0) -> Any:
    from datetime import UTC, datetime, timedelta

    return datetime(2026, 12, 1, 15, tzinfo=UTC) + timedelta(hours=hours)
