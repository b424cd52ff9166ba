"""US places: a ZIP code, a ZIP+4, a city name or an address line to a point on the map.

The data is the USPS ZIP list that the `zipcodes` package carries (about 42,000 ZIP codes with city,
state and coordinates), shipped as a compact prebuilt index (`data/us_places.json`, see
place_index.py) that a process reads in milliseconds, so a lookup costs microseconds and no request
waits for the list. City names are folded the same way on both sides ("St. George", "saint george"
and "ST GEORGE" are one key). A city name sent without its state may name places in several states:
`candidates` returns each, and the caller (routing) decides which is likeliest.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from statistics import fmean

from garage_tools.errors import FieldProblem, UnknownLocation
from garage_tools.knowledge.place_index import KINDS, SCALE, NameTable, PlaceIndex, fold, read_place_index
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

_COUNTRY = {"usa", "us", "united states", "united states of america"}
_ZIP_ONLY = re.compile(r"([0-9]{5})(?:[- ]?([0-9]{4}))?")
_ZIP_IN_TEXT = re.compile(r"(?<![0-9])([0-9]{5})(?:-[0-9]{4})?(?![0-9])")
_STANDARD = KINDS["STANDARD"]
_PREFIX = re.compile(r"[0-9]{3}")


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


class _Names:
    """One name table of the index, for lookups: a folded name to the rows (ZIP codes) of that name."""

    def __init__(self, table: NameTable) -> None:
        self._keys = table.keys
        self._number = dict(zip(table.keys, range(len(table.keys)), strict=True))
        self._starts = table.starts
        self._rows = table.rows

    def starting(self, prefix: str) -> Iterator[tuple[str, Sequence[int]]]:
        """Each name that starts with `prefix`, in order, with its rows."""
        for number in range(bisect_left(self._keys, prefix), len(self._keys)):
            if not self._keys[number].startswith(prefix):
                return
            yield self._keys[number], self._rows[self._starts[number] : self._starts[number + 1]]

    def rows(self, name: str) -> Sequence[int]:
        number = self._number.get(name)
        if number is None:
            return ()
        return self._rows[self._starts[number] : self._starts[number + 1]]


class Gazetteer:
    """ZIP codes and city names of the US, indexed for lookups in microseconds.

    A row is a ZIP code's position in the index; the index's columns are read as they are.
    """

    def __init__(self, index: PlaceIndex) -> None:
        self._codes = index.zips.split(" ")
        self._row_of = dict(zip(self._codes, range(len(self._codes)), strict=True))
        self._kinds = index.kinds
        self._cities, self._city_of = index.cities, index.city
        self._states, self._state_of = index.states, index.state
        self._lat, self._lon = index.lat, index.lon
        self._names = _Names(index.names)
        self._other_names = _Names(index.other_names)
        self._prefix_centres: dict[str, tuple[float, float] | None] = {}

    def __len__(self) -> int:
        return len(self._codes)

    def zip_codes(self) -> Sequence[str]:
        """Every five-digit ZIP code of the data set, ascending."""
        return self._codes

    def zip_place(self, code: str, matched_by: MatchedBy = MatchedBy.ZIP) -> Place | None:
        """The place of a five-digit ZIP code, or None when the data set does not have it."""
        row = self._row_of.get(code)
        if row is None:
            return None
        city, state = self._cities[self._city_of[row]], self._states[self._state_of[row]]
        return Place(code, city, state, self._lat[row] / SCALE, self._lon[row] / SCALE, (code,), matched_by)

    def prefix_centre(self, prefix: str) -> tuple[float, float] | None:
        """The mean position of the ZIP codes that start with a three-digit prefix."""
        if prefix not in self._prefix_centres:  # worked out on first use: a prefix's rows are side by side
            first = bisect_left(self._codes, prefix)
            end = bisect_left(self._codes, prefix + ":")  # ":" sorts right after the digits
            found = _PREFIX.fullmatch(prefix) is not None and end > first
            self._prefix_centres[prefix] = self._centre(range(first, end)) if found else None
        return self._prefix_centres[prefix]

    def suggest(self, text: str, limit: int) -> tuple[list[str], int]:
        """Places that complete what someone has typed so far, at most `limit`, and how many there are.

        Digits complete to ZIP codes, each shown with its city ("Saint George, UT 84770", standard
        ZIP codes before PO boxes and single firms); letters complete to cities ("Saint George, UT").
        Every suggestion is something `candidates` reads back to the same place.
        """
        typed = text.strip()
        if typed.isdigit() and len(typed) <= 5:
            first, end = bisect_left(self._codes, typed), bisect_left(self._codes, typed + ":")
            rows = sorted(range(first, end), key=lambda row: self._kinds[row] != _STANDARD)
            shown = [
                f"{self._cities[self._city_of[r]]}, {self._states[self._state_of[r]]} {self._codes[r]}" for r in rows
            ]
            return shown[:limit], len(shown)
        folded = fold(typed)
        if not folded:
            return [], 0
        found: list[str] = []
        for _, named in self._names.starting(folded):
            for state, state_rows in sorted(self._by_state(named).items()):
                found.append(f"{self._cities[self._city_of[state_rows[0]]]}, {state}")
        return found[:limit], len(found)

    def prefix_state(self, prefix: str) -> str | None:
        """The state of a three-digit ZIP prefix (a prefix lies in one state), for a ZIP the data set lacks."""
        row = bisect_left(self._codes, prefix)
        if _PREFIX.fullmatch(prefix) is None or row == len(self._codes) or not self._codes[row].startswith(prefix):
            return None
        return self._states[self._state_of[row]]

    def candidates(self, text: str) -> list[Place]:
        """The places `text` names: a ZIP, ZIP+4, address line with a ZIP, or "City[, ST]"; 400 when unknown.

        One place, except for a city name sent without its state that several states have: then one
        per state, in the order of their states.
        """
        stripped = text.strip()
        if not stripped:
            raise _unknown(text, "Send a five-digit ZIP code or a city name, e.g. 84770 or Saint George, UT.")
        only = _ZIP_ONLY.fullmatch(stripped)
        if only:
            matched_by = MatchedBy.ZIP_PLUS_4 if only.group(2) else MatchedBy.ZIP
            return [self._zip_or_fail(only.group(1), matched_by, text)]
        in_text = _ZIP_IN_TEXT.findall(stripped)
        if in_text:  # an address line: its ZIP is the last five-digit group
            return [self._zip_or_fail(in_text[-1], MatchedBy.ZIP_IN_TEXT, text)]
        return self._city(stripped, text)

    def _zip_or_fail(self, code: str, matched_by: MatchedBy, text: str) -> Place:
        place = self.zip_place(code, matched_by)
        if place is None:
            raise _unknown(text, f"{code} is not a US ZIP code in our data. Check the digits, or send the city name.")
        return place

    def _city(self, stripped: str, text: str) -> list[Place]:
        for name, state in _readings(stripped):
            states = self._by_state(self._names.rows(name) or self._other_names.rows(name))
            if not states:
                continue
            if state is not None:
                rows = states.get(state) or self._by_state(self._other_names.rows(name)).get(state)
                if rows is None:
                    elsewhere = ", ".join(sorted(states))
                    raise _unknown(
                        text, f"There is no {_title(name)} in {state} in our data; we know it in {elsewhere}."
                    )
                return [self._city_place(rows)]
            return [self._city_place(rows) for _, rows in sorted(states.items())]
        raise _unknown(
            text,
            "We could not find that place. Send a five-digit ZIP code (e.g. 84770) "
            "or a city with its state (e.g. Saint George, UT).",
        )

    def _by_state(self, rows: Sequence[int]) -> dict[str, list[int]]:
        grouped: dict[str, list[int]] = {}
        for row in rows:
            grouped.setdefault(self._states[self._state_of[row]], []).append(row)
        return grouped

    def _city_place(self, rows: list[int]) -> Place:
        """A city from its rows (ascending): its lowest standard ZIP, the middle of its standard ZIPs, all ZIPs."""
        standard = [row for row in rows if self._kinds[row] == _STANDARD] or rows
        lat, lon = self._centre(standard)
        first = standard[0]
        city, state = self._cities[self._city_of[first]], self._states[self._state_of[first]]
        zips = tuple(self._codes[row] for row in rows)
        return Place(self._codes[first], city, state, round(lat, 4), round(lon, 4), zips, MatchedBy.CITY)

    def _centre(self, rows: Iterable[int]) -> tuple[float, float]:
        listed = list(rows)
        return fmean(self._lat[row] / SCALE for row in listed), fmean(self._lon[row] / SCALE for row in listed)


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


def _title(folded: str) -> str:
    return " ".join(word.capitalize() for word in folded.split())


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _unknown(text: str, advice: str) -> UnknownLocation:
    message = f"Unknown location {_shown(text)}. {advice}"
    return UnknownLocation(message, details=[FieldProblem(field="zipOrLocation", message=advice)])


_lock = threading.Lock()
_loaded: Gazetteer | None = None


def us_places() -> Gazetteer:
    """The whole US data set, read on first use (a few milliseconds) and shared by the process."""
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = Gazetteer(read_place_index())
            keep_for_life()  # out of the collector's scans, like the data loaded at start-up
        return _loaded
