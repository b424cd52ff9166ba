"""Which partners serve a place, and which is nearest: an immutable index built from the directory.

Routing runs on every widget request, so it never touches the store: the directory is read into
this index (by five-digit ZIP, by three-digit prefix, a one-degree grid for radius areas, and a
k-d tree of partner positions for the nearest partner to an uncovered place) and a lookup is a few
dictionary reads and distance sums, well under a millisecond with 10,000 partners. The index is
rebuilt whole when the directory changes.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from garage_tools.knowledge.directory import PartnerRecord, ServiceType
from garage_tools.knowledge.places import Gazetteer, Place

log = logging.getLogger(__name__)

EARTH_RADIUS_MILES = 3958.8
MILES_PER_DEGREE_LAT = 69.0
Cell = tuple[int, int]


Point = tuple[float, float, float]


def unit_vector(lat: float, lon: float) -> Point:
    """A position as a point on the unit sphere: the nearest in a straight line is the nearest on the globe."""
    phi, lam = math.radians(lat), math.radians(lon)
    return math.cos(phi) * math.cos(lam), math.cos(phi) * math.sin(lam), math.sin(phi)


def _chord_miles(a: Point, b: Point) -> float:
    """Great-circle miles between two unit vectors (from the straight-line chord; a few multiplications)."""
    dx, dy, dz = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    half = math.sqrt(dx * dx + dy * dy + dz * dz) / 2
    return 2 * EARTH_RADIUS_MILES * math.asin(half if half < 1.0 else 1.0)


def _cell(lat: float, lon: float) -> Cell:
    return math.floor(lat), math.floor(lon)


def _miles_per_degree_lon(lat: float) -> float:
    return MILES_PER_DEGREE_LAT * max(math.cos(math.radians(min(abs(lat), 89.0))), 0.01)


@dataclass(frozen=True, slots=True)
class Listing:
    """A partner as routing sees it. `lat`/`lon` is its centre (radius area) or the middle of its ZIPs."""

    id: str
    display_name: str
    phone: str
    scheduler_url: str | None
    url: str
    region: str
    region_key: str
    services: frozenset[ServiceType]
    emergency: bool
    promotions_opt_in: bool
    active: bool
    lat: float | None
    lon: float | None
    radius_miles: float | None
    zips: tuple[str, ...] = ()
    zip_prefixes: tuple[str, ...] = ()
    position: Point | None = None  # (lat, lon) on the unit sphere, for fast distances
    # What the pro card says of the partner's standing (each None when the partner has not said).
    license_number: str | None = None
    insured: bool | None = None
    in_business_since: int | None = None
    hours: str | None = None
    guarantee: str | None = None

    def distance_to(self, lat: float, lon: float) -> float | None:
        if self.position is None:
            return None
        return _chord_miles(unit_vector(lat, lon), self.position)


def listing_of(record: PartnerRecord, places: Gazetteer) -> Listing:
    """A record with its position worked out (centre, or the mean of its ZIPs and prefixes)."""
    lat, lon, radius = record.center_lat, record.center_lon, record.radius_miles
    if record.center_zip is not None:
        centre = places.zip_place(record.center_zip)
        if centre is None:  # imports refuse this; a store edited by hand might not
            log.warning(
                "partner %s: centre ZIP %s is unknown; its radius area is ignored", record.id, record.center_zip
            )
            radius = None
        else:
            lat, lon = centre.lat, centre.lon
    if lat is None or lon is None:
        points = [(p.lat, p.lon) for z in record.zips if (p := places.zip_place(z)) is not None]
        points += [c for prefix in record.zip_prefixes if (c := places.prefix_centre(prefix)) is not None]
        if points:
            lat, lon = sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)
    return Listing(
        id=record.id,
        display_name=record.display_name,
        phone=record.phone,
        scheduler_url=record.scheduler_url,
        url=record.url,
        region=record.region,
        region_key=record.region_key,
        services=frozenset(record.services),
        emergency=record.emergency,
        promotions_opt_in=record.promotions_opt_in,
        active=record.active,
        lat=lat,
        lon=lon,
        radius_miles=radius if lat is not None else None,
        zips=tuple(record.zips),
        zip_prefixes=tuple(record.zip_prefixes),
        position=unit_vector(lat, lon) if lat is not None and lon is not None else None,
        license_number=record.license_number,
        insured=record.insured,
        in_business_since=record.in_business_since,
        hours=record.hours,
        guarantee=record.guarantee,
    )


@dataclass(frozen=True, slots=True)
class Serving:
    """A partner that serves a place, and how far its centre is from it (None when it has no position)."""

    listing: Listing
    miles: float | None


class PartnerIndex:
    """Every partner, and the active ones indexed by the areas they serve."""

    def __init__(self, listings: Iterable[Listing]) -> None:
        self.listings: dict[str, Listing] = {listing.id: listing for listing in listings}
        self._by_zip: dict[str, list[Listing]] = defaultdict(list)
        self._by_prefix: dict[str, list[Listing]] = defaultdict(list)
        self._radius_cells: dict[Cell, list[Listing]] = defaultdict(list)
        for listing in self.listings.values():
            if not listing.active:
                continue
            for code in listing.zips:
                self._by_zip[code].append(listing)
            for prefix in listing.zip_prefixes:
                self._by_prefix[prefix].append(listing)
            if listing.lat is not None and listing.lon is not None and listing.radius_miles is not None:
                for cell in _cells_within(listing.lat, listing.lon, listing.radius_miles):
                    self._radius_cells[cell].append(listing)
        self._positions = _PointTree([item for item in self.listings.values() if item.active and item.lat is not None])

    @classmethod
    def build(cls, records: Iterable[PartnerRecord], places: Gazetteer) -> PartnerIndex:
        """The index of a directory (inactive partners are kept for lookups by id but serve nowhere)."""
        return cls(listing_of(record, places) for record in records)

    def __len__(self) -> int:
        return len(self.listings)

    def get(self, partner_id: str) -> Listing | None:
        return self.listings.get(partner_id)

    def serving(self, place: Place) -> list[Serving]:
        """The active partners whose area includes the place (any of a city's ZIPs), each once."""
        found: dict[str, Listing] = {}
        here = unit_vector(place.lat, place.lon)
        prefixes = {code[:3] for code in place.zips}
        for code in place.zips:
            for listing in self._by_zip.get(code, ()):
                found.setdefault(listing.id, listing)
        for prefix in prefixes:
            for listing in self._by_prefix.get(prefix, ()):
                found.setdefault(listing.id, listing)
        for listing in self._radius_cells.get(_cell(place.lat, place.lon), ()):
            if (
                listing.id not in found
                and listing.position is not None
                and listing.radius_miles is not None
                and _chord_miles(here, listing.position) <= listing.radius_miles
            ):
                found[listing.id] = listing
        return [
            Serving(listing, None if listing.position is None else _chord_miles(here, listing.position))
            for listing in found.values()
        ]

    def nearest(self, lat: float, lon: float) -> Serving | None:
        """The active partner whose centre is closest to a point (exact; a k-d tree over the positions)."""
        found = self._positions.nearest(lat, lon)
        if found is None:
            return None
        return Serving(found, found.distance_to(lat, lon))


def _cells_within(lat: float, lon: float, radius: float) -> list[Cell]:
    """The grid cells a circle's bounding box touches."""
    dlat = radius / MILES_PER_DEGREE_LAT
    dlon = radius / _miles_per_degree_lon(min(abs(lat) + dlat, 89.0))
    return [
        (row, column)
        for row in range(math.floor(lat - dlat), math.floor(lat + dlat) + 1)
        for column in range(math.floor(lon - dlon), math.floor(lon + dlon) + 1)
    ]


# A k-d tree node: (point, listing, axis, lower half, upper half).
_Node = tuple[Point, Listing, int, "_Node | None", "_Node | None"]


class _PointTree:
    """Exact nearest-neighbour search over partner positions, visiting few nodes wherever the point is.

    Each step knows the distance from the point to the box of space a subtree covers (not just to one
    splitting plane), so whole regions farther than the best partner found so far are skipped.
    """

    def __init__(self, listings: list[Listing]) -> None:
        points = [(item.position, item) for item in listings if item.position is not None]
        self._root = self._build(points)

    def _build(self, points: list[tuple[Point, Listing]]) -> _Node | None:
        if not points:
            return None
        spreads = [max(p[0][axis] for p in points) - min(p[0][axis] for p in points) for axis in range(3)]
        axis = spreads.index(max(spreads))
        points.sort(key=lambda entry: entry[0][axis])
        middle = len(points) // 2
        point, listing = points[middle]
        return (point, listing, axis, self._build(points[:middle]), self._build(points[middle + 1 :]))

    def nearest(self, lat: float, lon: float) -> Listing | None:
        target = unit_vector(lat, lon)
        best: list[Any] = [None, math.inf]  # listing, squared distance
        self._search(self._root, target, 0.0, [0.0, 0.0, 0.0], best)
        found: Listing | None = best[0]
        return found

    def _search(self, node: _Node | None, target: Point, box: float, offsets: list[float], best: list[Any]) -> None:
        # `box` is the squared distance from the target to this subtree's box; `offsets` its parts per axis.
        if node is None or box >= best[1]:
            return
        point, listing, axis, lower, upper = node
        squared = (point[0] - target[0]) ** 2 + (point[1] - target[1]) ** 2 + (point[2] - target[2]) ** 2
        if squared < best[1]:
            best[0], best[1] = listing, squared
        gap = target[axis] - point[axis]
        near, far = (lower, upper) if gap < 0 else (upper, lower)
        self._search(near, target, box, offsets, best)
        previous = offsets[axis]
        far_box = box - previous * previous + gap * gap
        if far_box < best[1]:
            offsets[axis] = gap
            self._search(far, target, far_box, offsets, best)
            offsets[axis] = previous
