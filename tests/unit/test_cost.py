"""costEstimate: size classes, regional adjustment, validation of every argument."""

from __future__ import annotations

import pytest

from garage_tools.errors import InvalidArguments
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.places import us_places
from garage_tools.knowledge.regional_prices import COVERED_STATES, local_factor
from garage_tools.registry import parse_arguments
from garage_tools.tools.cost import TOOL, CostEstimateInput, estimate, parse_door_size


def args(**fields: object) -> CostEstimateInput:
    return parse_arguments(TOOL, fields)


def test_every_issue_key_of_the_tree_has_an_estimate(knowledge: Knowledge) -> None:
    for key in knowledge.tree.issues:
        result = estimate(knowledge, args(issueKey=key))
        assert result.cost_range.min <= result.cost_range.max
        assert result.covers and result.sources and result.assumptions


def test_double_doors_cost_more_than_single_for_springs(knowledge: Knowledge) -> None:
    single = estimate(knowledge, args(issueKey="broken_spring", doorSize="9x7"))
    double = estimate(knowledge, args(issueKey="broken_spring", doorSize="16x7"))
    assert single.size_class == "single" and double.size_class == "double"
    assert double.cost_range.max > single.cost_range.max
    assert double.door_size is not None and double.door_size.width_ft == 16


def test_no_size_assumes_a_single_car_door_and_says_so(knowledge: Knowledge) -> None:
    result = estimate(knowledge, args(issueKey="broken_spring"))
    assert result.size_class == "single"
    assert any("single-car" in a for a in result.assumptions)


def test_high_cost_metro_zip_raises_the_range(knowledge: Knowledge) -> None:
    national = estimate(knowledge, args(issueKey="broken_cable"))
    manhattan = estimate(knowledge, args(issueKey="broken_cable", zip="10001"))
    assert manhattan.region is not None and manhattan.region.multiplier > 1
    assert manhattan.cost_range.min > national.cost_range.min
    assert manhattan.national_range == national.cost_range


def test_low_cost_metro_zip_lowers_the_range(knowledge: Knowledge) -> None:
    phoenix = estimate(knowledge, args(issueKey="broken_cable", zip="85004"))
    assert phoenix.region is not None and phoenix.region.multiplier < 1
    assert phoenix.cost_range.max < phoenix.national_range.max


@pytest.mark.parametrize(
    ("code", "state", "place"),
    [("84770", "UT", "Saint George, UT"), ("59601", "MT", "Helena, MT"), ("04101", "ME", "Portland, ME"),
     ("33101", "FL", "Miami, FL")],
)  # fmt: skip
def test_a_zip_outside_the_metros_gets_its_states_price_level(
    knowledge: Knowledge, code: str, state: str, place: str
) -> None:
    result = estimate(knowledge, args(issueKey="broken_spring", doorSize="16x7", zip=code))
    assert result.region is not None and result.region.kind == "state" and result.region.state == state
    assert result.region.place == place and result.region.year == 2023
    assert result.region.sources and "bea.gov" in result.region.sources[0].url
    assert result.cost_range != result.national_range  # a local price, not the national one
    assert result.national_range.min == 200 and result.national_range.max == 600
    assert any(code in a and "not a quote" in a for a in result.assumptions)


def test_every_zip_of_the_states_and_dc_has_a_local_factor(knowledge: Knowledge) -> None:
    places = us_places()
    without = [
        code
        for code in places.zip_codes()
        if local_factor(knowledge.regional_prices, places, code) is None
        and (place := places.zip_place(code)) is not None
        and place.state in COVERED_STATES
    ]
    assert without == []


def test_a_zip_the_data_set_lacks_takes_the_state_of_its_prefix(knowledge: Knowledge) -> None:
    result = estimate(knowledge, args(issueKey="worn_seal", zip="84799"))  # not a ZIP in use; 847 is Utah
    assert result.region is not None and result.region.state == "UT" and result.region.place is None


def test_territories_get_the_national_range_and_say_why(knowledge: Knowledge) -> None:
    result = estimate(knowledge, args(issueKey="worn_seal", zip="00901"))  # San Juan, PR: no RPP
    assert result.region is None
    assert result.cost_range == result.national_range
    assert any("00901" in a for a in result.assumptions)


def test_the_emergency_surcharge_is_priced_like_the_range(knowledge: Knowledge) -> None:
    national = estimate(knowledge, args(issueKey="broken_spring"))
    assert national.emergency_surcharge is not None
    assert (national.emergency_surcharge.min, national.emergency_surcharge.max) == (75, 150)
    dearer = estimate(knowledge, args(issueKey="broken_spring", zip="10001"))
    assert dearer.emergency_surcharge is not None and dearer.emergency_surcharge.max > 150


def test_safety_note_only_when_applicable(knowledge: Knowledge) -> None:
    assert estimate(knowledge, args(issueKey="broken_spring")).safety_note
    assert estimate(knowledge, args(issueKey="broken_spring")).diy_risk == "unsafe"
    assert estimate(knowledge, args(issueKey="worn_seal")).safety_note is None


def test_unknown_issue_key_lists_the_valid_keys(knowledge: Knowledge) -> None:
    with pytest.raises(InvalidArguments) as caught:
        estimate(knowledge, args(issueKey="flux_capacitor"))
    assert "broken_spring" in caught.value.message and "worn_seal" in caught.value.message
    assert caught.value.details and caught.value.details[0].field == "issueKey"


def test_a_symptom_key_is_explained(knowledge: Knowledge) -> None:
    with pytest.raises(InvalidArguments) as caught:
        estimate(knowledge, args(issueKey="wont_close"))
    assert "symptom key" in caught.value.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [("16x7", (16, 7)), ("9 X 7.5", (9, 7.5)), ("8'x7'", (8, 7)), ("18ftx8ft", (18, 8)), ("10\u00d78", (10, 8))],
)
def test_door_size_formats(text: str, expected: tuple[float, float]) -> None:
    assert parse_door_size(text) == expected


@pytest.mark.parametrize("bad", ["16", "16x", "x7", "16by7", "big", "100x7", "16x2", "-16x7", "16x7x3"])
def test_bad_door_sizes_are_rejected_naming_the_field(bad: str) -> None:
    with pytest.raises(InvalidArguments) as caught:
        args(issueKey="broken_spring", doorSize=bad)
    assert caught.value.details and caught.value.details[0].field == "doorSize"


@pytest.mark.parametrize("bad", ["1234", "123456", "abcde", "1234a", 94110])
def test_zip_must_be_five_digits(bad: object) -> None:
    with pytest.raises(InvalidArguments) as caught:
        args(issueKey="broken_spring", zip=bad)
    assert "zip" in caught.value.message


def test_unknown_fields_are_named() -> None:
    with pytest.raises(InvalidArguments) as caught:
        args(issueKey="broken_spring", doorsize="16x7")
    assert caught.value.details == [caught.value.details[0]]
    assert caught.value.details[0].field == "doorsize"
