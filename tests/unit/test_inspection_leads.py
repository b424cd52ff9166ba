"""An inspection that needs a pro names the local partner and records a lead for it, on SQLite and PostgreSQL.

The partner is the one routeByZip's rule picks (the sample directory covers 84770, St. George); with the
homeowner's consent the lead is written with the report and carries their name, e-mail address and report.
Without it there is no lead, only an anonymous referral (demand), like a search's.
The report e-mail (text and HTML) names the pro and shows the reference pictures, in words, not field names.
"""

from __future__ import annotations

import asyncio
import html
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, inspect, select, text

from garage_tools.access.caller import Caller
from garage_tools.knowledge.loader import Knowledge
from garage_tools.mail import Outbox
from garage_tools.partners.service import Partners
from garage_tools.registry import ToolContext, ToolData, dump, invoke, parse_arguments
from garage_tools.store.database import Database
from garage_tools.store.models import InspectionRecord, LeadEvent
from garage_tools.store.partners import Lead, LeadSource
from garage_tools.store.referrals import NewReferral, ReferralRepository
from garage_tools.tools import build_registry
from garage_tools.tools.inspection.models import SubmitInspectionOutput
from garage_tools.tools.routing import TOOL as ROUTING
from garage_tools.tools.routing import RouteOutput, route
from tests.databases import migrate_to, throwaway_url

BASE = "https://doors.example.com"
REGISTRY = build_registry()
#: Words a homeowner must never read: tool names, argument names, JSON keys.
MACHINE_WORDS = (
    "routeByZip",
    "getInspectionReferencePhotos",
    "submitInspection",
    "itemId",
    "issueKey",
    "leadHeat",
    "contactShare",
    "zipOrLocation",
    "broken_spring",
    "call_a_pro_now",
)


def submission(zip_code: str = "84770", consent: bool = True, **changes: Any) -> dict[str, Any]:
    valid: dict[str, Any] = {
        "recipient": {"email": "Jo.Tanner@Example.com", "zip": zip_code, "name": "Jo Tanner"},
        "consent": {"marketing": False, "contactShare": consent},
        "door": {"size": "16x7"},
        "items": {
            "spring-safety-cables": {"status": "fix", "note": "No cable through the left spring"},
            "springs": {"status": "watch"},
            "hinges": {"status": "fix"},
            "remotes": {"status": "fix"},
            "lock-and-handles": {"status": "fix"},
        },
        "emailReport": True,
    }
    return {**valid, **changes}


class Harness:
    def __init__(self, database: Database, knowledge: Knowledge) -> None:
        self.database = database
        self.knowledge = knowledge
        self.outbox = Outbox(database, domain="doors.example.com")
        self.partners = Partners.over(database)  # the packaged sample directory, seeded on first use

    def context(self, key: str | None = None) -> ToolContext:
        data = ToolData(database=self.database, outbox=self.outbox, partners=self.partners)
        caller = Caller.anonymous("rest", "203.0.113.9")
        return ToolContext(knowledge=self.knowledge, caller=caller, base_url=BASE, data=data, idempotency_key=key)

    async def submit(self, arguments: dict[str, Any], key: str | None = None) -> SubmitInspectionOutput:
        result = await invoke(REGISTRY, "submitInspection", arguments, self.context(key))
        assert isinstance(result, SubmitInspectionOutput)
        return result

    async def routed(self, zip_code: str, issue: str | None) -> RouteOutput:
        """What routeByZip's rule answers for the same place and issue (a hot lead)."""
        args = parse_arguments(ROUTING, {"zipOrLocation": zip_code, "issue": issue, "leadHeat": "hot"})
        return route(self.knowledge, await self.partners.directory.current(), args)

    async def leads(self) -> list[Lead]:
        return [lead for lead in await self.partners.repository.leads() if lead.source is LeadSource.INSPECTION]

    async def referrals(self) -> list[NewReferral]:
        await self.partners.referrals.flush()
        return await ReferralRepository(self.database).all()


