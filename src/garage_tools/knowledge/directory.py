"""Schemas of the partner directory, its promotions and the routing rules.

A partner record and a promotion record have one shape everywhere: in the packaged sample files
(`data/sample_partners.json`, `data/sample_promotions.json`), in the files an operator imports with
`garage-tools partners import` / `promotions import` (JSON, or CSV with the same column names), in
the store and in `export`. Validating them here, once, means a bad row is refused with the same
message whichever way it arrives.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, BaseModel, Field, StringConstraints, field_validator, model_validator

from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError, read_data_file
from garage_tools.knowledge.schemas import DataModel, Key, Text
from garage_tools.languages import DEFAULT, SUPPORTED
from garage_tools.models import is_email_address

if TYPE_CHECKING:
    from garage_tools.knowledge.loader import Knowledge  # the loader reads this module's files at start-up


class ServiceType(StrEnum):
    """What a partner does and what a promotion is for."""

    REPAIR = "repair"
    MAINTENANCE = "maintenance"
    REPLACEMENT = "replacement"
    INSTALLATION = "installation"


class DiscountType(StrEnum):
    AMOUNT = "amount"  # US dollars off
    PERCENT = "percent"  # percent off


ID_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"
Identifier = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
RegionKey = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$", max_length=64)]
ZipPrefix = Annotated[str, StringConstraints(pattern=r"^[0-9]{3}$")]
Zip5 = Annotated[str, StringConstraints(pattern=r"^[0-9]{5}$")]


def _phone(value: str) -> str:
    digits = re.sub(r"[^0-9]", "", value)
    if not re.fullmatch(r"\+?[0-9 ().-]+", value) or not 10 <= len(digits) <= 15:
        raise ValueError("must be a phone number with 10 to 15 digits, e.g. (435) 555-0101")
    return value


def _email(value: str) -> str:
    address = value.lower()
    if not is_email_address(address):
        raise ValueError("must be one e-mail address, e.g. office@doors.example.com")
    return address


def _https_url(value: str) -> str:
    if not re.fullmatch(r"https://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/[^\s]*)?", value):
        raise ValueError("must be an https:// URL, e.g. https://doors.example.com/book")
    return value


Phone = Annotated[str, StringConstraints(strip_whitespace=True, max_length=32), AfterValidator(_phone)]
EmailAddress = Annotated[str, StringConstraints(strip_whitespace=True, max_length=254), AfterValidator(_email)]


def _time_zone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"not an IANA time zone name: {value!r} (such as America/Denver)") from None
    return value


def _language(value: str) -> str:
    if value not in SUPPORTED:
        raise ValueError(f"one of {', '.join(SUPPORTED)}, not {value!r}")
    return value


LanguageCode = Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True), AfterValidator(_language)]
TimeZoneName = Annotated[str, StringConstraints(strip_whitespace=True, max_length=64), AfterValidator(_time_zone)]
WebUrl = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500), AfterValidator(_https_url)]


def _unique_sorted(values: list[str]) -> list[str]:
    return sorted(set(values))


class PartnerRecord(DataModel):
    """One partner: who they are, where they work and what they do."""

    id: Identifier = Field(description="Stable id, lower case letters, digits and dashes; callers pass it on.")
    display_name: Text = Field(alias="displayName", max_length=120)
    phone: Phone
    scheduler_url: WebUrl | None = Field(
        default=None, alias="schedulerUrl", description="Online booking calendar: the preferred call to action."
    )
    url: WebUrl = Field(description="Website: the fallback call to action.")
    contact_email: EmailAddress | None = Field(
        default=None,
        alias="contactEmail",
        description="Where lead notices go; this address may sign in to the partner console (none: neither).",
    )
    region: Text = Field(max_length=80, description='Human label of the service area, e.g. "Southern Utah".')
    region_key: RegionKey = Field(
        alias="regionKey", description="Region key for legacy promotion filters, e.g. `ut-southern`."
    )
    zip_prefixes: list[ZipPrefix] = Field(
        default_factory=list, alias="zipPrefixes", description="Three-digit ZIP prefixes served whole."
    )
    zips: list[Zip5] = Field(default_factory=list, description="Single five-digit ZIP codes served.")
    center_zip: Zip5 | None = Field(
        default=None, alias="centerZip", description="Centre of a radius area, as a ZIP code (or give coordinates)."
    )
    center_lat: float | None = Field(default=None, alias="centerLat", ge=-90, le=90)
    center_lon: float | None = Field(default=None, alias="centerLon", ge=-180, le=180)
    radius_miles: float | None = Field(default=None, alias="radiusMiles", gt=0, le=250)
    services: list[ServiceType] = Field(min_length=1)
    emergency: bool = Field(default=False, description="Takes emergency (same-day, after-hours) calls.")
    promotions_opt_in: bool = Field(
        default=False, alias="promotionsOptIn", description="Its promotions may be shown to homeowners."
    )
    active: bool = Field(default=True, description="Inactive partners stay on file but receive no leads.")
    # Trust: what a homeowner weighs before calling (shown on the pro card when given; none is required).
    license_number: Text | None = Field(
        default=None, alias="licenseNumber", max_length=40, description="Contractor license number, as issued."
    )
    insured: bool | None = Field(default=None, description="Carries liability insurance (absent: not said).")
    in_business_since: int | None = Field(
        default=None,
        alias="inBusinessSince",
        ge=1850,
        le=2100,
        description="The year the business began; the card counts years in business from it.",
    )
    hours: Text | None = Field(default=None, max_length=120, description='Opening hours in words: "Mon-Sat 7am-6pm".')
    guarantee: Text | None = Field(
        default=None, max_length=200, description='The service guarantee in words: "1-year warranty on parts".'
    )
    time_zone: TimeZoneName | None = Field(
        default=None,
        alias="timeZone",
        description="IANA time zone the partner's console shows times in (absent: its state's main zone).",
    )
    language: LanguageCode = Field(
        default=DEFAULT,
        description="The language the partner reads its console, service requests and lead notices in (`en`, `es`); "
        "each request still says which language the homeowner speaks.",
    )

    _dedupe = field_validator("zip_prefixes", "zips")(_unique_sorted)

    @field_validator("services")
    @classmethod
    def _services_once(cls, value: list[ServiceType]) -> list[ServiceType]:
        return [service for service in ServiceType if service in value]

    @model_validator(mode="after")
    def _has_an_area(self) -> PartnerRecord:
        has_coordinates = self.center_lat is not None or self.center_lon is not None
        if has_coordinates and (self.center_lat is None or self.center_lon is None):
            raise ValueError("centerLat and centerLon go together")
        if has_coordinates and self.center_zip is not None:
            raise ValueError("give the centre as centerZip or as centerLat/centerLon, not both")
        has_centre = has_coordinates or self.center_zip is not None
        if has_centre != (self.radius_miles is not None):
            raise ValueError("a radius area needs both a centre (centerZip or centerLat/centerLon) and radiusMiles")
        if not (self.zip_prefixes or self.zips or self.radius_miles):
            raise ValueError("a partner needs a service area: zipPrefixes, zips, or a centre and radiusMiles")
        return self


class PromotionRecord(DataModel):
    """A current offer of one partner. Empty lists mean "any" (every service, issue or region)."""

    id: Identifier
    partner_id: Identifier = Field(alias="partnerId")
    title: Text = Field(max_length=120)
    description: Text = Field(max_length=1000)
    discount_type: DiscountType = Field(alias="discountType")
    discount_value: float = Field(alias="discountValue", gt=0, le=100_000)
    service_types: list[ServiceType] = Field(default_factory=list, alias="serviceTypes")
    issue_keys: list[Key] = Field(default_factory=list, alias="issueKeys")
    region_keys: list[RegionKey] = Field(default_factory=list, alias="regionKeys")
    valid_from: date = Field(alias="validFrom", description="First day the offer applies (UTC).")
    valid_until: date = Field(alias="validUntil", description="Last day the offer applies (UTC), inclusive.")
    terms: Text | None = Field(default=None, max_length=2000)

    _dedupe = field_validator("issue_keys", "region_keys")(_unique_sorted)

    @field_validator("service_types")
    @classmethod
    def _services_once(cls, value: list[ServiceType]) -> list[ServiceType]:
        return [service for service in ServiceType if service in value]

    @model_validator(mode="after")
    def _consistent(self) -> PromotionRecord:
        if self.valid_until < self.valid_from:
            raise ValueError(f"validUntil ({self.valid_until}) is before validFrom ({self.valid_from})")
        if self.discount_type is DiscountType.PERCENT and self.discount_value > 100:
            raise ValueError("a percent discount is at most 100")
        return self

    def valid_on(self, day: date) -> bool:
        return self.valid_from <= day <= self.valid_until


def _unique_ids(ids: list[str], what: str) -> None:
    duplicates = sorted(key for key, count in Counter(ids).items() if count > 1)
    if duplicates:
        raise ValueError(f"duplicate {what} ids: {duplicates}")


class PartnerDirectoryFile(DataModel):
    """A whole partner directory, as imported, exported and shipped as a sample."""

    notice: Text | None = Field(
        default=None, description="Where the data comes from (the sample says it is fictional)."
    )
    partners: list[PartnerRecord] = Field(min_length=1)

    @model_validator(mode="after")
    def _ids(self) -> PartnerDirectoryFile:
        _unique_ids([p.id for p in self.partners], "partner")
        return self


class PromotionCatalogFile(DataModel):
    """Every promotion, as imported, exported and shipped as a sample."""

    notice: Text | None = None
    promotions: list[PromotionRecord]

    @model_validator(mode="after")
    def _ids(self) -> PromotionCatalogFile:
        _unique_ids([p.id for p in self.promotions], "promotion")
        return self


class RoutingRules(DataModel):
    """Which partners suit a request: routing policy that a domain expert can change without code."""

    issue_services: dict[Key, list[ServiceType]] = Field(
        alias="issueServices",
        description=(
            "For each issue key of the diagnostic tree, the services that fit it: partners offering any of "
            "them are preferred. A symptom key uses its most likely issue."
        ),
    )
    warm_services: list[ServiceType] = Field(
        alias="warmServices",
        min_length=1,
        description="Services a `warm` (replacement) lead prefers, after the issue's own services.",
    )

    @field_validator("issue_services")
    @classmethod
    def _not_empty(cls, value: dict[str, list[ServiceType]]) -> dict[str, list[ServiceType]]:
        empty = sorted(key for key, services in value.items() if not services)
        if empty:
            raise ValueError(f"issues without services: {empty}")
        return value


#: The directory's data files and their schemas (for `garage-tools knowledge schemas`).
DIRECTORY_FILES: dict[str, type[BaseModel]] = {
    "sample_partners.json": PartnerDirectoryFile,
    "sample_promotions.json": PromotionCatalogFile,
    "routing.json": RoutingRules,
}


def load_sample_partners(directory: Path = DATA_DIR) -> PartnerDirectoryFile:
    """The packaged sample directory of fictional partners (seeded into an empty store)."""
    return read_data_file(directory / "sample_partners.json", PartnerDirectoryFile)


def load_sample_promotions(directory: Path = DATA_DIR) -> PromotionCatalogFile:
    """The packaged sample promotions, tied to the sample partners."""
    return read_data_file(directory / "sample_promotions.json", PromotionCatalogFile)


def load_routing_rules(knowledge: Knowledge, directory: Path = DATA_DIR) -> RoutingRules:
    """Read routing.json and check that it names exactly the diagnostic tree's issues."""
    rules = read_data_file(directory / "routing.json", RoutingRules)
    missing = sorted(set(knowledge.tree.issues) - set(rules.issue_services))
    extra = sorted(set(rules.issue_services) - set(knowledge.tree.issues))
    if missing or extra:
        raise KnowledgeError(
            f"routing.json and diagnostic_tree.json disagree: issues without services {missing}, unknown issues {extra}"
        )
    return rules


def routing_rules(knowledge: Knowledge) -> RoutingRules:
    """The routing rules for this knowledge base, read and checked once."""
    return knowledge.derived("routing_rules", lambda: load_routing_rules(knowledge))
