"""`routeByZip`: a ZIP code or city to the vetted local partner best suited to the job.

Ranking, among the partners whose service area includes the place:
1. services that fit the issue (routing.json maps each issue to the services that fix it; a symptom
   key from diagnose stands for its most likely issue);
2. the lead heat: `hot` (emergency, must call a pro) puts partners who take emergency calls first,
   `warm` (replacement) those who do replacements; `cold` (research) and no heat prefer nobody;
3. the nearest (distance from the place to the partner's centre), then the name, so ties are stable.
An area no partner serves is a 200 with `covered: false`, the nearest partner and a `hint`.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import Field, field_validator
from pydantic.config import JsonDict

from garage_tools.errors import ServiceUnavailable
from garage_tools.knowledge.directory import ServiceType, routing_rules
from garage_tools.knowledge.loader import Knowledge, packaged_tree
from garage_tools.knowledge.places import MatchedBy, Place
from garage_tools.knowledge.schemas import DiagnosticTree
from garage_tools.models import InputModel, OutputModel
from garage_tools.partners.directory import DirectorySnapshot
from garage_tools.partners.index import Listing, Serving
from garage_tools.partners.service import Partners
from garage_tools.registry import Tool, ToolContext
from garage_tools.store.partners import Lead
from garage_tools.tools.cost import DOOR_SIZE_PATTERN, DoorSizeText

MAX_ALTERNATIVES = 2


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


def _publish_issue_enum(schema: JsonDict) -> None:
    # Read from the data file when a schema is generated; null stays allowed ("not given").
    schema.update(enum=[*issue_and_symptom_keys(packaged_tree()), None])


class RouteByZipInput(InputModel):
    zip_or_location: str = Field(
        min_length=1,
        max_length=200,
        description=(
            "Where the door is: a five-digit ZIP code (`84770`), a ZIP+4, a city (`Saint George, UT`, "
            "`salt lake city`; add the state when the name exists in several states) or an address line with "
            "a ZIP code."
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
        json_schema_extra=_publish_issue_enum,
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


class Alternative(OutputModel):
    partner_id: str
    partner: PartnerCard
    region: str
    distance_miles: float | None = Field(default=None, description="From the location to the partner's centre.")


class ResolvedLocation(OutputModel):
    zip: str = Field(description="The ZIP code routed on (for a city, its lowest standard ZIP code).")
    city: str
    state: str
    matched_by: MatchedBy = Field(description="How `zipOrLocation` was read: `zip`, `zip+4`, `zip in text` or `city`.")


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
    hint: str | None = Field(default=None, description="Only when not covered: what to tell the homeowner.")


def _card(listing: Listing) -> PartnerCard:
    return PartnerCard(
        id=listing.id,
        display_name=listing.display_name,
        phone=listing.phone,
        scheduler_url=listing.scheduler_url,
        url=listing.url,
    )


def _miles(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _alternative(serving: Serving) -> Alternative:
    listing = serving.listing
    return Alternative(
        partner_id=listing.id, partner=_card(listing), region=listing.region, distance_miles=_miles(serving.miles)
    )


def _location(place: Place) -> ResolvedLocation:
    return ResolvedLocation(zip=place.zip, city=place.city, state=place.state, matched_by=place.matched_by)


def _where(place: Place) -> str:
    return place.label if place.matched_by is MatchedBy.CITY else f"{place.zip} ({place.label})"


def resolve_issue(knowledge: Knowledge, given: str | None) -> RoutedIssue | None:
    """An issue or symptom key to the issue routed for and the services that fit it."""
    if given is None:
        return None
    tree = knowledge.tree
    issue_key = given
    if given not in tree.issues:
        symptom = next((s for s in tree.symptoms if s.key == given), None)
        if symptom is None:  # a knowledge base other than the packaged one the input was checked against
            return None
        issue_key = symptom.likely_issues[0]
    services = routing_rules(knowledge).issue_services.get(issue_key, [])
    return RoutedIssue(key=given, issue_key=issue_key, services=list(services))


def rank(
    serving: list[Serving], services: set[ServiceType], heat: LeadHeat | None, warm: set[ServiceType]
) -> list[Serving]:
    """Partners serving a place, best first: service fit, then lead heat, then distance, then name."""

    def heat_fits(listing: Listing) -> bool:
        if heat is LeadHeat.HOT:
            return listing.emergency
        if heat is LeadHeat.WARM:
            return bool(listing.services & warm)
        return True

    return sorted(
        serving,
        key=lambda s: (
            bool(services) and not (s.listing.services & services),
            not heat_fits(s.listing),
            math.inf if s.miles is None else s.miles,
            s.listing.display_name,
            s.listing.id,
        ),
    )


def route(knowledge: Knowledge, snapshot: DirectorySnapshot, args: RouteByZipInput) -> RouteOutput:
    """Pure routing over a directory snapshot (no I/O)."""
    place = snapshot.places.resolve(args.zip_or_location)
    issue = resolve_issue(knowledge, args.issue)
    services = set(issue.services) if issue else set()
    warm = set(routing_rules(knowledge).warm_services)
    ranked = rank(snapshot.index.serving(place), services, args.lead_heat, warm)
    if not ranked:
        return _uncovered(snapshot, place, issue, args.lead_heat)
    best = ranked[0]
    return RouteOutput(
        covered=True,
        region=best.listing.region,
        partner_id=best.listing.id,
        partner=_card(best.listing),
        distance_miles=_miles(best.miles),
        alternatives=[_alternative(s) for s in ranked[1 : 1 + MAX_ALTERNATIVES]],
        reason=_reason(place, ranked, services, args.lead_heat, warm),
        location=_location(place),
        issue=issue,
        lead_heat=args.lead_heat,
    )


def _reason(
    place: Place, ranked: list[Serving], services: set[ServiceType], heat: LeadHeat | None, warm: set[ServiceType]
) -> str:
    """One line on why the first of `ranked` won, naming a preference nobody here could meet."""
    best = ranked[0]
    listing = best.listing
    parts = [f"Serves {_where(place)}"]
    if services:
        fits = listing.services & services
        wanted = "/".join(sorted(services))
        parts.append(f"does {'/'.join(sorted(fits))}" if fits else f"no partner here lists {wanted}")
    if heat is LeadHeat.HOT:
        if listing.emergency:
            parts.append("takes emergency calls")
        elif any(s.listing.emergency for s in ranked):
            parts.append("no emergency service (those who offer it here don't do this job)")
        else:
            parts.append("no partner here takes emergency calls")
    elif heat is LeadHeat.WARM:
        does = listing.services & warm
        if does:
            parts.append(f"does {'/'.join(sorted(does))}")
        elif any(s.listing.services & warm for s in ranked):
            parts.append("no replacements (those who do them here don't do this job)")
        else:
            parts.append("no partner here does replacements")
    if best.miles is not None:
        parts.append(f"{best.miles:.1f} mi away")
    if len(ranked) > 1:
        parts.append(f"best of {len(ranked)} partners serving this area")
    return "; ".join(parts) + "."


def _uncovered(
    snapshot: DirectorySnapshot, place: Place, issue: RoutedIssue | None, heat: LeadHeat | None
) -> RouteOutput:
    nearest = snapshot.index.nearest(place.lat, place.lon)
    if nearest is None:
        hint = f"We don't have a vetted partner for {place.label} yet."
    else:
        listing = nearest.listing
        away = f", {nearest.miles:.0f} miles away" if nearest.miles is not None else ""
        hint = (
            f"We don't have a vetted partner for {place.label} yet. The nearest is {listing.display_name} "
            f"({listing.region}){away}: call {listing.phone} to ask whether they come out that far."
        )
    return RouteOutput(
        covered=False,
        alternatives=[],
        reason=f"No partner serves {_where(place)} yet.",
        location=_location(place),
        issue=issue,
        lead_heat=heat,
        nearest=_alternative(nearest) if nearest is not None else None,
        hint=hint,
    )


def partners_of(ctx: ToolContext) -> Partners:
    if ctx.data is None:
        raise ServiceUnavailable("The partner directory is not available here.")
    return ctx.data.partners


async def route_by_zip(args: RouteByZipInput, ctx: ToolContext) -> RouteOutput:
    partners = partners_of(ctx)
    result = route(ctx.knowledge, await partners.directory.current(), args)
    partners.leads.record(
        Lead(
            created_at=datetime.now(UTC),
            partner_id=result.partner_id,
            covered=result.covered,
            zip=result.location.zip,
            issue=args.issue,
            door_size=args.door_size,
            lead_heat=args.lead_heat.value if args.lead_heat else None,
            surface=ctx.caller.surface[:16],
        )
    )
    return result


TOOL = Tool(
    name="routeByZip",
    title="Find a local garage door pro",
    summary="A ZIP code or city to the best-suited vetted local partner, with phone and booking link.",
    description=(
        "Give where the door is (`zipOrLocation`: a five-digit ZIP code, ZIP+4 or a city with its state) and, "
        "when known, the `issue` (an issue key such as `broken_spring`, or the symptom key diagnose returned, "
        "such as `wont_close`), the `doorSize` and the `leadHeat` (`hot`: emergency, `warm`: replacement, "
        "`cold`: research). Returns `covered`, the partner (name, phone, `schedulerUrl` to book online, "
        "`url`), its `partnerId` for getActivePromotions, up to two alternatives and a one-line `reason`. "
        "An area with no partner yet is still a success: `covered: false`, the nearest partner and a `hint` to "
        "read to the user. An unknown place is 400 `unknown_location`; a city name found in several states "
        "is 400 `ambiguous_location` listing them: ask which one, or for the ZIP code."
    ),
    input_model=RouteByZipInput,
    output_model=RouteOutput,
    handler=route_by_zip,
)
