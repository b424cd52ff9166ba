"""routeByZip's arguments and answer, and the issue keys it and getActivePromotions accept."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, field_validator
from pydantic.config import JsonDict

from garage_tools.knowledge.directory import ServiceType
from garage_tools.knowledge.loader import packaged_tree
from garage_tools.knowledge.places import MatchedBy
from garage_tools.knowledge.schemas import DiagnosticTree
from garage_tools.models import InputModel, OutputModel
from garage_tools.tools.cost import DOOR_SIZE_PATTERN, DoorSizeText

MAX_ALTERNATIVES = 2
HINT_PLACES = 5  # other places a hint names; `location.alternatives` lists them all


class LeadHeat(StrEnum):
    HOT = "hot"  # emergency or must call a pro
    WARM = "warm"  # replacement
    COLD = "cold"  # research


def issue_and_symptom_keys(tree: DiagnosticTree) -> list[str]:
    """What `issue` accepts: every issue key, then every symptom key."""
    return [*tree.issues, *(symptom.key for symptom in tree.symptoms)]


def check_issue_or_symptom(value: str | None, field: str) -> str | None:
    """An input validator: `value` must be an issue key or a symptom key of the packaged tree."""
    if value is None:
        return value
    tree = packaged_tree()
    if value not in tree.issues and all(symptom.key != value for symptom in tree.symptoms):
        raise ValueError(
            f"unknown {field} {value!r}. Issue keys: {', '.join(tree.issues)}. "
            f"Symptom keys (from diagnose): {', '.join(s.key for s in tree.symptoms)}"
        )
    return value


def publish_issue_enum(schema: JsonDict) -> None:
    # Read from the data file when a schema is generated; null stays allowed ("not given").
    schema.update(enum=[*issue_and_symptom_keys(packaged_tree()), None])


class RouteByZipInput(InputModel):
    zip_or_location: str = Field(
        min_length=1,
        max_length=200,
        description=(
            "Where the door is: a five-digit ZIP code (`84770`), a ZIP+4, a city (`Saint George, UT`, "
            "`salt lake city`) or an address line with a ZIP code. A city name several states have, sent "
            "without its state, is read as the likeliest of them (see `location.ambiguous`)."
        ),
        examples=["84770", "Salt Lake City, UT"],
    )
    issue: str | None = Field(
        default=None,
        max_length=64,
        description=(
            "What needs doing: an issue key (`broken_spring`) or the symptom key diagnose returned as "
            "`symptom.key` (`wont_close`). Partners offering the services that fit are preferred."
        ),
        examples=["broken_spring", "wont_close"],
        json_schema_extra=publish_issue_enum,
    )
    door_size: DoorSizeText | None = Field(
        default=None,
        json_schema_extra={"pattern": DOOR_SIZE_PATTERN},
        description="Door size `<width>x<height>` in feet, e.g. `16x7`; passed on with the lead.",
        examples=["16x7"],
    )
    lead_heat: LeadHeat | None = Field(
        default=None,
        description=(
            "`hot`: emergency or must call a pro (partners who take emergency calls first); `warm`: replacement "
            "(partners who replace doors first); `cold`: research. Null or absent: no preference."
        ),
    )

    preferred_partner_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_.-]+$",
        description=(
            "A partner to prefer, e.g. the contractor whose website embeds the widget: chosen whenever it serves "
            "the place, whatever the issue or lead heat. An id that is unknown or does not serve the place is "
            "ignored and the best fit is chosen as usual."
        ),
        examples=["acme-garage-doors"],
    )

    @field_validator("issue")
    @classmethod
    def _known_issue(cls, value: str | None) -> str | None:
        return check_issue_or_symptom(value, "issue")


class PartnerCard(OutputModel):
    """What a widget shows: the name, the phone and the two calls to action."""

    id: str
    display_name: str
    phone: str
    scheduler_url: str | None = Field(
        default=None, description="Online booking calendar: the preferred call to action."
    )
    url: str = Field(description="Website: the fallback call to action.")
    license_number: str | None = Field(default=None, description="Contractor license number, when given.")
    insured: bool | None = Field(default=None, description="Carries liability insurance (absent: not said).")
    years_in_business: int | None = Field(default=None, description="Years since the business began, when given.")
    hours: str | None = Field(default=None, description="Opening hours in words, when given.")
    guarantee: str | None = Field(default=None, description="The service guarantee in words, when given.")


class Alternative(OutputModel):
    partner_id: str
    partner: PartnerCard
    region: str
    distance_miles: float | None = Field(default=None, description="From the location to the partner's centre.")


class OtherPlace(OutputModel):
    """Another place a city name sent without its state may mean."""

    city: str
    state: str
    zip: str = Field(description="Its lowest standard ZIP code; send it, or `City, ST`, to route there.")
    covered: bool = Field(description="Whether a partner serves it.")


class ResolvedLocation(OutputModel):
    zip: str = Field(description="The ZIP code routed on (for a city, its lowest standard ZIP code).")
    city: str
    state: str
    matched_by: MatchedBy = Field(description="How `zipOrLocation` was read: `zip`, `zip+4`, `zip in text` or `city`.")
    ambiguous: bool = Field(
        default=False,
        description=(
            "True when a city name sent without its state names places in several states: this is the "
            "likeliest (one a partner serves first, then the one with the most ZIP codes); the others are in "
            "`alternatives` below, and the answer's `hint` says how to ask for one of them."
        ),
    )
    alternatives: list[OtherPlace] | None = Field(
        default=None, description="Only when `ambiguous`: the other places of that name, likeliest first."
    )


class RoutedIssue(OutputModel):
    key: str = Field(description="The `issue` as sent.")
    issue_key: str = Field(description="The issue routed for: the key itself, or a symptom's most likely issue.")
    services: list[ServiceType] = Field(description="Services that fit it; partners offering one rank first.")


class RouteOutput(OutputModel):
    covered: bool = Field(description="False when no partner serves the area yet (still a success).")
    region: str | None = Field(default=None, description="Human label of the chosen partner's service area.")
    partner_id: str | None = Field(default=None, description="Pass it to getActivePromotions as `partnerId`.")
    partner: PartnerCard | None = None
    distance_miles: float | None = Field(default=None, description="From the location to the partner's centre.")
    alternatives: list[Alternative] = Field(description="Up to two more partners serving the area, next best first.")
    reason: str = Field(description="Why this partner, in one line.")
    location: ResolvedLocation
    issue: RoutedIssue | None = Field(default=None, description="Present when `issue` was given.")
    lead_heat: LeadHeat | None = None
    nearest: Alternative | None = Field(
        default=None, description="Only when not covered: the closest partner, which may not travel that far."
    )
    hint: str | None = Field(
        default=None,
        description=(
            "What to tell the homeowner, when no partner serves the area or when the place was the likeliest "
            "of several (`location.ambiguous`)."
        ),
    )