@pytest.fixture
def harness(database: Database, knowledge: Knowledge) -> Harness:
    return Harness(database, knowledge)


async def test_with_consent_the_pro_is_named_and_gets_the_homeowners_details(harness: Harness) -> None:
    answer = await harness.submit(submission())
    # The containment and the hinges need a pro, and neither has an issue key: the remotes (yours to fix) don't
    # decide the job, so the pro is routed for no issue in particular.
    expected = await harness.routed("84770", None)
    assert expected.covered and expected.partner is not None
    pro = answer.next_step.local_pro
    assert pro is not None and pro.partner_id == expected.partner_id  # routeByZip's rule, not a second one
    assert (pro.name, pro.phone, pro.booking_url) == (
        expected.partner.display_name,
        expected.partner.phone,
        expected.partner.scheduler_url,
    )
    assert pro.covered and pro.contact_details_sent
    assert f"{pro.name} serves your area: call {pro.phone} or book online." in answer.next_step.text

    [lead] = await harness.leads()
    assert (lead.partner_id, lead.covered, lead.zip, lead.issue, lead.lead_heat, lead.door_size) == (
        expected.partner_id,
        True,
        "84770",
        None,
        "hot",
        "16x7",
    )
    # What the partner will see: who, how to reach them, and the report, because the homeowner agreed.
    assert (lead.report_id, lead.contact_name, lead.contact_email) == (
        answer.report_id,
        "Jo Tanner",
        "jo.tanner@example.com",
    )

    # The tool's JSON stays useful to agents: the machine fields are all there.
    shown = dump(answer)
    assert shown["nextStep"]["tool"] == "routeByZip" and shown["nextStep"]["arguments"]["leadHeat"] == "hot"
    assert shown["nextStep"]["localPro"]["partnerId"] == expected.partner_id
    containment = shown["flaggedItems"][0]
    assert containment["itemId"] == "spring-safety-cables"
    assert containment["referencePhotos"] == {
        "tool": "getInspectionReferencePhotos",
        "itemId": "springs",
        "severity": "FIX",
    }


async def test_a_lead_keeps_the_language_the_homeowner_wrote_in(harness: Harness) -> None:
    await harness.submit(submission(lang="es"))
    await harness.submit(submission(recipient={"email": "al@example.com", "zip": "84770", "name": "Al"}))
    assert [lead.language for lead in await harness.leads()] == ["es", "en"]


async def test_without_consent_the_pro_is_named_but_gets_no_lead_only_a_referral(harness: Harness) -> None:
    items = {"remotes": {"status": "fix"}, "springs": {"status": "fix"}}
    answer = await harness.submit(submission(consent=False, items=items))
    pro = answer.next_step.local_pro
    expected = await harness.routed("84770", "broken_spring")
    assert pro is not None and pro.partner_id == expected.partner_id
    assert pro.covered and not pro.contact_details_sent
    assert f"{pro.name} serves your area" in answer.next_step.text
    assert "We have not passed on your details: they hear from you only if you get in touch." in answer.next_step.text
    assert await harness.leads() == []
    [referral] = await harness.referrals()
    assert (referral.partner_id, referral.issue, referral.zip, referral.heat, referral.source) == (
        pro.partner_id,
        "broken_spring",
        "84770",
        "hot",
        "inspection",
    )
    async with harness.database.session() as session:
        rows = (await session.scalars(select(LeadEvent))).all()
    stored = " ".join(str(vars(row)) for row in rows)
    assert "tanner" not in stored.lower() and answer.report_id not in stored


async def test_an_area_no_partner_serves_names_the_nearest_and_shares_nothing(harness: Harness) -> None:
    answer = await harness.submit(submission(zip_code="94110"))  # San Francisco: no sample partner
    pro = answer.next_step.local_pro
    assert pro is not None and not pro.covered and not pro.contact_details_sent
    assert f"No partner of ours serves your area yet. The nearest is {pro.name}" in answer.next_step.text
    assert await harness.leads() == []
    [referral] = await harness.referrals()
    assert (referral.partner_id, referral.covered, referral.zip) == (None, False, "94110")


