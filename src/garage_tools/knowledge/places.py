"""US places: a ZIP code, a ZIP+4, a city name or an address line to a point on the map.

The data is the `zipcodes` package's offline copy of the USPS ZIP list (about 42,000 ZIP codes with
city, state and coordinates). It is read once per process (about a second) into plain dictionaries,
so a lookup costs microseconds. City names are folded the same way on both sides ("St. George",
"saint george" and "ST GEORGE" are one key); a city found in several states needs its state.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from statistics import fmean
from typing import Any

from garage_tools.errors import AmbiguousLocation, FieldProblem, UnknownLocation
from garage_tools.lifetime import keep_for_life

STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
    "CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia",
    "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois",
    "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota",
    "MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada",
    "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York",
    "NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon",
    "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota",
    "TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia",
    "WA": "Washington", "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
    "PR": "Puerto Rico", "VI": "Virgin Islands", "GU": "Guam", "AS": "American Samoa",
    "MP": "Northern Mariana Islands",
}  # fmt: skip

# Abbreviations folded into the word the USPS list spells out, on both sides of a lookup.
_ABBREVIATIONS = {"st": "saint", "ste": "sainte", "ft": "fort", "mt": "mount", "pt": "point"}
_COUNTRY = {"usa", "us", "united states", "united states of america"}
_WORD = re.compile(r"[a-z0-9]+")
_ZIP_ONLY = re.compile(r"([0-9]{5})(?:[- ]?([0-9]{4}))?")
_ZIP_IN_TEXT = re.compile(r"(?<![0-9])([0-9]{5})(?:-[0-9]{4})?(?![0-9])")
_MAX_CANDIDATES = 12


def fold(text: str, *, spell_out: bool = True) -> str:
    """Lower case, accents and apostrophes dropped, single spaces, and (for city names) abbreviations spelled out."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    plain = plain.replace("'", " ").replace("\u2019", " ")
    words = _WORD.findall(plain)
    return " ".join(_ABBREVIATIONS.get(word, word) for word in words) if spell_out else " ".join(words)


# State names and codes are matched without spelling out abbreviations: MT is Montana, not "mount".
_STATE_BY_NAME = {fold(name, spell_out=False): code for code, name in STATES.items()}
_STATE_BY_NAME |= {code.lower(): code for code in STATES}


class MatchedBy(StrEnum):
    ZIP = "zip"
    ZIP_PLUS_4 = "zip+4"
    ZIP_IN_TEXT = "zip in text"
    CITY = "city"


@dataclass(frozen=True, slots=True)
class Place:
    """Where a request is. For a city: its lowest standard ZIP, the centre of its ZIPs, and all of them."""

    zip: str
    city: str
    state: str
    lat: float
    lon: float
    zips: tuple[str, ...]
    matched_by: MatchedBy

    @property
    def label(self) -> str:
        return f"{self.city}, {self.state}"


@dataclass(frozen=True, slots=True)
class _ZipRow:
    zip: str
    city: str
    state: str
    lat: float
    lon: float
    standard: bool


