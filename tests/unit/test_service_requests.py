"""requestService and what follows it, on SQLite and PostgreSQL: the contract and its refusals, the e-mails
(the pro at once, the homeowner's confirmation and each change), and re-routing on a decline and on silence
(with a clock the test moves). 84770 (St. George) is served by three sample partners."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from garage_tools.access.caller import Caller
from garage_tools.errors import ServiceError
from garage_tools.knowledge.loader import Knowledge
from garage_tools.mail import Outbox
from garage_tools.partners.service import Partners
from garage_tools.registry import ToolContext, ToolData, invoke
from garage_tools.store.database import Database
from garage_tools.store.models import OutboxMessage
from garage_tools.store.service_requests import Actor, Change, RequestNotFound, Status
from garage_tools.tools import build_registry
from garage_tools.tools.service_request import RequestServiceOutput

BASE = "https://doors.example.com"
REGISTRY = build_registry()
DIXIE, RED_ROCK, CANYON = "dixie-door-and-spring", "red-rock-garage-doors", "canyon-country-doors"


def office(partner_id: str) -> str:
    return f"office@{partner_id}.example.com"


def asked(**changes: Any) -> dict[str, Any]:
    tuesday = date.today() + timedelta(days=(1 - date.today().weekday()) % 7 or 7)
    valid: dict[str, Any] = {
        "partnerId": DIXIE,
        "zip": "84770",
        "issueKey": "broken_spring",
        "description": "loud bang and the door won't open",
        "doorSize": "16x7",
        "contact": {"name": "Dana Reyes", "phone": "(435) 555-0199", "email": "Dana@Example.com"},
        "consent": {"contactShare": True},
        "windows": [{"date": tuesday.isoformat(), "partOfDay": "morning"}],
    }
    return {**valid, **changes}


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


class Harness:
    def __init__(self, database: Database, knowledge: Knowledge) -> None:
        self.database = database
        self.knowledge = knowledge
        self.outbox = Outbox(database, domain="doors.example.com")
        self.partners = Partners.over(database, outbox=self.outbox, knowledge=knowledge, response_hours=2)
        self.clock = Clock()
        self.partners.requests.clock = self.clock

    def context(self, key: str | None = None, ip: str = "203.0.113.9") -> ToolContext:
        data = ToolData(database=self.database, outbox=self.outbox, partners=self.partners)
        return ToolContext(
            knowledge=self.knowledge, caller=Caller.anonymous("rest", ip), base_url=BASE, data=data, idempotency_key=key
        )

    async def ask(self, key: str | None = None, **changes: Any) -> RequestServiceOutput:
        result = await invoke(REGISTRY, "requestService", asked(**changes), self.context(key))
        assert isinstance(result, RequestServiceOutput)
        return result

    async def refused(self, **changes: Any) -> ServiceError:
        with pytest.raises(ServiceError) as caught:
            await invoke(REGISTRY, "requestService", asked(**changes), self.context())
        return caught.value

    async def mails(self, to: str) -> list[OutboxMessage]:
        async with self.database.session() as session:
            query = select(OutboxMessage).where(OutboxMessage.to_address == to).order_by(OutboxMessage.id)
            return list((await session.scalars(query)).all())


@pytest.fixture
def harness(database: Database, knowledge: Knowledge) -> Harness:
    return Harness(database, knowledge)


async def test_a_request_is_received_mailed_to_the_pro_and_confirmed_to_the_homeowner(harness: Harness) -> None:
    answer = await harness.ask()
    assert answer.status == "received" and answer.request_id.startswith("R-")
    assert answer.partner.name == "Dixie Door & Spring" and answer.partner.phone
    assert answer.status_url.startswith(f"{BASE}/requests/") and len(answer.status_url) > len(BASE) + 40
    assert "Dixie Door & Spring has your request" in answer.next_step and "(MST)" in answer.next_step
    assert answer.answer_by - answer.created_at == timedelta(hours=2)
    [notice] = await harness.mails(office(DIXIE))
    assert notice.kind == "partner_request" and answer.request_id in notice.subject
    for words in (
        "Broken or failing spring",
        "loud bang and the door won't open",
        "Dana Reyes",
        "(435) 555-0199",
        "dana@example.com",
        "morning",
        f"{BASE}/partners",
    ):
        assert words in notice.text_body, words
    [confirmation] = await harness.mails("dana@example.com")
    assert answer.request_id in confirmation.subject and answer.status_url in confirmation.text_body
    assert answer.status_url not in notice.text_body  # the pro never gets the homeowner's link
    stored = await harness.partners.requests.repository.by_token(answer.status_url.rsplit("/", 1)[1])
    assert stored is not None and stored.id == answer.request_id and stored.contact_email == "dana@example.com"


async def test_refusals_are_clear_400s(harness: Harness) -> None:
    no_consent = await harness.refused(consent={"contactShare": False})
    assert (no_consent.status, no_consent.code) == (400, "consent_required")
    unknown = await harness.refused(partnerId="no-such-pro")
    assert (unknown.status, unknown.code) == (400, "unknown_partner")
    elsewhere = await harness.refused(zip="94110")  # San Francisco: Dixie does not go there
    assert (elsewhere.status, elsewhere.code) == (400, "partner_not_serving")
    assert "Dixie Door & Spring does not serve ZIP 94110" in elsewhere.message
    unreachable = await harness.refused(contact={"name": "Dana"})
    assert unreachable.code == "invalid_arguments" and "phone number or an e-mail" in str(unreachable.envelope())
    nothing_said = await harness.refused(issueKey=None, description=None)
    assert nothing_said.code == "invalid_arguments"
    too_many = [{"date": "2030-01-01", "partOfDay": "morning"}] * 4
    assert (await harness.refused(windows=too_many)).code == "invalid_arguments"
    assert (await harness.refused(windows=[{"date": "2020-01-01", "partOfDay": "morning"}])).code == (
        "invalid_arguments"
    )
    assert (await harness.refused(windows=[{"date": "2030-01-01", "partOfDay": "night"}])).code == "invalid_arguments"
    assert (await harness.refused(zip="8477")).code == "invalid_arguments"
    assert await harness.mails(office(DIXIE)) == []  # nothing refused reached anyone


async def test_a_retry_with_the_same_key_answers_the_same_request_and_link(harness: Harness) -> None:
    first = await harness.ask(key="retry-1")
    again = await harness.ask(key="retry-1")
    assert again.replayed and (again.request_id, again.status_url) == (first.request_id, first.status_url)
    assert len(await harness.mails(office(DIXIE))) == 1
    with pytest.raises(ServiceError) as reused:
        await invoke(REGISTRY, "requestService", asked(notes="other"), harness.context("retry-1"))
    assert reused.value.code == "invalid_header" and "already used" in reused.value.message


async def test_one_contact_sends_at_most_three_a_day(harness: Harness) -> None:
    for _ in range(3):
        await harness.ask()
    limited = await harness.refused()
    assert (limited.status, limited.code) == (429, "rate_limited")


async def test_each_change_mails_the_homeowner_and_a_decline_goes_to_the_next_pro(harness: Harness) -> None:
    answer = await harness.ask()
    requests = harness.partners.requests
    start = harness.clock.now + timedelta(days=1)
    # Another partner cannot touch it, whatever it names; nor can a partner act as another.
    for who, change in (
        (RED_ROCK, Change(Status.ACCEPTED, Actor.PARTNER, RED_ROCK)),
        (RED_ROCK, Change(Status.DECLINED, Actor.PARTNER, DIXIE)),
        (DIXIE, Change(Status.CANCELLED, Actor.HOMEOWNER)),
    ):
        with pytest.raises(RequestNotFound):
            await requests.change(who, answer.request_id, change)
    assert await requests.repository.for_partner(RED_ROCK) == []
    accepted = await requests.change(
        DIXIE,
        answer.request_id,
        Change(Status.ACCEPTED, Actor.PARTNER, DIXIE, start, start + timedelta(hours=2)),
    )
    assert accepted.status is Status.ACCEPTED
    update = (await harness.mails("dana@example.com"))[-1]
    assert "Dixie Door & Spring will come out" in update.subject and "plans to arrive" in update.text_body
    # Changed its mind: the next nearest pro serving 84770 gets it, and the homeowner hears of that pro.
    declined = await requests.change(
        DIXIE, answer.request_id, Change(Status.DECLINED, Actor.PARTNER, DIXIE, reason="Fully booked")
    )
    assert declined.status is Status.RECEIVED and declined.partner_id in {RED_ROCK, CANYON}
    assert [o.partner_id for o in declined.previous_offers] == [DIXIE]
    [offered] = await harness.mails(office(declined.partner_id))
    assert answer.request_id in offered.subject and "Dana Reyes" in offered.text_body
    told = (await harness.mails("dana@example.com"))[-1]
    assert "is now with" in told.subject and "Dixie" not in told.subject
    assert not any("cannot take" in m.subject for m in await harness.mails("dana@example.com"))
    # Cancelled by the homeowner: the pro who has it is told.
    cancelled = await requests.cancel(answer.status_url.rsplit("/", 1)[1])
    assert cancelled.status is Status.CANCELLED
    assert "Cancelled" in (await harness.mails(office(declined.partner_id)))[-1].subject


async def test_silence_passes_the_request_on_after_the_set_hours_and_then_nobody_is_left(harness: Harness) -> None:
    answer = await harness.ask()
    requests = harness.partners.requests
    harness.clock.now += timedelta(hours=1, minutes=59)
    assert (await requests.sweep()).passed_on == 0
    harness.clock.now += timedelta(minutes=2)
    assert (await requests.sweep()).passed_on == 1
    second = await requests.repository.get(answer.request_id)
    assert second is not None and second.partner_id != DIXIE and second.previous_offers[0].outcome == "no_answer"
    assert "is now with" in (await harness.mails("dana@example.com"))[-1].subject
    harness.clock.now += timedelta(hours=3)
    assert (await requests.sweep()).passed_on == 1  # the third pro
    harness.clock.now += timedelta(hours=3)
    assert (await requests.sweep()).passed_on == 0  # nobody else serves 84770: it stays with the last
    last = await requests.repository.get(answer.request_id)
    assert last is not None and {DIXIE, RED_ROCK, CANYON} == {
        last.partner_id,
        *(o.partner_id for o in last.previous_offers),
    }
    # The last one declines: nobody is left, so the homeowner is told plainly.
    declined = await requests.change(last.partner_id, last.id, Change(Status.DECLINED, Actor.PARTNER, last.partner_id))
    assert declined.status is Status.DECLINED
    assert "cannot take" in (await harness.mails("dana@example.com"))[-1].subject
