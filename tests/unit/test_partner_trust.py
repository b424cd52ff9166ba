"""What a homeowner weighs before calling a pro: license, insurance, years in business, hours and guarantee travel
from the directory (import and export, CSV and JSON) and the console's profile form to routeByZip's card."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from garage_tools.cli.partner_files import FileFormat, read_partners, write_partners
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.places import us_places
from garage_tools.registry import dump, parse_arguments
from garage_tools.store.database import Database
from garage_tools.store.partner_console import PartnerConsoleRepository
from garage_tools.store.partners import PartnerRepository
from garage_tools.tools.routing import TOOL, RouteByZipInput, route
from garage_tools.web.partners.forms import read_profile
from tests.unit.partner_data import partner, sample_snapshot

HEADER = "id,displayName,phone,url,region,regionKey,zipPrefixes,services,insured,inBusinessSince,licenseNumber,hours"


def test_csv_reads_the_trust_columns_and_leaves_what_is_empty_unsaid() -> None:
    rows = [
        'a-doors,A Doors,(435) 555-0150,https://a.example.com,R,r,847,repair,yes,1998,UT-1,"Mon-Fri 8-5"',
        "b-doors,B Doors,(435) 555-0151,https://b.example.com,R,r,847,repair,,,,",
    ]
    parsed = read_partners("\n".join([HEADER, *rows]), FileFormat.CSV, us_places())
    assert parsed.problems == []
    first, second = parsed.records
    assert (first.insured, first.in_business_since, first.license_number, first.hours) == (
        True,
        1998,
        "UT-1",
        "Mon-Fri 8-5",
    )
    assert (second.insured, second.in_business_since, second.license_number, second.hours) == (None, None, None, None)
    for fmt in FileFormat:
        assert read_partners(write_partners(parsed.records, fmt), fmt, us_places()).records == parsed.records


@pytest.mark.parametrize(
    ("column", "value"), [("insured", "perhaps"), ("inBusinessSince", "1700"), ("timeZone", "Mars/Olympus")]
)
def test_a_bad_trust_value_is_named_with_its_line(column: str, value: str) -> None:
    text = f"id,displayName,phone,url,region,regionKey,zipPrefixes,services,{column}\n"
    text += f"a-doors,A Doors,(435) 555-0150,https://a.example.com,R,r,847,repair,{value}\n"
    parsed = read_partners(text, FileFormat.CSV, us_places())
    assert [problem.line for problem in parsed.problems] == [2] and column in str(parsed.problems[0])


def test_the_profile_form_holds_the_trust_fields_to_plain_rules() -> None:
    base = {"phone": "(435) 555-0150", "website": "https://a.example.com"}
    good = read_profile(base | {"license": " UT-S280  9 ", "insured": "yes", "since": "2004", "guarantee": "1 year"})
    assert good.value is not None
    assert (good.value.license_number, good.value.insured, good.value.in_business_since) == ("UT-S280 9", True, 2004)
    assert good.value.hours is None and good.value.guarantee == "1 year"
    bad = read_profile(base | {"since": str(datetime.now(UTC).year + 1), "insured": "maybe", "hours": "x" * 121})
    assert bad.value is None and set(bad.problems) == {"since", "insured", "hours"}


async def test_the_console_saves_them_for_its_own_partner_only(database: Database) -> None:
    await PartnerRepository(database).seed([partner("red-doors", zipPrefixes=["847"])], [])
    console = PartnerConsoleRepository(database)
    form = {"phone": "(435) 555-0150", "website": "https://red.example.com", "insured": "no", "since": "1990"}
    checked = read_profile(form | {"hours": "Mon-Sat 7am-6pm"})
    assert checked.value is not None
    assert await console.update_profile("red-doors", checked.value, "office@red.example.com")
    stored = await console.partner("red-doors")
    assert stored is not None and (stored.insured, stored.in_business_since, stored.hours) == (
        False,
        1990,
        "Mon-Sat 7am-6pm",
    )
    assert not await console.update_profile("blue-doors", checked.value, "office@red.example.com")


def test_the_pro_card_carries_them_when_given(knowledge: Knowledge) -> None:
    args = parse_arguments(TOOL, {"zipOrLocation": "84770"})
    assert isinstance(args, RouteByZipInput)
    answer = dump(route(knowledge, sample_snapshot(), args))
    cards = {card["id"]: card for card in [answer["partner"], *(a["partner"] for a in answer["alternatives"])]}
    dixie = cards["dixie-door-and-spring"]
    assert dixie["licenseNumber"] == "UT-S280-0000102" and dixie["insured"] is True
    assert dixie["yearsInBusiness"] == datetime.now(UTC).year - 2004
    assert dixie["guarantee"] == "1-year warranty on parts and labor"
    others = [card for key, card in cards.items() if key not in ("dixie-door-and-spring", "red-rock-garage-doors")]
    assert all("licenseNumber" not in card and "insured" not in card for card in others)  # not said: not shown
