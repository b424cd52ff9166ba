"""The US places as a compact prebuilt index: `data/us_places.json`, made from the `zipcodes` package.

Reading the package's list at run time took 2 s on an idle machine and 8 s on a busy one (42,789
dictionaries, then every city name folded), and the first routing call of every process waited for it.
The index keeps only what lookups use, in columns (one entry per ZIP code, in ZIP order), with the
city names already folded, so it reads in a few milliseconds into a handful of lists. Regenerate it
when the `zipcodes` package is upgraded:

    uv run python scripts/build_place_index.py          # writes data/us_places.json
    uv run python scripts/build_place_index.py --check  # exit 1 when the file is not what the package gives

Name lookups are written as offsets (`starts`) into one list of row numbers (`rows`) rather than as a
mapping of lists: one list instead of 29,000, which is most of what makes the file quick to read.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any

import orjson
from pydantic import BaseModel, Field, model_validator

from garage_tools.knowledge.schemas import DataModel, Text

PLACE_INDEX_PATH = Path(__file__).parent / "data" / "us_places.json"
SCALE = 10_000  # the USPS list gives positions to four decimals: stored as whole numbers of 1/10,000 degree

#: Letters of `kinds`, from the USPS ZIP code types.
KINDS = {"STANDARD": "S", "PO BOX": "P", "UNIQUE": "U", "MILITARY": "M"}

# Abbreviations folded into the word the USPS list spells out, on both sides of a lookup.
_ABBREVIATIONS = {"st": "saint", "ste": "sainte", "ft": "fort", "mt": "mount", "pt": "point"}
_WORD = re.compile(r"[a-z0-9]+")


def fold(text: str, *, spell_out: bool = True) -> str:
    """Lower case, accents and apostrophes dropped, single spaces, and (for city names) abbreviations spelled out."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    plain = plain.replace("'", " ").replace("\u2019", " ")
    words = _WORD.findall(plain)
    return " ".join(_ABBREVIATIONS.get(word, word) for word in words) if spell_out else " ".join(words)


Row = Annotated[int, Field(ge=0)]


class NameTable(DataModel):
    """Folded names and the ZIP rows of each: rows[starts[k]:starts[k + 1]] belong to keys[k]."""

    keys: list[str] = Field(description="Folded names (see `fold`), ascending.")
    starts: list[Row] = Field(description="Where each name's rows begin in `rows`; one more entry than `keys`.")
    rows: list[Row] = Field(description="Row numbers (positions in `zips`), ascending within each name.")


class PlaceIndex(DataModel):
    """`data/us_places.json`. Every per-ZIP column has one entry per ZIP code, in the order of `zips`."""

    about: Text
    source: Text = Field(description="The package and version the index was built from, e.g. `zipcodes 3.0.0`.")
    zips: str = Field(
        pattern=r"^[0-9]{5}( [0-9]{5})*$",
        description="Every five-digit ZIP code, ascending, separated by single spaces.",
    )
    kinds: str = Field(
        pattern=r"^[SPUM]*$",
        description="One letter per ZIP code: S standard, P PO box, U unique (one firm), M military.",
    )
    cities: list[str] = Field(description="The distinct city names as the USPS spells them, ascending.")
    city: list[Row] = Field(description="Per ZIP code: its city, a position in `cities`.")
    states: list[Annotated[str, Field(pattern=r"^[A-Z]{2}$")]] = Field(description="The state codes, ascending.")
    state: list[Row] = Field(description="Per ZIP code: its state, a position in `states`.")
    lat: list[int] = Field(description="Per ZIP code: latitude in 1/10,000 degree.")
    lon: list[int] = Field(description="Per ZIP code: longitude in 1/10,000 degree.")
    names: NameTable = Field(description="Each city's folded name to its ZIP codes.")
    other_names: NameTable = Field(
        alias="otherNames", description="Other names the USPS accepts for a ZIP code's city, folded, to the ZIP codes."
    )

    @model_validator(mode="after")
    def _columns_line_up(self) -> PlaceIndex:
        # Cheap enough for every read (lengths and extremes, in C); `check_place_index` goes further.
        count = len(self.zips) // 6 + 1 if self.zips else 0
        columns = {"kinds": len(self.kinds), "city": len(self.city), "state": len(self.state)}
        columns |= {"lat": len(self.lat), "lon": len(self.lon)}
        uneven = {name: length for name, length in columns.items() if length != count}
        if len(self.zips) != count * 6 - 1 or uneven:
            raise ValueError(f"the columns do not line up with the {count} ZIP codes: {uneven}")
        beyond = max(self.city, default=-1) >= len(self.cities) or max(self.state, default=-1) >= len(self.states)
        if beyond:
            raise ValueError("a city or state number points past its list")
        for table in (self.names, self.other_names):
            if len(table.starts) != len(table.keys) + 1 or table.starts[-1] != len(table.rows):
                raise ValueError("a name table's starts do not match its keys and rows")
            if table.rows and max(table.rows) >= count:
                raise ValueError("a name table points past the last ZIP code")
        return self


