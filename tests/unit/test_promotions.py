"""getActivePromotions as a pure function: partner first, filters, validity windows, opt-in, legacy regions."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from garage_tools.errors import InvalidArguments
from garage_tools.knowledge.loader import Knowledge
from garage_tools.partners.directory import DirectorySnapshot
from garage_tools.registry import dump, parse_arguments
from garage_tools.tools import promotions as tool
from garage_tools.tools import routing
from tests.unit.partner_data import SAMPLE_DAY, partner, promotion, sample_snapshot, snapshot

TODAY = date(2026, 6, 15)


@pytest.fixture(scope="module")
def directory() -> DirectorySnapshot:
    return snapshot(
        [
            partner("alpha", zips=["84770"], regionKey="ut-southern"),
            partner("beta", zips=["84101"], regionKey="ut-north"),
            partner("shy", zips=["84101"], regionKey="ut-north", promotionsOptIn=False),
            partner("closed", zips=["84101"], regionKey="ut-north", active=False),
        ],
        [
            promotion("alpha-springs", "alpha", issueKeys=["broken_spring"], serviceTypes=["repair"]),
            promotion("alpha-any", "alpha", discountType="percent", discountValue=15, validUntil="2026-07-31"),
            promotion("alpha-new-door", "alpha", serviceTypes=["replacement", "installation"]),
            promotion("alpha-expired", "alpha", validFrom="2025-01-01", validUntil="2026-06-14"),
            promotion("alpha-upcoming", "alpha", validFrom="2026-06-16"),
            promotion("alpha-last-day", "alpha", validFrom="2026-01-01", validUntil="2026-06-15"),
            promotion("alpha-first-day", "alpha", validFrom="2026-06-15", validUntil="2026-06-30"),
            promotion("beta-north", "beta"),
            promotion("beta-for-south", "beta", regionKeys=["ut-southern"]),
            promotion("shy-offer", "shy"),
            promotion("closed-offer", "closed"),
        ],
    )


def ask(knowledge: Knowledge, directory: DirectorySnapshot, today: date = TODAY, **arguments: Any) -> list[str]:
    args = parse_arguments(tool.TOOL, arguments)
    assert isinstance(args, tool.PromotionsInput)
    return [p.id for p in tool.active_promotions(knowledge, directory, args, today).promotions]


def test_partner_id_selects_that_partners_current_offers(knowledge: Knowledge, directory: DirectorySnapshot) -> None:
    assert ask(knowledge, directory, partnerId="alpha") == [
        "alpha-last-day",  # soonest-ending first
        "alpha-first-day",
        "alpha-any",
        "alpha-new-door",
        "alpha-springs",
    ]


def test_offers_outside_their_window_never_appear(knowledge: Knowledge, directory: DirectorySnapshot) -> None:
    on = {day: set(ask(knowledge, directory, day, partnerId="alpha")) for day in (TODAY, date(2026, 6, 16))}
    assert "alpha-expired" not in on[TODAY] and "alpha-upcoming" not in on[TODAY]
    assert {"alpha-last-day", "alpha-first-day"} <= on[TODAY]  # both ends of a window are inclusive
    assert "alpha-last-day" not in on[date(2026, 6, 16)] and "alpha-upcoming" in on[date(2026, 6, 16)]
    assert ask(knowledge, directory, date(2027, 1, 1), partnerId="alpha") == []


def test_issue_key_and_service_type_narrow(knowledge: Knowledge, directory: DirectorySnapshot) -> None:
    springs = ask(knowledge, directory, partnerId="alpha", issueKey="broken_spring")
    assert "alpha-springs" in springs and "alpha-any" in springs  # no issue keys: applies to any issue
    assert "alpha-springs" not in ask(knowledge, directory, partnerId="alpha", issueKey="worn_seal")
    assert "alpha-springs" in ask(knowledge, directory, partnerId="alpha", issueKey="banging_noise")  # a symptom key
    replacing = ask(knowledge, directory, partnerId="alpha", serviceType="replacement")
    assert "alpha-new-door" in replacing and "alpha-springs" not in replacing
    both = ask(knowledge, directory, partnerId="alpha", issueKey="broken_spring", serviceType="repair")
    assert "alpha-springs" in both and "alpha-new-door" not in both


def test_a_partner_without_opted_in_promotions_gets_an_empty_list(
    knowledge: Knowledge, directory: DirectorySnapshot
) -> None:
    args = tool.PromotionsInput.model_validate({"partnerId": "shy"})
    result = tool.active_promotions(knowledge, directory, args, TODAY)
    assert result.promotions == [] and result.count == 0 and result.matched_by == "partnerId"
    assert ask(knowledge, directory, partnerId="closed") == []
    everything = ask(knowledge, directory)
    assert "shy-offer" not in everything and "closed-offer" not in everything


def test_region_key_is_only_a_fallback(knowledge: Knowledge, directory: DirectorySnapshot) -> None:
    # A known partnerId wins: the region is ignored.
    assert "beta-for-south" not in ask(knowledge, directory, partnerId="alpha", regionKey="ut-southern")
    assert set(ask(knowledge, directory, partnerId="beta", regionKey="ut-southern")) == {"beta-north", "beta-for-south"}
    # Absent or unknown partnerId: the region selects (listed regions, else the partner's own region).
    south = ask(knowledge, directory, regionKey="ut-southern")
    assert "beta-for-south" in south and "alpha-any" in south and "beta-north" not in south
    unknown = tool.active_promotions(
        knowledge,
        directory,
        tool.PromotionsInput.model_validate({"partnerId": "nobody", "regionKey": "ut-north"}),
        TODAY,
    )
    assert [p.id for p in unknown.promotions] == ["beta-north"] and unknown.matched_by == "regionKey"
    assert unknown.note and "nobody" in unknown.note


def test_an_unknown_partner_alone_is_an_empty_list_that_says_why(
    knowledge: Knowledge, directory: DirectorySnapshot
) -> None:
    args = tool.PromotionsInput.model_validate({"partnerId": "nobody"})
    result = tool.active_promotions(knowledge, directory, args, TODAY)
    assert result.promotions == [] and result.note and "routeByZip" in result.note


@pytest.mark.parametrize(
    ("arguments", "field", "says"),
    [
        ({"serviceType": "painting"}, "serviceType", "'repair', 'maintenance', 'replacement' or 'installation'"),
        ({"issueKey": "flux_capacitor"}, "issueKey", "broken_spring"),
        ({"partnerId": ""}, "partnerId", "at least 1 character"),
    ],
)
def test_bad_values_are_400_naming_the_allowed_ones(arguments: dict[str, Any], field: str, says: str) -> None:
    with pytest.raises(InvalidArguments) as caught:
        parse_arguments(tool.TOOL, arguments)
    assert caught.value.details is not None and caught.value.details[0].field == field
    assert says in caught.value.message


def test_an_offer_reads_well(knowledge: Knowledge, directory: DirectorySnapshot) -> None:
    args = tool.PromotionsInput.model_validate({"partnerId": "alpha"})
    offers = {p.id: dump(p) for p in tool.active_promotions(knowledge, directory, args, TODAY).promotions}
    assert offers["alpha-springs"]["discount"] == {"type": "amount", "value": 50.0, "label": "$50 off"}
    assert offers["alpha-any"]["discount"]["label"] == "15% off"
    assert offers["alpha-springs"]["validUntil"] == "2026-12-31" and offers["alpha-springs"]["partnerName"]


def test_the_partner_id_route_by_zip_returns_is_accepted(knowledge: Knowledge) -> None:
    samples = sample_snapshot()
    routed = routing.route(
        knowledge,
        samples,
        routing.RouteByZipInput.model_validate({"zipOrLocation": "84770", "issue": "broken_spring", "leadHeat": "hot"}),
    )
    assert routed.partner_id is not None
    args = tool.PromotionsInput.model_validate({"partnerId": routed.partner_id, "issueKey": "broken_spring"})
    result = tool.active_promotions(knowledge, samples, args, SAMPLE_DAY)
    assert result.matched_by == "partnerId" and result.count >= 1
    assert all(p.partner_id == routed.partner_id for p in result.promotions)


def test_the_sample_partner_without_opt_in_shows_nothing(knowledge: Knowledge) -> None:
    samples = sample_snapshot()
    shy = [listing.id for listing in samples.index.listings.values() if not listing.promotions_opt_in]
    assert shy == ["great-salt-door-repair"]
    assert samples.promotions_by_partner.get("great-salt-door-repair")  # it has one on file...
    args = tool.PromotionsInput.model_validate({"partnerId": "great-salt-door-repair"})
    assert tool.active_promotions(knowledge, samples, args, SAMPLE_DAY).promotions == []  # ...never shown