class Gazetteer:
    """ZIP codes and city names of the US, indexed for lookups in microseconds."""

    def __init__(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self._zips: dict[str, _ZipRow] = {}
        cities: dict[str, dict[str, list[_ZipRow]]] = defaultdict(lambda: defaultdict(list))
        other_names: dict[str, dict[str, list[_ZipRow]]] = defaultdict(lambda: defaultdict(list))
        for raw in rows:
            row = _ZipRow(
                zip=str(raw["zip_code"]),
                city=str(raw["city"]),
                state=str(raw["state"]),
                lat=float(raw["lat"]),
                lon=float(raw["long"]),
                standard=raw.get("zip_code_type") == "STANDARD",
            )
            self._zips[row.zip] = row
            cities[fold(row.city)][row.state].append(row)
            for name in raw.get("acceptable_cities") or ():
                other_names[fold(str(name))][row.state].append(row)
        self._cities = {name: dict(states) for name, states in cities.items()}
        self._other_names = {name: dict(states) for name, states in other_names.items()}
        by_prefix: dict[str, list[_ZipRow]] = defaultdict(list)
        for row in self._zips.values():
            by_prefix[row.zip[:3]].append(row)
        self._prefix_centres = {prefix: _centre(rows) for prefix, rows in by_prefix.items()}

    def __len__(self) -> int:
        return len(self._zips)

    def zip_place(self, code: str, matched_by: MatchedBy = MatchedBy.ZIP) -> Place | None:
        """The place of a five-digit ZIP code, or None when the data set does not have it."""
        row = self._zips.get(code)
        if row is None:
            return None
        return Place(row.zip, row.city, row.state, row.lat, row.lon, (row.zip,), matched_by)

    def prefix_centre(self, prefix: str) -> tuple[float, float] | None:
        """The mean position of the ZIP codes that start with a three-digit prefix."""
        return self._prefix_centres.get(prefix)

    def resolve(self, text: str) -> Place:
        """A ZIP, ZIP+4, address line with a ZIP, or "City[, ST]" to a place; 400 when unknown or ambiguous."""
        stripped = text.strip()
        if not stripped:
            raise _unknown(text, "Send a five-digit ZIP code or a city name, e.g. 84770 or Saint George, UT.")
        only = _ZIP_ONLY.fullmatch(stripped)
        if only:
            return self._zip_or_fail(only.group(1), MatchedBy.ZIP_PLUS_4 if only.group(2) else MatchedBy.ZIP, text)
        in_text = _ZIP_IN_TEXT.findall(stripped)
        if in_text:  # an address line: its ZIP is the last five-digit group
            return self._zip_or_fail(in_text[-1], MatchedBy.ZIP_IN_TEXT, text)
        return self._city(stripped, text)

    def _zip_or_fail(self, code: str, matched_by: MatchedBy, text: str) -> Place:
        place = self.zip_place(code, matched_by)
        if place is None:
            raise _unknown(text, f"{code} is not a US ZIP code in our data. Check the digits, or send the city name.")
        return place

    def _city(self, stripped: str, text: str) -> Place:
        for name, state in _readings(stripped):
            states = self._cities.get(name) or self._other_names.get(name)
            if states is None:
                continue
            if state is not None:
                rows = states.get(state) or self._other_names.get(name, {}).get(state)
                if rows is None:
                    elsewhere = ", ".join(sorted(states))
                    raise _unknown(
                        text, f"There is no {_title(name)} in {state} in our data; we know it in {elsewhere}."
                    )
                return _city_place(rows)
            if len(states) == 1:
                return _city_place(next(iter(states.values())))
            raise _ambiguous(text, [_city_place(rows) for rows in states.values()])
        raise _unknown(
            text,
            "We could not find that place. Send a five-digit ZIP code (e.g. 84770) "
            "or a city with its state (e.g. Saint George, UT).",
        )


def _readings(text: str) -> list[tuple[str, str | None]]:
    """Ways to read `text` as (folded city name, state or None), most literal first."""
    parts = [fold(part, spell_out=False) for part in text.split(",")]
    parts = [part for part in parts if part]
    if len(parts) > 1 and parts[-1] in _COUNTRY:
        parts.pop()
    if len(parts) > 1 and parts[-1] in _STATE_BY_NAME:  # "Saint George, UT", "1 Main St, Provo, Utah"
        return [(fold(parts[-2]), _STATE_BY_NAME[parts[-1]])]
    words = " ".join(parts).split()
    readings: list[tuple[str, str | None]] = [(fold(" ".join(words)), None)]
    for size in (1, 2, 3):  # "salt lake city ut", "portland oregon", "kansas city missouri"
        if len(words) > size:
            state = _STATE_BY_NAME.get(" ".join(words[-size:]))
            if state is not None:
                readings.append((fold(" ".join(words[:-size])), state))
    return readings


def _city_place(rows: list[_ZipRow]) -> Place:
    standard = [row for row in rows if row.standard] or rows
    lat, lon = _centre(standard)
    first = min(standard, key=lambda row: row.zip)
    zips = tuple(sorted({row.zip for row in rows}))
    return Place(first.zip, first.city, first.state, round(lat, 4), round(lon, 4), zips, MatchedBy.CITY)


def _centre(rows: Iterable[_ZipRow]) -> tuple[float, float]:
    listed = list(rows)
    return fmean(row.lat for row in listed), fmean(row.lon for row in listed)


def _title(folded: str) -> str:
    return " ".join(word.capitalize() for word in folded.split())


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _unknown(text: str, advice: str) -> UnknownLocation:
    message = f"Unknown location {_shown(text)}. {advice}"
    return UnknownLocation(message, details=[FieldProblem(field="zipOrLocation", message=advice)])


def _ambiguous(text: str, places: list[Place]) -> AmbiguousLocation:
    labels = sorted(place.label for place in places)
    shown = labels[:_MAX_CANDIDATES]
    more = f" and {len(labels) - len(shown)} more" if len(labels) > len(shown) else ""
    listed = "; ".join(shown) + more
    message = (
        f"{_shown(text)} is a city in {len(labels)} states: {listed}. "
        f"Add the state (e.g. {shown[-1]}) or send a ZIP code."
    )
    return AmbiguousLocation(message, details=[FieldProblem(field="zipOrLocation", message=label) for label in shown])


_lock = threading.Lock()
_loaded: Gazetteer | None = None


def us_places() -> Gazetteer:
    """The whole US data set, read on first use (about a second) and shared by the process."""
    global _loaded
    with _lock:
        if _loaded is None:
            import zipcodes

            _loaded = Gazetteer(zipcodes.list_all())  # type: ignore[no-untyped-call]
            keep_for_life()  # about 290,000 objects that every later full collection would walk
        return _loaded