#: Schema files `garage-tools knowledge schemas` writes for this module (name -> model).
PLACE_FILES: dict[str, type[BaseModel]] = {"us_places.json": PlaceIndex}


def build_place_index(records: Iterable[Mapping[str, Any]], source: str) -> PlaceIndex:
    """The index of the `zipcodes` package's records (`zipcodes.list_all()`)."""
    rows = sorted(records, key=lambda record: str(record["zip_code"]))
    cities = sorted({str(row["city"]) for row in rows})
    states = sorted({str(row["state"]) for row in rows})
    city_number = {name: number for number, name in enumerate(cities)}
    state_number = {code: number for number, code in enumerate(states)}
    names: dict[str, list[int]] = defaultdict(list)
    other_names: dict[str, list[int]] = defaultdict(list)
    for number, row in enumerate(rows):
        names[fold(str(row["city"]))].append(number)
        for name in dict.fromkeys(fold(str(other)) for other in row.get("acceptable_cities") or ()):
            other_names[name].append(number)
    return PlaceIndex.model_validate(
        {
            "about": "US ZIP codes for routeByZip, built by scripts/build_place_index.py; do not edit by hand.",
            "source": source,
            "zips": " ".join(str(row["zip_code"]) for row in rows),
            "kinds": "".join(KINDS[str(row["zip_code_type"])] for row in rows),
            "cities": cities,
            "city": [city_number[str(row["city"])] for row in rows],
            "states": states,
            "state": [state_number[str(row["state"])] for row in rows],
            "lat": [round(float(row["lat"]) * SCALE) for row in rows],
            "lon": [round(float(row["long"]) * SCALE) for row in rows],
            "names": _name_table(names),
            "otherNames": _name_table(other_names),
        }
    )


def _name_table(rows_by_name: Mapping[str, list[int]]) -> dict[str, list[Any]]:
    keys = sorted(rows_by_name)
    starts, rows = [0], []
    for key in keys:
        rows.extend(rows_by_name[key])
        starts.append(len(rows))
    return {"keys": keys, "starts": starts, "rows": rows}


def check_place_index(index: PlaceIndex) -> list[str]:
    """What is wrong with an index beyond its shape (empty when nothing): order, codes, positions, folding."""
    problems = []
    codes = index.zips.split(" ")
    if codes != sorted(set(codes)):
        problems.append("zips: the codes must be ascending, each once")
    if index.cities != sorted(set(index.cities)) or index.states != sorted(set(index.states)):
        problems.append("cities and states must be ascending, each once")
    if any(not -90 * SCALE <= value <= 90 * SCALE for value in index.lat):
        problems.append("lat: a latitude is out of range")
    if any(not -180 * SCALE <= value <= 180 * SCALE for value in index.lon):
        problems.append("lon: a longitude is out of range")
    for label, table in (("names", index.names), ("otherNames", index.other_names)):
        if table.keys != sorted(set(table.keys)) or any(fold(key) != key for key in table.keys):
            problems.append(f"{label}: keys must be folded names, ascending, each once")
        if any(start > end for start, end in zip(table.starts, table.starts[1:], strict=False)):
            problems.append(f"{label}: starts must not go down")
    listed = [
        (row, key)
        for number, key in enumerate(index.names.keys)
        for row in index.names.rows[index.names.starts[number] : index.names.starts[number + 1]]
    ]
    if sorted(row for row, _ in listed) != list(range(len(codes))):
        problems.append("names: every ZIP code must be listed once, under its city")
    elif any(fold(index.cities[index.city[row]]) != key for row, key in listed):
        problems.append("names: a ZIP code is listed under another city's name")
    return problems


def read_place_index(path: Path = PLACE_INDEX_PATH) -> PlaceIndex:
    """The index in `path` (the packaged one by default), checked against its schema."""
    raw = orjson.loads(path.read_bytes())
    raw.pop("$schema", None)
    return PlaceIndex.model_validate(raw)
