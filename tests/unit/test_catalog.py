"""getDoorStyles: catalog coverage and every filter, alone and combined."""

from __future__ import annotations

import pytest

from garage_tools.errors import InvalidArguments
from garage_tools.knowledge.loader import Knowledge
from garage_tools.registry import parse_arguments
from garage_tools.tools.catalog import TOOL, DoorStylesInput, find_styles


def args(**fields: object) -> DoorStylesInput:
    return parse_arguments(TOOL, fields)


def test_catalog_covers_every_type_and_budget(knowledge: Knowledge) -> None:
    styles = find_styles(knowledge, args()).styles
    assert len(styles) >= 20
    combos = {(s.type, s.budget) for s in styles}
    assert len(combos) == 15  # five types x three budgets


def test_every_style_has_what_users_compare(knowledge: Knowledge) -> None:
    for style in find_styles(knowledge, args()).styles:
        assert style.id and style.name and style.features
        assert 0 < style.price_range.min <= style.price_range.max
        assert style.r_value >= 0
        ratings = style.ratings
        assert all(
            1 <= r <= 5 for r in (ratings.durability, ratings.insulation, ratings.curb_appeal, ratings.low_maintenance)
        )


def test_results_are_cheapest_first(knowledge: Knowledge) -> None:
    prices = [s.price_range.min for s in find_styles(knowledge, args()).styles]
    assert prices == sorted(prices)


def test_filters_combine(knowledge: Knowledge) -> None:
    result = find_styles(knowledge, args(budget="premium", type="insulated", minRValue=12))
    assert result.count == len(result.styles) > 0
    for style in result.styles:
        assert style.budget == "premium" and style.type == "insulated" and style.r_value >= 12


def test_max_price_keeps_styles_that_start_within_budget(knowledge: Knowledge) -> None:
    result = find_styles(knowledge, args(maxPriceUsd=1000))
    assert result.styles
    assert all(s.price_range.min <= 1000 for s in result.styles)
    everything = find_styles(knowledge, args()).count
    assert result.count < everything


def test_no_match_is_an_empty_list(knowledge: Knowledge) -> None:
    result = find_styles(knowledge, args(type="glass", minRValue=25))
    assert result.styles == [] and result.count == 0


@pytest.mark.parametrize(
    ("field", "value", "allowed"), [("budget", "cheap", "mid-range"), ("type", "wood", "aluminum")]
)
def test_bad_enum_value_names_the_allowed_values(field: str, value: str, allowed: str) -> None:
    with pytest.raises(InvalidArguments) as caught:
        args(**{field: value})
    assert field in caught.value.message and allowed in caught.value.message


@pytest.mark.parametrize("field", ["maxPriceUsd", "minRValue"])
def test_negative_numbers_are_rejected(field: str) -> None:
    with pytest.raises(InvalidArguments):
        args(**{field: -1})


@pytest.mark.parametrize("value", [False, True, "100", "1e3"])
def test_numbers_must_be_json_numbers(value: object) -> None:
    with pytest.raises(InvalidArguments):
        args(maxPriceUsd=value)
    assert args(maxPriceUsd=1500).max_price_usd == 1500


def test_in_spanish_the_words_change_and_the_facts_do_not(knowledge: Knowledge) -> None:
    english, spanish = find_styles(knowledge, args()), find_styles(knowledge, args(lang="es"))
    assert spanish.lang == "es" and english.lang == "en"
    assert [s.id for s in spanish.styles] == [s.id for s in english.styles]  # same styles, same order
    for en, es in zip(english.styles, spanish.styles, strict=True):
        assert (es.price_range, es.r_value, es.type, es.budget, es.ratings) == (
            en.price_range,
            en.r_value,
            en.type,
            en.budget,
            en.ratings,
        )
        assert es.name != en.name and len(es.features) == len(en.features)
    assert spanish.price_basis.startswith("Los precios") and find_styles(knowledge, args(lang="fr")).lang == "en"
