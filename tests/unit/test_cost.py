"""costEstimate: size classes, regional adjustment, validation of every argument."""

from __future__ import annotations

import pytest

from garage_tools.errors import InvalidArguments
from garage_tools.knowledge.loader import Knowledge
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


def test_zip_without_regional_data_uses_the_national_range(knowledge: Knowledge) -> None:
    result = estimate(knowledge, args(issueKey="worn_seal", zip="84770"))
    assert result.region is None
    assert result.cost_range == result.national_range
    assert any("84770" in a for a in result.assumptions)


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
