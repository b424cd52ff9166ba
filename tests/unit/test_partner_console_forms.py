"""The partner console's forms hold a partner to the directory's own rules, in plain words, and keep what they
do not show."""

from __future__ import annotations

from datetime import UTC, datetime

from garage_tools.web.partners.forms import AS_BEFORE, read_lead_filter, read_profile, read_promotion
from garage_tools.web.partners.spreadsheet import spreadsheet_cells
from tests.unit.partner_data import promotion

ISSUES = ["broken_spring", "broken_cable", "worn_rollers"]


def offer(**changes: str) -> dict[str, str]:
    fields = {
        "title": "  Spring   special ",
        "description": "Both springs.",
        "discount_type": "percent",
        "discount_value": "15%",
        "issue": "broken_spring",
        "service_repair": "on",
        "valid_from": "2026-12-01",
        "valid_until": "2026-12-31",
    }
    return {**fields, **changes}


def test_an_offer_is_read_into_a_directory_record() -> None:
    record = read_promotion(offer(), "red-rock", "red-rock-abc123", ISSUES).value
    assert record is not None
    assert (record.title, record.discount_value, record.issue_keys, record.region_keys) == (
        "Spring special",
        15,
        ["broken_spring"],
        [],
    )
    assert [s.value for s in record.service_types] == ["repair"] and record.partner_id == "red-rock"


def test_each_bad_field_is_named_in_plain_words() -> None:
    bad = offer(title="", discount_value="150", issue="not_an_issue", valid_from="soon", valid_until="2026-01-01")
    problems = read_promotion(bad, "red-rock", "red-rock-abc123", ISSUES).problems
    assert problems == {
        "title": "Give the offer a title of 1 to 120 characters.",
        "discount_value": "Enter a discount above 0 and at most 100.",
        "valid_from": "Enter a date such as 2026-12-31, from 2000 to 2100.",
        "issue": "Choose a problem from the list.",
    }
    backwards = read_promotion(offer(valid_until="2026-11-01"), "red-rock", "x-1", ISSUES).problems
    assert backwards == {"valid_until": "The last day cannot come before the first."}


def test_changing_an_imported_offer_keeps_its_regions_and_issues() -> None:
    before = promotion("imported", "red-rock", regionKeys=["ut-southern"], issueKeys=["broken_cable", "broken_spring"])
    kept = read_promotion(offer(issue=AS_BEFORE), "red-rock", "imported", ISSUES, before=before).value
    assert kept is not None and kept.issue_keys == ["broken_cable", "broken_spring"]
    assert kept.region_keys == ["ut-southern"]
    narrowed = read_promotion(offer(issue="worn_rollers"), "red-rock", "imported", ISSUES, before=before).value
    assert narrowed is not None and narrowed.issue_keys == ["worn_rollers"]


def test_the_profile_follows_the_directory_rules() -> None:
    good = read_profile({"phone": "(435) 555-0199", "booking": "", "website": "https://doors.example.com"}).value
    assert good is not None and good.scheduler_url is None
    problems = read_profile({"phone": "555", "booking": "javascript:alert(1)", "website": "http://a.example"}).problems
    assert set(problems) == {"phone", "booking", "website"}


def test_the_lead_filter_takes_whole_days_and_refuses_nonsense() -> None:
    wanted, problems = read_lead_filter({"heat": "hot", "from": "2026-11-01", "to": "2026-11-30"})
    assert problems == {} and wanted.heat == "hot"
    assert wanted.since == datetime(2026, 11, 1, tzinfo=UTC) and wanted.until == datetime(2026, 12, 1, tzinfo=UTC)
    wanted, problems = read_lead_filter({"heat": "boiling", "to": "tomorrow"})
    assert set(problems) == {"heat", "to"} and wanted.heat is None and wanted.until is None


def test_a_spreadsheet_cell_never_starts_a_formula() -> None:
    assert spreadsheet_cells(["=HYPERLINK(1)", "+1", "-2", "@x", "Jo", ""]) == [
        "'=HYPERLINK(1)",
        "'+1",
        "'-2",
        "'@x",
        "Jo",
        "",
    ]


def test_a_cell_that_only_looks_like_text_is_neutralised_too() -> None:
    """Spreadsheets skip leading spaces and read full-width and small forms as the formula characters."""
    sly = [" =1+1", "\u00a0=1+1", "\t=1", "\uff1dSUM(A1)", "\uff0b1", "\uff0d1", "\uff20x", "\ufe66x", "\u22121"]
    assert spreadsheet_cells(sly) == [f"'{cell}" for cell in sly]
    assert spreadsheet_cells(["Café = good", "84770", "Jo-Ann"]) == ["Café = good", "84770", "Jo-Ann"]


def test_dates_beyond_the_years_the_store_holds_are_asked_again() -> None:
    wanted, problems = read_lead_filter({"from": "0001-01-01", "to": "9999-12-31"})
    assert set(problems) == {"from", "to"} and wanted.since is None and wanted.until is None
    far = read_promotion(offer(valid_until="9999-12-31"), "red-rock", "x-1", ISSUES).problems
    assert far == {"valid_until": "Enter a date such as 2026-12-31, from 2000 to 2100."}
