"""Service requests' domain API on SQLite and PostgreSQL: create (with a token only its hash is kept of), the
allowed changes and nothing else, each partner's view scoped in the query, re-offers that remember who had
it, and the one hook that sees every event inside the change's own transaction."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.store.database import Database
from garage_tools.store.models import ServiceRequest
from garage_tools.store.referrals import NewReferral, ReferralRepository, caller_fingerprint
from garage_tools.store.service_requests import (
    Actor,
    Change,
    DuplicateIdempotencyKey,
    NewRequest,
    RequestEvent,
    RequestNotFound,
    ServiceRequestRepository,
    Status,
    TransitionRefused,
    Window,
)

RED, BLUE = "red-doors", "blue-doors"


def new(partner_id: str = RED, **fields: object) -> NewRequest:
    values: dict[str, object] = {
        "partner_id": partner_id,
        "zip": "84770",
        "issue": "broken_spring",
        "description": "loud bang and the door won't open",
        "door_size": "16x7",
        "contact_name": "Dana Homeowner",
        "contact_phone": "(435) 555-0199",
        "contact_email": "dana@example.com",
        "windows": [Window(date(2026, 12, 1), "morning")],
        "notes": None,
        "report_id": None,
        "source": "rest",
        "request_hash": "h" * 64,
    }
    values.update(fields)
    return NewRequest(**values)  # type: ignore[arg-type]


@pytest.fixture
def events() -> list[RequestEvent]:
    return []


@pytest.fixture
def requests(database: Database, events: list[RequestEvent]) -> ServiceRequestRepository:
    async def hook(session: AsyncSession, event: RequestEvent) -> None:
        # Inside the change's transaction: the row already reads as the event says.
        row = await session.get(ServiceRequest, event.request.id)
        assert row is not None and row.status == event.request.status.value
        events.append(event)

    return ServiceRequestRepository(database, hooks=[hook])


async def test_a_request_is_stored_with_a_readable_number_and_a_token_kept_only_hashed(
    database: Database, requests: ServiceRequestRepository, events: list[RequestEvent]
) -> None:
    created = await requests.create(new())
    assert created.token is not None and len(created.token) >= 32
    number = created.request.id
    assert number.startswith("R-") and len(number) == 11 and number[2:6].isdigit() and number[7:].isdigit()
    assert created.request.status is Status.RECEIVED and created.request.windows[0].part == "morning"
    async with database.session() as session:
        row = await session.scalar(select(ServiceRequest))
        assert row is not None and created.token not in row.token_hash and row.language == "en"
    found = await requests.by_token(created.token)
    assert found is not None and found.id == number
    assert await requests.by_token(created.token + "x") is None
    assert [(e.kind, e.by) for e in events] == [("request.created", Actor.HOMEOWNER)]


async def test_an_idempotency_key_holds_one_request(requests: ServiceRequestRepository) -> None:
    first = await requests.create(new(idempotency_hash="k" * 64))
    with pytest.raises(DuplicateIdempotencyKey):
        await requests.create(new(idempotency_hash="k" * 64))
    again = await requests.by_idempotency_hash("k" * 64)
    assert again is not None and again.id == first.request.id


async def test_only_the_allowed_changes_happen_and_each_is_history(
    requests: ServiceRequestRepository, events: list[RequestEvent]
) -> None:
    created = await requests.create(new())
    number, token = created.request.id, created.token
    start = datetime(2026, 12, 1, 15, tzinfo=UTC)
    # Another partner, or a homeowner without the token, cannot touch it.
    with pytest.raises(RequestNotFound):
        await requests.transition(number, Change(Status.ACCEPTED, Actor.PARTNER, partner_id=BLUE))
    with pytest.raises(RequestNotFound):
        await requests.transition(number, Change(Status.CANCELLED, Actor.HOMEOWNER), token="nope")
    # A homeowner may only cancel; a partner may not cancel for them.
    with pytest.raises(TransitionRefused):
        await requests.transition(number, Change(Status.DONE, Actor.HOMEOWNER), token=token)
    with pytest.raises(TransitionRefused):
        await requests.transition(number, Change(Status.CANCELLED, Actor.PARTNER, partner_id=RED))
    accepted = await requests.transition(
        number, Change(Status.ACCEPTED, Actor.PARTNER, RED, start, start + timedelta(hours=2))
    )
    assert accepted.arrival_from == start and accepted.first_response_at is not None
    cancelled = await requests.transition(number, Change(Status.CANCELLED, Actor.HOMEOWNER), token=token)
    assert cancelled.status is Status.CANCELLED
    with pytest.raises(TransitionRefused):  # a cancelled request is final
        await requests.transition(number, Change(Status.ACCEPTED, Actor.PARTNER, RED, start, start))
    assert [e.kind for e in events] == ["request.created", "request.updated", "request.cancelled"]
    history = await requests.history(number)
    assert [(h.status, h.by) for h in history] == [
        (Status.RECEIVED, Actor.HOMEOWNER),
        (Status.ACCEPTED, Actor.PARTNER),
        (Status.CANCELLED, Actor.HOMEOWNER),
    ]
    assert history[1].detail["arrivalFrom"] == start.isoformat()


async def test_each_partner_sees_only_what_is_offered_to_it(requests: ServiceRequestRepository) -> None:
    red = (await requests.create(new(RED))).request
    blue = (await requests.create(new(BLUE))).request
    assert [r.id for r in await requests.for_partner(RED)] == [red.id]
    assert await requests.one_for_partner(RED, blue.id) is None
    assert await requests.for_partner(RED, [Status.ACCEPTED]) == []


async def test_a_declined_request_is_offered_on_and_remembers_who_had_it(
    requests: ServiceRequestRepository, events: list[RequestEvent]
) -> None:
    number = (await requests.create(new(RED))).request.id
    await requests.transition(number, Change(Status.DECLINED, Actor.PARTNER, RED, reason="Fully booked"))
    moved = await requests.reoffer(number, BLUE, "declined")
    assert moved is not None and moved.partner_id == BLUE and moved.status is Status.RECEIVED
    assert [(o.partner_id, o.outcome, o.reason) for o in moved.previous_offers] == [(RED, "declined", "Fully booked")]
    assert await requests.one_for_partner(RED, number) is None
    assert events[-1].previous_partner_id == RED and events[-1].by is Actor.SYSTEM
    # A second sweep that still saw it with RED passes nothing on: it has moved to BLUE already.
    assert await requests.reoffer(number, "green-doors", "no_answer", from_partner=RED) is None
    # Silence: what waits longer than the cut-off is found by the sweep; an accepted one is not.
    later = datetime.now(UTC) + timedelta(hours=3)
    assert [r.id for r in await requests.waiting(later)] == [number]
    await requests.transition(number, Change(Status.ACCEPTED, Actor.PARTNER, BLUE))
    assert await requests.waiting(later) == []
    assert await requests.reoffer(number, RED, "no_answer") is None  # it moved on meanwhile


async def test_a_contact_is_counted_for_the_daily_limit(requests: ServiceRequestRepository) -> None:
    await requests.create(new(contact_email="dana@example.com", contact_phone=None))
    await requests.create(new(contact_email=None, contact_phone="4355550199"))
    since = datetime.now(UTC) - timedelta(days=1)
    assert await requests.sent_today(since, email="dana@example.com", phone="4355550199") == 2
    assert await requests.sent_today(since, email="other@example.com", phone=None) == 0


async def test_one_caller_is_one_referral_per_partner_issue_and_day(database: Database) -> None:
    referrals = ReferralRepository(database)
    now = datetime.now(UTC)
    me, you = caller_fingerprint("public:203.0.113.7", now.date()), caller_fingerprint("public:x", now.date())

    def search(caller: str, issue: str | None = "broken_spring") -> NewReferral:
        return NewReferral(now, RED, True, "84770", issue, None, "hot", "routing", "rest", caller)

    await referrals.add([search(me), search(me)])
    await referrals.add([search(me), search(you), search(me, "worn_rollers")])
    stored = await referrals.all()
    assert len(stored) == 3
    demand = await referrals.demand(RED, now.date() - timedelta(days=7))
    assert [(d.zip, d.issue, d.homeowners) for d in demand] == [
        ("84770", "broken_spring", 2),
        ("84770", "worn_rollers", 1),
    ]
    assert await referrals.demand(BLUE, now.date()) == []


async def test_requests_are_forgotten_with_their_history_and_purged_with_the_leads(
    database: Database, requests: ServiceRequestRepository
) -> None:
    from garage_tools.store.retention import Retention, forget, purge

    kept = (await requests.create(new(contact_email="sam@example.com"))).request.id
    gone = (await requests.create(new())).request.id
    await requests.transition(gone, Change(Status.DECLINED, Actor.PARTNER, RED))
    done = await forget(database, "Dana@Example.com")
    assert (done.counts["service_requests"], done.counts["service_request_events"]) == (1, 2)
    assert await requests.get(gone) is None and await requests.history(gone) == []
    week = timedelta(days=7)
    retention = Retention(inspections=week, leads=week, mail=week, audit=week)
    later = datetime.now(UTC) + timedelta(days=8)
    purged = await purge(database, retention, clock=lambda: later)
    assert purged.counts["service_requests"] == 1 and await requests.get(kept) is None
