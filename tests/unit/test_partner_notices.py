"""Leads reach their partners by e-mail, on SQLite and PostgreSQL: a hot lead at once, the others in a digest.

The sample directory gives each partner `office@<id>.example.com`; 84770 (St. George) is served by sample
partners, so a hot broken-spring request there is a lead with an address to tell. A notice carries the
homeowner's name, address and report link only when the inspection's homeowner agreed to share them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text

from garage_tools.access.caller import Caller
from garage_tools.access.ratelimit import RateLimiter
from garage_tools.cli.partner_files import FileFormat, read_partners, write_partners
from garage_tools.knowledge.directory import load_sample_partners
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.places import us_places
from garage_tools.mail import Mail, Outbox
from garage_tools.partners.service import Partners
from garage_tools.registry import ToolContext, ToolData, invoke
from garage_tools.store.database import Database
from garage_tools.store.models import LeadEvent, LoginToken, OutboxMessage
from garage_tools.store.partner_console import PartnerConsoleRepository
from garage_tools.store.portal import PortalRepository
from garage_tools.tools import build_registry
from garage_tools.tools.routing import RouteOutput
from garage_tools.web.signin import PARTNERS, SignIn
from tests.databases import migrate_to, throwaway_url
from tests.unit.test_inspection_leads import submission

BASE = "https://doors.example.com"
REGISTRY = build_registry()


class Harness:
    def __init__(self, database: Database, knowledge: Knowledge) -> None:
        self.database = database
        self.knowledge = knowledge
        self.outbox = Outbox(database, domain="doors.example.com")
        self.partners = Partners.over(database, outbox=self.outbox, knowledge=knowledge)

    def context(self) -> ToolContext:
        data = ToolData(database=self.database, outbox=self.outbox, partners=self.partners)
        caller = Caller.anonymous("rest", "203.0.113.9")
        return ToolContext(knowledge=self.knowledge, caller=caller, base_url=BASE, data=data)

    async def route(self, heat: str | None, zip_code: str = "84770", issue: str = "broken_spring") -> RouteOutput:
        arguments: dict[str, Any] = {"zipOrLocation": zip_code, "issue": issue, "doorSize": "16x7"}
        if heat:
            arguments["leadHeat"] = heat
        result = await invoke(REGISTRY, "routeByZip", arguments, self.context())
        assert isinstance(result, RouteOutput)
        await self.partners.leads.flush()
        return result

    async def mails(self, kind: str) -> list[OutboxMessage]:
        async with self.database.session() as session:
            query = select(OutboxMessage).where(OutboxMessage.kind == kind).order_by(OutboxMessage.id)
            return list((await session.scalars(query)).all())


@pytest.fixture
def harness(database: Database, knowledge: Knowledge) -> Harness:
    return Harness(database, knowledge)


def _office(partner_id: str | None) -> str:
    return f"office@{partner_id}.example.com"


async def test_the_sample_directory_gives_every_partner_an_office_address(harness: Harness) -> None:
    await harness.partners.directory.current()  # seeds the samples
    rows = await harness.partners.repository.load()
    assert rows.partners and all(p.contact_email == _office(p.id) for p in rows.partners)
    console = PartnerConsoleRepository(harness.database)
    assert await console.partner_of("office@red-rock-garage-doors.example.com") == "red-rock-garage-doors"
    assert await console.partner_of("someone@example.com") is None


def test_contact_addresses_round_trip_and_are_checked_on_import() -> None:
    places = us_places()
    sample = list(load_sample_partners().partners)
    for fmt in FileFormat:
        again = read_partners(write_partners(sample, fmt), fmt, places)
        assert again.ok and [p.contact_email for p in again.records] == [p.contact_email for p in sample]
    bad = write_partners(sample[:2], FileFormat.CSV).replace(_office(sample[0].id), "not an address", 1)
    parsed = read_partners(bad, FileFormat.CSV, places)
    assert not parsed.ok and "contactEmail: must be one e-mail address" in str(parsed.problems[0])
    shared = write_partners(sample[:2], FileFormat.CSV).replace(_office(sample[1].id), _office(sample[0].id))
    parsed = read_partners(shared, FileFormat.CSV, places)
    assert [str(p) for p in parsed.problems] == [
        f"line 3: contactEmail: {_office(sample[0].id)} is already partner {sample[0].id!r}'s"
    ]


async def test_a_hot_lead_is_mailed_to_its_partner_at_once_without_personal_data(harness: Harness) -> None:
    routed = await harness.route("hot")
    assert routed.covered and routed.partner_id
    [notice] = await harness.mails("partner_lead")
    assert notice.to_address == _office(routed.partner_id)
    assert notice.subject == "Urgent lead: broken or failing spring in 84770"
    expected = ("What:  Broken or failing spring", "Where: ZIP 84770", "Door:  16x7", "How soon: urgent")
    for words in (*expected, f"{BASE}/partners"):
        assert words in notice.text_body
    assert "did not share contact details" in notice.text_body and "Homeowner:" not in notice.text_body
    async with harness.database.session() as session:
        [lead] = (await session.scalars(select(LeadEvent))).all()
    assert lead.notified_at is not None  # told once: the digest will not repeat it


async def test_warm_and_cold_leads_wait_for_the_digest_which_tells_each_once(harness: Harness) -> None:
    warm = await harness.route("warm")
    await harness.route("cold", issue="worn_rollers")
    await harness.route(None, zip_code="94110")  # no partner serves it: nobody to tell
    assert await harness.mails("partner_lead") == []
    told = await harness.partners.notices.send_digest(datetime.now(UTC), BASE)
    digests = await harness.mails("partner_digest")
    assert told == sum(d.text_body.count("What:") for d in digests) >= 1
    mine = [d for d in digests if d.to_address == _office(warm.partner_id)]
    assert len(mine) == 1
    assert "What:  Broken or failing spring" in mine[0].text_body and "How soon: replacement" in mine[0].text_body
    assert await harness.partners.notices.send_digest(datetime.now(UTC), BASE) == 0
    assert len(await harness.mails("partner_digest")) == len(digests)


async def test_an_inspection_lead_names_the_homeowner_only_with_consent(harness: Harness) -> None:
    from garage_tools.tools.inspection.models import SubmitInspectionOutput

    shared = await invoke(REGISTRY, "submitInspection", submission(), harness.context())
    items = {"remotes": {"status": "fix"}, "springs": {"status": "fix"}}
    withheld = await invoke(REGISTRY, "submitInspection", submission(consent=False, items=items), harness.context())
    assert isinstance(shared, SubmitInspectionOutput) and isinstance(withheld, SubmitInspectionOutput)
    first, second = await harness.mails("partner_lead")
    assert "Homeowner: Jo Tanner <jo.tanner@example.com> agreed that you may contact them." in first.text_body
    assert f"Inspection report: {shared.report_url}" in first.text_body
    assert "tanner" not in second.text_body.lower() and withheld.report_id not in second.text_body
    assert "did not share contact details" in second.text_body


async def test_a_partner_link_goes_only_to_a_partner_address(harness: Harness) -> None:
    await harness.partners.directory.current()
    console = PartnerConsoleRepository(harness.database)

    async def is_partner(email: str) -> bool:
        return await console.partner_of(email) is not None

    sign_in = SignIn(PortalRepository(harness.database), RateLimiter(), harness.outbox, PARTNERS, admits=is_partner)

    def compose(to: str) -> Any:
        return lambda token: Mail(to=to, subject="Sign in", text=f"{BASE}/partners/confirm/{token}", kind="magic_link")

    assert await sign_in.request_link(_office("red-rock-garage-doors"), "203.0.113.9", compose(_office("x")))
    assert not await sign_in.request_link("stranger@example.com", "203.0.113.9", compose("stranger@example.com"))
    async with harness.database.session() as session:
        tokens = (await session.scalars(select(LoginToken))).all()
    assert [(t.email, t.audience) for t in tokens] == [(_office("red-rock-garage-doors"), "partner")]


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_the_migration_counts_earlier_leads_as_told(kind: str, tmp_path: Path) -> None:
    async with throwaway_url(kind, tmp_path) as url:
        database = Database(url)
        try:
            await migrate_to(database, "0008")
            async with database.session() as session, session.begin():
                await session.execute(
                    text(
                        "INSERT INTO lead_events (created_at, partner_id, covered, surface, source)"
                        " VALUES (:at, 'red-rock-garage-doors', true, 'rest', 'routing')"
                    ),
                    {"at": datetime(2026, 11, 1, tzinfo=UTC)},
                )
            await migrate_to(database, "0009")
            async with database.session() as session:
                assert await session.scalar(text("SELECT count(*) FROM lead_events WHERE notified_at IS NULL")) == 0
            await migrate_to(database, "0008")
            await migrate_to(database, "0009")
        finally:
            await database.dispose()


async def test_a_flood_of_hot_leads_does_not_bury_a_partner_in_mail(harness: Harness) -> None:
    from garage_tools.partners.notices import URGENT_PER_HOUR
    from garage_tools.store.partners import Lead

    await harness.partners.directory.current()
    lead = Lead(
        created_at=datetime.now(UTC),
        partner_id="red-rock-garage-doors",
        covered=True,
        zip="84770",
        issue="broken_spring",
        door_size=None,
        lead_heat="hot",
        surface="rest",
    )
    for _ in range(2):
        await harness.partners.repository.add_leads([lead] * URGENT_PER_HOUR, harness.partners.notices.tell_at_once)
    assert len(await harness.mails("partner_lead")) == URGENT_PER_HOUR
    # The rest are kept, and go out in the digest.
    assert await harness.partners.notices.send_digest(datetime.now(UTC), BASE) == URGENT_PER_HOUR
