"""The console's store keeps partners apart in the query itself, on SQLite and PostgreSQL: whatever ids a form
carries, a partner reads and changes only its own rows, and an address the directory drops opens nothing."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from garage_tools.store.database import Database
from garage_tools.store.partner_console import LeadFilter, PartnerConsoleRepository, Profile
from garage_tools.store.partners import Lead, PartnerRepository
from tests.unit.partner_data import partner, promotion

RED, BLUE = "red-doors", "blue-doors"


@pytest.fixture
async def console(database: Database) -> PartnerConsoleRepository:
    directory = PartnerRepository(database)
    await directory.seed(
        [
            partner(RED, zipPrefixes=["847"], contactEmail="office@red.example.com"),
            partner(BLUE, zipPrefixes=["847"], contactEmail="office@blue.example.com"),
        ],
        [promotion("blue-offer", BLUE)],
    )
    now = datetime.now(UTC)
    await directory.add_leads(
        [
            Lead(now, RED, True, "84770", "broken_spring", "16x7", "hot", "rest"),
            Lead(now, BLUE, True, "84770", "worn_rollers", None, "cold", "rest"),
        ]
    )
    return PartnerConsoleRepository(database)


async def test_an_address_names_one_partner_and_a_dropped_one_none(
    database: Database, console: PartnerConsoleRepository
) -> None:
    assert await console.partner_of("office@red.example.com") == RED
    assert await console.partner_of("office@nobody.example.com") is None
    await PartnerRepository(database).replace_partners([partner(RED, zipPrefixes=["847"])])  # no address now
    assert await console.partner_of("office@red.example.com") is None
    assert await console.partner_of("office@blue.example.com") is None  # its partner is gone


async def test_leads_and_promotions_are_each_partners_own(console: PartnerConsoleRepository) -> None:
    assert [lead.issue for lead in await console.leads(RED)] == ["broken_spring"]
    assert await console.leads(RED, LeadFilter(heat="cold")) == []
    assert await console.promotions(RED) == []
    assert [p.id for p in await console.promotions(BLUE)] == ["blue-offer"]


async def test_a_partner_cannot_change_or_end_anothers_offer(console: PartnerConsoleRepository) -> None:
    hijack = promotion("blue-offer", RED, title="Hijacked")  # RED's form naming BLUE's offer
    assert not await console.save_promotion(hijack, "office@red.example.com", new=False)
    assert not await console.save_promotion(hijack, "office@red.example.com", new=True)  # the id is taken
    assert not await console.end_promotion(RED, "blue-offer", date(2026, 6, 1), "office@red.example.com")
    [kept] = await console.promotions(BLUE)
    assert kept.title == "Offer blue-offer" and kept.valid_until == date(2026, 12, 31)
    assert await console.audit(RED) == []


async def test_each_change_is_audited_and_bumps_the_directory(
    database: Database, console: PartnerConsoleRepository
) -> None:
    directory = PartnerRepository(database)
    before = await directory.version()
    profile = Profile("(435) 555-0111", None, "https://red.example.com")
    assert await console.update_profile(RED, profile, "office@red.example.com")
    assert await console.set_opt_in(RED, False, "office@red.example.com")
    assert await console.save_promotion(promotion("red-1", RED), "office@red.example.com", new=True)
    assert await console.end_promotion(RED, "red-1", date(2026, 6, 1), "office@red.example.com")
    assert await directory.version() == before + 4
    stored = await console.partner(RED)
    assert stored is not None and stored.phone == "(435) 555-0111" and not stored.promotions_opt_in
    [ended] = await console.promotions(RED)
    assert ended.valid_until == date(2026, 5, 31)
    actions = [entry.action for entry in await console.audit(RED)]
    assert actions == ["promotion.end", "promotion.create", "promotions.opt_out", "profile.update"]
    assert {entry.actor for entry in await console.audit(RED)} == {"office@red.example.com"}
    other = await console.partner(BLUE)
    assert other is not None and other.phone == "(435) 555-0150" and other.promotions_opt_in
