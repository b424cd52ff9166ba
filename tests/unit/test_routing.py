"""routeByZip as a pure function over a directory snapshot: coverage, ranking, alternatives, answers."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
import zipcodes

from garage_tools.errors import InvalidArguments, UnknownLocation
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.places import us_places
from garage_tools.partners.directory import DirectorySnapshot
from garage_tools.registry import dump, parse_arguments
from garage_tools.tools.routing import TOOL, RouteByZipInput, RouteOutput, route
from garage_tools.tools.routing.tool import rank
from tests.unit.partner_data import partner, sample_snapshot, snapshot


@pytest.fixture(scope="module")
def samples() -> DirectorySnapshot:
    return sample_snapshot()


def ask(knowledge: Knowledge, directory: DirectorySnapshot, **arguments: Any) -> RouteOutput:
    args = parse_arguments(TOOL, arguments)
    assert isinstance(args, RouteByZipInput)
    return route(knowledge, directory, args)


def test_the_widget_request_from_st_george_reaches_a_bookable_partner(
    knowledge: Knowledge, samples: DirectorySnapshot
) -> None:
    result = ask(knowledge, samples, zipOrLocation="84770", issue="wont_close", leadHeat="hot")
    body = dump(result)
    # The layout clients in the field read (compat.md), exactly.
    assert body["covered"] is True
    assert body["region"] == "Southern Utah"
    assert body["partnerId"] == body["partner"]["id"]
    # The fields clients in the field read, plus only the optional trust facts the partner gave.
    trust = {"licenseNumber", "insured", "yearsInBusiness", "hours", "guarantee"}
    assert {"id", "displayName", "phone", "schedulerUrl", "url"} <= set(body["partner"])
    assert set(body["partner"]) <= {"id", "displayName", "phone", "schedulerUrl", "url"} | trust
    assert body["partner"]["schedulerUrl"].startswith("https://")
    assert "555-01" in body["partner"]["phone"]
    assert samples.index.get(body["partnerId"]) is not None
    assert body["reason"] and "84770" in body["reason"]


def test_salt_lake_city_by_zip_and_by_name(knowledge: Knowledge, samples: DirectorySnapshot) -> None:
    by_zip = ask(knowledge, samples, zipOrLocation="84101")
    by_name = ask(knowledge, samples, zipOrLocation="salt lake city")
    assert by_zip.covered and by_name.covered
    assert by_zip.location.state == by_name.location.state == "UT"
    assert by_name.location.matched_by == "city"


@pytest.mark.parametrize("zip_code", ["85004", "80202", "75201", "30303", "60601", "98101", "97201", "02108"])
def test_sample_directory_covers_several_metros(
    knowledge: Knowledge, samples: DirectorySnapshot, zip_code: str
) -> None:
    assert ask(knowledge, samples, zipOrLocation=zip_code).covered


def test_an_uncovered_area_is_a_success_with_the_nearest_partner_and_a_hint(
    knowledge: Knowledge, samples: DirectorySnapshot
) -> None:
    result = ask(knowledge, samples, zipOrLocation="59101", issue="broken_spring", leadHeat="hot")  # Billings, MT
    body = dump(result)
    assert body["covered"] is False
    assert "partner" not in body and "partnerId" not in body  # a widget must not show a card for it
    nearest = body["nearest"]
    assert nearest["partnerId"] and nearest["distanceMiles"] > 100
    assert nearest["partner"]["displayName"] in body["hint"] and nearest["partner"]["phone"] in body["hint"]
    assert "Billings, MT" in body["hint"]


def test_an_empty_directory_still_answers(knowledge: Knowledge) -> None:
    body = dump(ask(knowledge, snapshot([]), zipOrLocation="84770"))
    assert body["covered"] is False and "nearest" not in body and body["hint"]


def test_nearest_is_the_true_nearest(knowledge: Knowledge) -> None:
    places = us_places()
    rng = random.Random(7)
    codes = rng.sample(sorted(z["zip_code"] for z in zipcodes.list_all()), 400)
    directory = snapshot([partner(f"p{i}", zips=[code]) for i, code in enumerate(codes[:200])])
    listings = list(directory.index.listings.values())
    for code in codes[200:]:
        here = places.zip_place(code)
        assert here is not None
        found = directory.index.nearest(here.lat, here.lon)
        assert found is not None and found.miles is not None
        best = min(miles_between(here.lat, here.lon, item.lat or 0, item.lon or 0) for item in listings)
        assert found.miles == pytest.approx(best)


def miles_between(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Haversine, written out here as the referee for the index's own distance."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dlat, dlon = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dlat / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlon / 2) ** 2
    return 2 * 3958.8 * math.asin(min(1.0, math.sqrt(h)))


# --- ranking ----------------------------------------------------------------------------------

NEAR = "84770"  # St. George
FAR = "84737"  # Hurricane, UT: about 17 miles away


def test_nearest_wins_when_nothing_else_differs(knowledge: Knowledge) -> None:
    directory = snapshot([partner("far", zips=[NEAR], centerZip=FAR, radiusMiles=5), partner("near", zips=[NEAR])])
    result = ask(knowledge, directory, zipOrLocation=NEAR)
    assert result.partner_id == "near"
    assert [a.partner_id for a in result.alternatives] == ["far"]


def test_hot_leads_go_to_emergency_partners_first(knowledge: Knowledge) -> None:
    directory = snapshot(
        [partner("near-daytime", zips=[NEAR]), partner("far-emergency", centerZip=FAR, radiusMiles=40, emergency=True)]
    )
    assert ask(knowledge, directory, zipOrLocation=NEAR, leadHeat="hot").partner_id == "far-emergency"
    assert ask(knowledge, directory, zipOrLocation=NEAR, leadHeat="cold").partner_id == "near-daytime"
    assert ask(knowledge, directory, zipOrLocation=NEAR, leadHeat=None).partner_id == "near-daytime"
    assert ask(knowledge, directory, zipOrLocation=NEAR).partner_id == "near-daytime"
    hot = ask(knowledge, directory, zipOrLocation=NEAR, leadHeat="hot")
    assert "takes emergency calls" in hot.reason


def test_warm_leads_go_to_partners_who_replace_doors(knowledge: Knowledge) -> None:
    directory = snapshot(
        [
            partner("near-repairs", zips=[NEAR], services=["repair", "maintenance"]),
            partner("far-replaces", centerZip=FAR, radiusMiles=40, services=["replacement", "installation"]),
        ]
    )
    assert ask(knowledge, directory, zipOrLocation=NEAR, leadHeat="warm").partner_id == "far-replaces"
    assert ask(knowledge, directory, zipOrLocation=NEAR, leadHeat="cold").partner_id == "near-repairs"


def test_fitting_the_issue_comes_before_the_lead_heat(knowledge: Knowledge) -> None:
    directory = snapshot(
        [
            partner("emergency-installer", zips=[NEAR], services=["installation"], emergency=True),
            partner("spring-repairer", centerZip=FAR, radiusMiles=40, services=["repair"]),
        ]
    )
    result = ask(knowledge, directory, zipOrLocation=NEAR, issue="broken_spring", leadHeat="hot")
    assert result.partner_id == "spring-repairer"
    assert "does repair" in result.reason and "emergency" in result.reason
    assert result.alternatives[0].partner_id == "emergency-installer"


def test_a_preferred_partner_that_serves_the_place_comes_first(knowledge: Knowledge) -> None:
    directory = snapshot(
        [
            partner("contractor", centerZip=FAR, radiusMiles=40, services=["installation"]),
            partner("best-fit", zips=[NEAR], services=["repair"], emergency=True),
            partner("elsewhere", zips=[FAR]),
        ]
    )
    hot = {"zipOrLocation": NEAR, "issue": "broken_spring", "leadHeat": "hot"}
    assert ask(knowledge, directory, **hot).partner_id == "best-fit"
    preferred = ask(knowledge, directory, **hot, preferredPartnerId="contractor")
    assert preferred.partner_id == "contractor"
    assert "the preferred partner" in preferred.reason
    assert [a.partner_id for a in preferred.alternatives] == ["best-fit"]
    # One that does not serve the place, or that nobody knows, changes nothing.
    for other in ("elsewhere", "no-such-partner"):
        result = ask(knowledge, directory, **hot, preferredPartnerId=other)
        assert result.partner_id == "best-fit"
        assert "does not serve it" in result.reason


def test_a_preferred_partner_id_is_checked_like_any_argument() -> None:
    with pytest.raises(InvalidArguments, match="preferredPartnerId"):
        parse_arguments(TOOL, {"zipOrLocation": NEAR, "preferredPartnerId": "<script>"})


def test_a_symptom_key_routes_like_its_most_likely_issue(knowledge: Knowledge) -> None:
    directory = snapshot(
        [
            partner("seals-only", zips=[NEAR], services=["maintenance"]),
            partner("repairs", centerZip=FAR, radiusMiles=40, services=["repair"]),
        ]
    )
    by_symptom = ask(knowledge, directory, zipOrLocation=NEAR, issue="banging_noise")
    by_issue = ask(knowledge, directory, zipOrLocation=NEAR, issue="broken_spring")
    assert by_symptom.partner_id == by_issue.partner_id == "repairs"
    assert by_symptom.issue is not None and by_symptom.issue.issue_key == "broken_spring"
    seal = ask(knowledge, directory, zipOrLocation=NEAR, issue="weather_seal_damaged")
    assert seal.partner_id == "seals-only"


def test_at_most_two_alternatives_next_best_first(knowledge: Knowledge) -> None:
    directory = snapshot(
        [
            partner("a", zips=[NEAR]),
            partner("b", centerZip=NEAR, radiusMiles=10, emergency=True),
            partner("c", centerZip=FAR, radiusMiles=40, emergency=True),
            partner("d", centerZip="84720", radiusMiles=80, emergency=True),  # Cedar City, about 50 miles
        ]
    )
    result = ask(knowledge, directory, zipOrLocation=NEAR, leadHeat="hot")
    assert result.partner_id == "b"
    assert [a.partner_id for a in result.alternatives] == ["c", "d"]
    assert all(a.partner.scheduler_url for a in result.alternatives)
    assert "best of 4" in result.reason
    alone = ask(knowledge, snapshot([partner("solo", zips=[NEAR])]), zipOrLocation=NEAR)
    assert alone.alternatives == []


def test_service_areas_by_prefix_zip_and_radius(knowledge: Knowledge) -> None:
    directory = snapshot(
        [
            partner("prefix", zipPrefixes=["841"]),
            partner("single-zip", zips=["84115"]),
            partner("radius", centerZip="84720", radiusMiles=60),
        ]
    )
    served = {code: ask(knowledge, directory, zipOrLocation=code) for code in ["84101", "84115", "84770", "84601"]}
    assert served["84101"].partner_id == "prefix"
    assert {served["84115"].partner_id, *(a.partner_id for a in served["84115"].alternatives)} == {
        "prefix",
        "single-zip",
    }
    assert served["84770"].partner_id == "radius"  # about 48 miles from Cedar City
    assert not served["84601"].covered  # Provo: none of them
    city = ask(knowledge, directory, zipOrLocation="Salt Lake City, UT")
    assert {city.partner_id, *(a.partner_id for a in city.alternatives)} == {"prefix", "single-zip"}


def test_inactive_partners_get_no_leads(knowledge: Knowledge) -> None:
    directory = snapshot(
        [partner("retired", zips=[NEAR], active=False), partner("open", centerZip=FAR, radiusMiles=50)]
    )
    result = ask(knowledge, directory, zipOrLocation=NEAR)
    assert result.partner_id == "open" and result.alternatives == []
    far_away = ask(knowledge, snapshot([partner("retired", zips=[NEAR], active=False)]), zipOrLocation=NEAR)
    assert not far_away.covered and far_away.nearest is None


# --- input ------------------------------------------------------------------------------------


def test_locations_that_cannot_be_routed_are_400(knowledge: Knowledge, samples: DirectorySnapshot) -> None:
    with pytest.raises(UnknownLocation):
        ask(knowledge, samples, zipOrLocation="00000")


# --- a city name without its state --------------------------------------------------------------


def test_a_city_without_its_state_routes_to_the_likeliest_place_and_says_so(
    knowledge: Knowledge, samples: DirectorySnapshot
) -> None:
    body = dump(ask(knowledge, samples, zipOrLocation="St. George"))  # the LangChain agent's own example
    assert body["covered"] is True and body["region"] == "Southern Utah" and body["partner"]["phone"]
    location = body["location"]
    assert (location["city"], location["state"], location["ambiguous"]) == ("Saint George", "UT", True)
    others = {(place["city"], place["state"]): place for place in location["alternatives"]}
    assert set(others) == {("Saint George", "GA"), ("Saint George", "KS"), ("Saint George", "SC")}
    assert not any(place["covered"] for place in others.values())
    assert others["Saint George", "GA"]["zip"] == "31562"
    hint = body["hint"]
    assert "Saint George, UT" in hint and "the one a partner serves" in hint
    assert all(f"Saint George, {state}" in hint for state in ("GA", "KS", "SC"))


def test_a_place_a_partner_serves_comes_before_a_bigger_one(knowledge: Knowledge) -> None:
    result = ask(knowledge, snapshot([partner("georgia", zips=["31562"])]), zipOrLocation="st george")
    assert result.covered and result.partner_id == "georgia"
    assert result.location.state == "GA" and result.location.ambiguous
    assert result.location.alternatives is not None
    assert result.location.alternatives[0].state == "UT"  # then the one with the most ZIP codes


def test_with_no_partner_in_any_of_them_the_one_with_most_zip_codes_is_taken(knowledge: Knowledge) -> None:
    body = dump(ask(knowledge, snapshot([partner("far", zips=["10001"])]), zipOrLocation="St. George"))
    assert body["covered"] is False and body["location"]["state"] == "UT" and body["location"]["ambiguous"]
    assert "most ZIP codes" in body["hint"]  # why this one, then the usual advice for an uncovered area
    assert "We don't have a vetted partner for Saint George, UT yet" in body["hint"]


def test_of_several_a_partner_serves_the_largest_is_taken(knowledge: Knowledge, samples: DirectorySnapshot) -> None:
    result = ask(knowledge, samples, zipOrLocation="Kansas City")
    assert result.covered and result.location.state == "MO"
    assert result.location.alternatives is not None
    assert [(place.state, place.covered) for place in result.location.alternatives] == [("KS", True)]
    assert result.hint is not None and "the largest of those a partner serves" in result.hint


@pytest.mark.parametrize("where", ["Saint George, UT", "84770", "salt lake city", "123 Main St, St George 84770"])
def test_a_place_named_once_is_not_ambiguous(knowledge: Knowledge, samples: DirectorySnapshot, where: str) -> None:
    body = dump(ask(knowledge, samples, zipOrLocation=where))
    assert body["covered"] is True and body["location"]["ambiguous"] is False
    assert "alternatives" not in body["location"] and "hint" not in body


@pytest.mark.parametrize(
    ("arguments", "field", "says"),
    [
        ({"leadHeat": "urgent"}, "leadHeat", "'hot', 'warm' or 'cold'"),
        ({"issue": "flux_capacitor"}, "issue", "broken_spring"),
        ({"issue": "flux_capacitor"}, "issue", "wont_close"),
        ({"doorSize": "16 by 7"}, "doorSize", "<width>x<height>"),
        ({"zipOrLocation": ""}, "zipOrLocation", "at least 1 character"),
    ],
)
def test_bad_arguments_name_the_field_and_the_allowed_values(arguments: dict[str, Any], field: str, says: str) -> None:
    with pytest.raises(InvalidArguments) as caught:
        parse_arguments(TOOL, {"zipOrLocation": "84770", **arguments})
    assert caught.value.details is not None and caught.value.details[0].field == field
    assert says in caught.value.message


def test_null_lead_heat_means_absent_and_door_sizes_are_accepted(knowledge: Knowledge) -> None:
    args = parse_arguments(TOOL, {"zipOrLocation": "84770", "leadHeat": None, "doorSize": "16x7", "issue": None})
    assert isinstance(args, RouteByZipInput) and args.lead_heat is None and args.door_size == "16x7"


def test_the_published_schema_lists_issue_and_symptom_keys_and_lead_heats() -> None:
    schema = TOOL.input_model.model_json_schema(by_alias=True)
    issue = schema["properties"]["issue"]
    assert "broken_spring" in issue["enum"] and "wont_close" in issue["enum"] and None in issue["enum"]
    assert schema["required"] == ["zipOrLocation"]


def test_equally_good_matches_take_fair_turns(knowledge: Knowledge) -> None:
    # Two partners serving the same ZIP codes, doing the same work: neither wins every tie by its name.
    directory = snapshot([partner("aaa-doors", zips=[NEAR]), partner("zzz-doors", zips=[NEAR])])
    serving = directory.index.serving(directory.places.candidates(NEAR)[0])
    firsts = [rank(serving, set(), None, set(), turn=f"2026-12-{day:02d}|{NEAR}")[0].listing.id for day in range(1, 31)]
    assert 8 <= firsts.count("zzz-doors") <= 22  # about half the days each
    today = ask(knowledge, directory, zipOrLocation=NEAR)
    assert today.partner_id == ask(knowledge, directory, zipOrLocation=NEAR).partner_id  # the same all day
    nearer = snapshot(
        [partner("zzz-doors", zips=[NEAR]), partner("aaa-doors", zips=[NEAR], centerZip=FAR, radiusMiles=5)]
    )
    assert ask(knowledge, nearer, zipOrLocation=NEAR).partner_id == "zzz-doors"  # turns only among equals
