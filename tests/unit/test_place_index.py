"""The packaged US place index: what the `zipcodes` package gives, in a shape its schema and checks hold to."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import zipcodes
from pydantic import ValidationError

from garage_tools.knowledge.data_files import schema_for
from garage_tools.knowledge.loader import DATA_DIR
from garage_tools.knowledge.place_index import PlaceIndex, build_place_index, check_place_index, read_place_index
from garage_tools.knowledge.places import us_places

REPO = Path(__file__).resolve().parents[2]
RECORDS: list[dict[str, Any]] = zipcodes.list_all()  # type: ignore[no-untyped-call]


@pytest.fixture(scope="module")
def packaged() -> PlaceIndex:
    return read_place_index()


def test_the_packaged_index_is_what_the_installed_package_gives() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_place_index.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "is up to date" in done.stdout


def test_every_zip_code_of_the_package_reads_back_as_the_package_has_it() -> None:
    places = us_places()
    assert len(places) == len(RECORDS)
    for record in RECORDS:
        place = places.zip_place(record["zip_code"])
        assert place is not None, record["zip_code"]
        assert (place.city, place.state) == (record["city"], record["state"])
        assert (place.lat, place.lon) == (float(record["lat"]), float(record["long"]))


def test_the_packaged_index_passes_its_checks_and_names_its_source(packaged: PlaceIndex) -> None:
    assert check_place_index(packaged) == []
    assert packaged.source.startswith("zipcodes ")


def test_the_schema_file_is_current() -> None:
    on_disk = json.loads((DATA_DIR / "schemas" / "us_places.schema.json").read_text())
    assert on_disk == schema_for(PlaceIndex), "run `garage-tools knowledge schemas` to refresh us_places.schema.json"


def record(code: str, kind: str, city: str, state: str, lat: str, lon: str, *others: str) -> dict[str, Any]:
    """A record as `zipcodes.list_all()` gives it (the fields the index reads)."""
    return {"zip_code": code, "zip_code_type": kind, "city": city, "state": state, "lat": lat, "long": lon,
            "acceptable_cities": list(others)}  # fmt: skip


SMALL = [
    record("84770", "STANDARD", "Saint George", "UT", "37.1", "-113.6", "St George"),
    record("31562", "PO BOX", "Saint George", "GA", "30.5", "-82.0"),
    record("84101", "STANDARD", "Salt Lake City", "UT", "40.75", "-111.89"),
]


def test_a_small_index_is_built_in_zip_order_with_folded_names() -> None:
    index = build_place_index(reversed(SMALL), "test")
    assert index.zips == "31562 84101 84770" and index.kinds == "PSS"
    assert index.names.keys == ["saint george", "salt lake city"]
    assert index.names.rows == [0, 2, 1] and index.names.starts == [0, 2, 3]
    assert index.other_names.keys == ["saint george"] and index.other_names.rows == [2]
    assert index.lat[2] == 371_000 and index.lon[2] == -1_136_000
    assert check_place_index(index) == []


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"kinds": "PS"}, "do not line up"),
        ({"city": [0, 5, 0]}, "points past its list"),
        ({"names": {"keys": ["saint george"], "starts": [0, 2], "rows": [0, 2, 1]}}, "starts do not match"),
        ({"zips": "31562 84101 8477"}, "String should match pattern"),
        ({"kinds": "PSX"}, "String should match pattern"),
    ],
)
def test_an_index_out_of_shape_is_refused_on_reading(change: dict[str, Any], says: str) -> None:
    raw = build_place_index(SMALL, "test").model_dump(by_alias=True) | change
    with pytest.raises(ValidationError, match=says):
        PlaceIndex.model_validate(raw)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"zips": "84101 31562 84770"}, "ascending"),
        ({"names": {"keys": ["salt lake city", "saint george"], "starts": [0, 2, 3], "rows": [0, 2, 1]}}, "folded"),
        ({"names": {"keys": ["saint george", "salt lake city"], "starts": [0, 1, 3], "rows": [0, 2, 1]}}, "another"),
        ({"names": {"keys": ["saint george", "salt lake city"], "starts": [0, 2, 3], "rows": [0, 2, 2]}}, "once"),
        ({"lat": [300_000, 407_500, 910_000]}, "latitude"),
    ],
)
def test_the_check_finds_what_the_schema_cannot(change: dict[str, Any], says: str) -> None:
    raw = build_place_index(SMALL, "test").model_dump(by_alias=True) | change
    problems = check_place_index(PlaceIndex.model_validate(raw))
    assert any(says in problem for problem in problems), problems
