"""Location resolution over the real US ZIP data set: ZIPs, ZIP+4, cities, address lines, ambiguity."""

from __future__ import annotations

import pytest

from garage_tools.errors import UnknownLocation
from garage_tools.knowledge.places import Gazetteer, MatchedBy, Place, us_places


@pytest.fixture(scope="module")
def places() -> Gazetteer:
    return us_places()


def resolve(places: Gazetteer, text: str) -> Place:
    """The one place `text` names."""
    [place] = places.candidates(text)
    return place


def test_the_data_set_is_the_whole_country(places: Gazetteer) -> None:
    assert len(places) > 40_000


@pytest.mark.parametrize(
    ("text", "city", "state"),
    [
        ("84770", "Saint George", "UT"),
        ("84101", "Salt Lake City", "UT"),
        ("10001", "New York", "NY"),
        ("60601", "Chicago", "IL"),
        ("85004", "Phoenix", "AZ"),
        ("99501", "Anchorage", "AK"),
        ("96813", "Honolulu", "HI"),
        ("02108", "Boston", "MA"),  # a leading zero is part of the code
    ],
)
def test_zip_codes_across_states(places: Gazetteer, text: str, city: str, state: str) -> None:
    place = resolve(places, text)
    assert (place.city, place.state, place.zip) == (city, state, text)
    assert place.matched_by is MatchedBy.ZIP
    assert -180 < place.lon < 0 < place.lat < 90


@pytest.mark.parametrize("text", ["84770-1234", "847701234", " 84770 1234 "])
def test_zip_plus_4_routes_on_its_first_five_digits(places: Gazetteer, text: str) -> None:
    place = resolve(places, text)
    assert place.zip == "84770" and place.matched_by is MatchedBy.ZIP_PLUS_4


@pytest.mark.parametrize(
    "text", ["123 Main St, St. George, UT 84770", "St George UT 84770-0001", "zip is 84770 thanks", "Unit 12345, 84770"]
)
def test_text_containing_a_zip_uses_the_zip(places: Gazetteer, text: str) -> None:
    place = resolve(places, text)
    assert place.zip == "84770" and place.matched_by is MatchedBy.ZIP_IN_TEXT


@pytest.mark.parametrize(
    ("text", "city", "state"),
    [
        ("St. George, UT", "Saint George", "UT"),
        ("Saint George, UT", "Saint George", "UT"),
        ("st george utah", "Saint George", "UT"),
        ("salt lake city", "Salt Lake City", "UT"),
        ("SALT LAKE CITY UT", "Salt Lake City", "UT"),
        ("Salt Lake City, Utah, USA", "Salt Lake City", "UT"),
        ("portland oregon", "Portland", "OR"),
        ("Portland, ME", "Portland", "ME"),
        ("kansas city, ks", "Kansas City", "KS"),
        ("Cañon City, CO", "Canon City", "CO"),
        ("coeur d'alene", "Coeur D Alene", "ID"),
        ("Ft. Collins, CO", "Fort Collins", "CO"),
        ("Billings, MT", "Billings", "MT"),  # MT is Montana, though "Mt." is "Mount" in a city name
        ("billings mt", "Billings", "MT"),
        ("Mt. Pleasant, SC", "Mount Pleasant", "SC"),
        ("St. Paul, MN", "Saint Paul", "MN"),
    ],
)
def test_city_names(places: Gazetteer, text: str, city: str, state: str) -> None:
    place = resolve(places, text)
    assert (place.city, place.state) == (city, state)
    assert place.matched_by is MatchedBy.CITY
    assert place.zip in place.zips and len(place.zips) >= 1


def test_a_city_covers_all_its_zips_and_routes_from_its_middle(places: Gazetteer) -> None:
    city = resolve(places, "Salt Lake City, UT")
    assert city.zip == "84101"  # its lowest standard ZIP
    assert {"84101", "84102", "84115"} <= set(city.zips)
    downtown = resolve(places, "84101")
    assert abs(city.lat - downtown.lat) < 0.2 and abs(city.lon - downtown.lon) < 0.2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("St. George", ["Saint George, GA", "Saint George, KS", "Saint George, SC", "Saint George, UT"]),
        ("Kansas City", ["Kansas City, KS", "Kansas City, MO"]),
    ],
)
def test_a_city_in_several_states_is_each_of_them(places: Gazetteer, text: str, expected: list[str]) -> None:
    found = places.candidates(text)
    assert [place.label for place in found] == expected
    for place in found:
        assert place.matched_by is MatchedBy.CITY and place.zip in place.zips
        assert resolve(places, place.label) == place  # each, sent back with its state, is that one place


def test_the_largest_of_several_has_the_most_zip_codes(places: Gazetteer) -> None:
    sizes = {place.state: len(place.zips) for place in places.candidates("springfield")}
    assert len(sizes) > 20 and max(sizes, key=lambda state: sizes[state]) == "IL"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("00000", "00000 is not a US ZIP code"),
        ("99999", "99999 is not a US ZIP code"),
        ("Springfield, UT", "no Springfield in UT"),
        ("Gotham Metropolis", "could not find that place"),
        ("   ", "five-digit ZIP code"),
    ],
)
def test_unknown_places_are_400_unknown_location(places: Gazetteer, text: str, says: str) -> None:
    with pytest.raises(UnknownLocation) as caught:
        places.candidates(text)
    assert caught.value.code == "unknown_location" and caught.value.status == 400
    assert says in caught.value.message


def test_unicode_digits_are_not_a_zip(places: Gazetteer) -> None:
    with pytest.raises(UnknownLocation):
        places.candidates("\u0668\u0664\u0667\u0667\u0660")  # 84770 in Arabic-Indic digits
