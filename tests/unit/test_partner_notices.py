"""Leads reach their partners by e-mail, on SQLite and PostgreSQL: a hot lead at once, the others in a digest;
a search is not a lead and mails nobody.

The sample directory gives each partner `office@<id>.example.com`; 84770 (St. George) is served by sample
partners. A lead is an inspection whose homeowner agreed to share their details (or a service request, see
test_service_requests.py); its notice carries their name, address and report link, once per homeowner a day.
"""

from __future__ import annotations

from dataclasses import replace
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
from garage_tools.store.partner_console import PartnerConsoleRepository, Profile
from garage_tools.store.partners import Lead, LeadSource
from garage_tools.store.portal import PortalRepository
from garage_tools.store.referrals import ReferralRepository
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
        await self.partners.referrals.flush()
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


async def test_a_search_is_a_referral_counted_once_and_mails_nobody(harness: Harness) -> None:
    routed = await harness.route("hot")
    again = await harness.route("hot", zip_code="Saint George, UT")  # the same person, the same problem
    assert routed.covered and routed.partner_id == again.partner_id
    assert await harness.mails("partner_lead") == [] and await harness.mails("partner_digest") == []
    async with harness.database.session() as session:
        assert (await session.scalars(select(LeadEvent))).all() == []
    [referral] = await ReferralRepository(harness.database).all()
    assert (referral.partner_id, referral.issue, referral.heat, referral.source) == (
        routed.partner_id,
        "broken_spring",
        "hot",
        "routing",
    )
    await harness.route("hot", issue="worn_rollers")  # another problem is another referral
    assert len(await ReferralRepository(harness.database).all()) == 2
    assert await harness.partners.notices.send_digest(datetime.now(UTC), BASE) == 0


def consented(partner_id: str, heat: str, email: str = "jo@example.com", issue: str = "broken_spring") -> Lead:
    return Lead(
        created_at=datetime.now(UTC),
        partner_id=partner_id,
        covered=True,
        zip="84770",
        issue=issue,
        door_size="16x7",
        lead_heat=heat,
        surface="rest",
        source=LeadSource.INSPECTION,
        report_id="r" * 32,
        contact_name="Jo Tanner",
        contact_email=email,
    )


async def test_warm_and_cold_leads_wait_for_the_digest_which_tells_each_once(harness: Harness) -> None:
    await harness.partners.directory.current()
    red = "red-rock-garage-doors"
    tell = harness.partners.notices.tell_at_once
    await harness.partners.repository.add_leads(
        [consented(red, "warm"), consented(red, "cold", "al@example.com")], tell
    )
    assert await harness.mails("partner_lead") == []
    told = await harness.partners.notices.send_digest(datetime.now(UTC), BASE)
    [digest] = await harness.mails("partner_digest")
    assert told == 2 == digest.text_body.count("What:") and digest.to_address == _office(red)
    assert "What:  Broken or failing spring" in digest.text_body and "How soon: replacement" in digest.text_body
    assert await harness.partners.notices.send_digest(datetime.now(UTC), BASE) == 0
    assert len(await harness.mails("partner_digest")) == 1


async def test_a_partner_who_reads_spanish_gets_its_notices_and_digest_in_spanish(harness: Harness) -> None:
    await harness.partners.directory.current()
    red, console = "red-rock-garage-doors", PartnerConsoleRepository(harness.database)
    partner = await console.partner(red)
    assert partner is not None and partner.language == "en"
    spanish = Profile(partner.phone, partner.scheduler_url, partner.url, language="es")
    assert await console.update_profile(red, spanish, _office(red))
    tell = harness.partners.notices.tell_at_once
    await harness.partners.repository.add_leads([consented(red, "hot"), consented(red, "warm", "al@example.com")], tell)
    [notice] = await harness.mails("partner_lead")
    spring = harness.knowledge.language("es").tree.issues["broken_spring"].name
    assert notice.subject == f"Cliente urgente: {spring.lower()} en 84770"
    assert notice.text_body.startswith("Hola, Red Rock")
    assert f"Qué:    {spring}" in notice.text_body and "Para cuándo: urgente" in notice.text_body
    assert "Cliente: Jo Tanner <jo@example.com> aceptó" in notice.text_body
    assert "Broken" not in notice.text_body and "Hello" not in notice.text_body
    assert await harness.partners.notices.send_digest(datetime.now(UTC), BASE) == 1
    [digest] = await harness.mails("partner_digest")
    assert "1 cliente potencial nuevo desde el último resumen:" in digest.text_body
    assert "Para cuándo: reemplazo" in digest.text_body


async def test_a_lead_whose_homeowner_wrote_spanish_says_so(harness: Harness) -> None:
    await harness.partners.directory.current()
    red = "red-rock-garage-doors"
    tell = harness.partners.notices.tell_at_once
    spanish = replace(consented(red, "hot"), language="es")
    await harness.partners.repository.add_leads([spanish, consented(red, "hot", "al@example.com")], tell)
    told, english = await harness.mails("partner_lead")
    assert "Speaks: Spanish (they wrote in Spanish: send someone who speaks it if you can)" in told.text_body
    assert "Speaks" not in english.text_body
    leads = await PartnerConsoleRepository(harness.database).leads(red)
    assert sorted(str(lead.language) for lead in leads) == ["None", "es"]