async def test_repairs_you_can_do_yourself_route_nobody(harness: Harness) -> None:
    items = {"remotes": {"status": "fix"}, "bottom-seal": {"status": "watch"}}
    answer = await harness.submit(submission(items=items))
    assert answer.next_step.local_pro is None and answer.next_step.text.startswith("You can fix the remote controls")
    assert await harness.leads() == [] and await harness.referrals() == []


async def test_a_retried_submission_records_one_lead(harness: Harness) -> None:
    first, *others = await asyncio.gather(*(harness.submit(submission(), key="retry-1") for _ in range(3)))
    assert {answer.report_id for answer in others} == {first.report_id}
    async with harness.database.session() as session:
        assert await session.scalar(select(func.count()).select_from(InspectionRecord)) == 1
    assert len(await harness.leads()) == 1


async def test_the_email_names_the_pro_and_shows_the_pictures_in_plain_words(harness: Harness) -> None:
    answer = await harness.submit(submission())
    mail = await harness.outbox.latest_to("jo.tanner@example.com")
    assert mail is not None and mail.html is not None
    pro = answer.next_step.local_pro
    assert pro is not None and pro.phone and pro.booking_url
    for body, name in ((mail.text, pro.name), (mail.html, html.escape(pro.name))):
        for word in MACHINE_WORDS:
            assert word not in body, word
        assert name in body and pro.phone in body and pro.booking_url in body
        assert "we have sent them your name, e-mail address and this report" in body
        assert f"{answer.report_url}#item-spring-safety-cables" in body  # where the pictures are, inline
    assert "STOP USING THE DOOR" in mail.text
    digits = "".join(ch for ch in pro.phone if ch.isdigit())
    assert "Stop using the door</p>" in mail.html and f'href="tel:+1{digits}"' in mail.html
    # The stop sentence names only the urgent item; hinges, remotes and the lock get sentences of their own.
    stop = next(line for line in mail.text.splitlines() if line.startswith("Stop using the door until"))
    assert "spring containment" in stop and "hinges" not in stop and "remote" not in stop
    assert "Also have the technician repair the hinges." in mail.text
    # An item whose own gallery exists shows the picture of its severity, as a JPEG every mail client shows.
    assert mail.html.count("format=jpeg") == 2  # the remotes (fix) and the springs (watch)
    assert f'src="{BASE}/photos/remotes-fix.webp?v=' in mail.html
    assert f'src="{BASE}/photos/springs-watch.webp?v=' in mail.html
    # The containment's gallery shows the springs it guards: a broken spring is not what was reported, so the
    # e-mail shows no picture of one and links to the report, which shows a healthy spring to compare.
    assert "springs-fix.webp" not in mail.html and "healthy.webp" not in mail.html
    assert "Pictures to compare with, in your report" in mail.html
    assert 'alt="Illustration of' in mail.html


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_migration_0007_keeps_earlier_leads_as_routing_leads_and_goes_back(kind: str, tmp_path: Path) -> None:
    async with throwaway_url(kind, tmp_path) as url:
        database = Database(url)
        try:
            await migrate_to(database, "0006")
            async with database.engine.begin() as connection:
                await connection.execute(
                    text(
                        "INSERT INTO lead_events (created_at, partner_id, covered, zip, surface) "
                        "VALUES (:at, 'red-rock-garage-doors', true, '84770', 'rest')"
                    ),
                    {"at": datetime.now(UTC)},
                )
            await migrate_to(database, "0007")
            async with database.session() as session:
                [earlier] = (
                    await session.execute(text("SELECT source, report_id, contact_email FROM lead_events"))
                ).all()
            assert tuple(earlier) == ("routing", None, None)
            await migrate_to(database, "0006")
            async with database.engine.begin() as connection:
                columns = await connection.run_sync(
                    lambda sync: {column["name"] for column in inspect(sync).get_columns("lead_events")}
                )
            assert not columns & {"source", "report_id", "contact_name", "contact_email"}
        finally:
            await database.dispose()