async def test_the_same_homeowners_lead_is_told_once_a_day(harness: Harness) -> None:
    await harness.partners.directory.current()
    red = "red-rock-garage-doors"
    tell = harness.partners.notices.tell_at_once
    await harness.partners.repository.add_leads([consented(red, "hot"), consented(red, "hot")], tell)
    await harness.partners.repository.add_leads([consented(red, "hot")], tell)
    [notice] = await harness.mails("partner_lead")
    assert "Homeowner: Jo Tanner <jo@example.com> agreed that you may contact them." in notice.text_body
    await harness.partners.repository.add_leads([consented(red, "hot", "al@example.com")], tell)  # someone else
    assert len(await harness.mails("partner_lead")) == 2
    assert await harness.partners.notices.send_digest(datetime.now(UTC), BASE) == 0  # the repeats count as told


async def test_an_inspection_lead_names_the_homeowner_only_with_consent(harness: Harness) -> None:
    from garage_tools.tools.inspection.models import SubmitInspectionOutput

    shared = await invoke(REGISTRY, "submitInspection", submission(), harness.context())
    items = {"remotes": {"status": "fix"}, "springs": {"status": "fix"}}
    withheld = await invoke(REGISTRY, "submitInspection", submission(consent=False, items=items), harness.context())
    assert isinstance(shared, SubmitInspectionOutput) and isinstance(withheld, SubmitInspectionOutput)
    [first] = await harness.mails("partner_lead")  # without consent, no lead and no notice
    assert "Homeowner: Jo Tanner <jo.tanner@example.com> agreed that you may contact them." in first.text_body
    assert f"Inspection report: {shared.report_url}" in first.text_body
    assert withheld.report_id not in first.text_body


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
                waiting = "SELECT count(*) FROM lead_events WHERE notified_at IS NULL AND contact_email IS NULL"
                assert await session.scalar(text(waiting)) == 0  # back as leads, but told: no digest repeats them
            await migrate_to(database, "0008")
            await migrate_to(database, "0009")
        finally:
            await database.dispose()


async def test_a_flood_of_hot_leads_does_not_bury_a_partner_in_mail(harness: Harness) -> None:
    from garage_tools.partners.notices import URGENT_PER_HOUR

    await harness.partners.directory.current()
    for batch in range(2):
        leads = [consented("red-rock-garage-doors", "hot", f"h{batch}-{n}@example.com") for n in range(URGENT_PER_HOUR)]
        await harness.partners.repository.add_leads(leads, harness.partners.notices.tell_at_once)
    assert len(await harness.mails("partner_lead")) == URGENT_PER_HOUR
    # The rest are kept, and go out in the digest.
    assert await harness.partners.notices.send_digest(datetime.now(UTC), BASE) == URGENT_PER_HOUR


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_migration_0012_turns_searches_into_referrals_and_keeps_consented_leads(
    kind: str, tmp_path: Path
) -> None:
    async with throwaway_url(kind, tmp_path) as url:
        database = Database(url)
        try:
            await migrate_to(database, "0011")
            insert = text(
                "INSERT INTO lead_events (created_at, partner_id, covered, zip, issue, lead_heat, surface, source,"
                " contact_email) VALUES (:at, 'red-rock-garage-doors', true, '84770', 'broken_spring', 'hot', 'web',"
                " :source, :email)"
            )
            at = datetime(2026, 11, 20, 15, tzinfo=UTC)
            async with database.session() as session, session.begin():
                for source, email in [
                    ("routing", None),
                    ("routing", None),
                    ("inspection", None),
                    ("inspection", "j@x.io"),
                ]:
                    await session.execute(insert, {"at": at, "source": source, "email": email})
            await migrate_to(database, "0012")
            async with database.session() as session:
                kept = (await session.execute(text("SELECT source, contact_email FROM lead_events"))).all()
                moved = (await session.execute(text("SELECT source, day, caller FROM referrals ORDER BY source"))).all()
            assert [tuple(row) for row in kept] == [("inspection", "j@x.io")]
            # The two searches of one day collapse into one: who made them was never recorded.
            assert [(row[0], str(row[1]), row[2]) for row in moved] == [
                ("inspection", "2026-11-20", "legacy"),
                ("routing", "2026-11-20", "legacy"),
            ]
            await migrate_to(database, "0011")
            async with database.session() as session:
                assert await session.scalar(text("SELECT count(*) FROM lead_events")) == 3
                waiting = "SELECT count(*) FROM lead_events WHERE notified_at IS NULL AND contact_email IS NULL"
                assert await session.scalar(text(waiting)) == 0  # back as leads, but told: no digest repeats them
        finally:
            await database.dispose()
