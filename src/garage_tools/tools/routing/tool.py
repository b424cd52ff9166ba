"""routeByZip's rule: where the place is, who serves it, who fits best, and the referral it records."""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime

from garage_tools.knowledge.directory import ServiceType, routing_rules
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.places import MatchedBy, Place
from garage_tools.partners.directory import DirectorySnapshot
from garage_tools.partners.index import Listing, PartnerIndex, Serving
from garage_tools.registry import Question, Tool, ToolContext
from garage_tools.store.referrals import NewReferral, caller_fingerprint
from garage_tools.tools.routing.models import (
    HINT_PLACES,
    MAX_ALTERNATIVES,
    Alternative,
    LeadHeat,
    OtherPlace,
    PartnerCard,
    ResolvedLocation,
    RouteByZipInput,
    RoutedIssue,
    RouteOutput,
)


def _card(listing: Listing) -> PartnerCard:
    return PartnerCard(
        id=listing.id,
        display_name=listing.display_name,
        phone=listing.phone,
        scheduler_url=listing.scheduler_url,
        url=listing.url,
        license_number=listing.license_number,
        insured=listing.insured,
        years_in_business=_years_since(listing.in_business_since),
        hours=listing.hours,
        guarantee=listing.guarantee,
    )


def _years_since(year: int | None) -> int | None:
    return None if year is None else max(0, datetime.now(UTC).year - year)


def _miles(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _alternative(serving: Serving) -> Alternative:
    listing = serving.listing
    return Alternative(
        partner_id=listing.id, partner=_card(listing), region=listing.region, distance_miles=_miles(serving.miles)
    )


def _location(place: Place, others: list[tuple[Place, bool]]) -> ResolvedLocation:
    return ResolvedLocation(
        zip=place.zip,
        city=place.city,
        state=place.state,
        matched_by=place.matched_by,
        ambiguous=bool(others),
        alternatives=[OtherPlace(city=o.city, state=o.state, zip=o.zip, covered=c) for o, c in others] or None,
    )


def likeliest(candidates: list[Place], index: PartnerIndex) -> list[tuple[Place, bool]]:
    """Places a name may mean, likeliest first, each with whether a partner serves it.

    One a partner serves comes first (the homeowner can be helped there), then the one with the most
    ZIP codes (the bigger town is the likelier), then the name, so the order is stable.
    """
    served = [(place, bool(index.serving(place))) for place in candidates]
    return sorted(served, key=lambda pair: (not pair[1], -len(pair[0].zips), pair[0].label))


def _place_hint(ranked: list[tuple[Place, bool]]) -> str:
    """What to say when a city name sent without its state was read as the likeliest of several places."""
    (place, covered), others = ranked[0], ranked[1:]
    served = sum(1 for _, other_covered in ranked if other_covered)
    if not covered:
        why = "the one with the most ZIP codes; no partner serves any of them yet"
    elif served == 1:
        why = "the one a partner serves"
    else:
        why = "the largest of those a partner serves"
    named = "; ".join(other.label for other, _ in others[:HINT_PLACES])
    more = f" and {len(others) - HINT_PLACES} more" if len(others) > HINT_PLACES else ""
    return (
        f"There is a {place.city} in {len(ranked)} states; this is {place.label}, {why}. "
        f"If another was meant, send it with its state ({named}{more}) or its ZIP code."
    )


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
    serving: list[Serving],
    services: set[ServiceType],
    heat: LeadHeat | None,
    warm: set[ServiceType],
    preferred: str | None = None,
    turn: str = "",
) -> list[Serving]:
    """Partners serving a place, best first: the preferred partner, then service fit, lead heat, distance; among
    equally good matches, a fair turn (`fair_turn`: who comes first changes from day to day and place to place,
    so no name wins every tie because of its spelling)."""

    def heat_fits(listing: Listing) -> bool:
        if heat is LeadHeat.HOT:
            return listing.emergency
        if heat is LeadHeat.WARM:
            return bool(listing.services & warm)
        return True

    return sorted(
        serving,
        key=lambda s: (
            s.listing.id != preferred,
            bool(services) and not (s.listing.services & services),
            not heat_fits(s.listing),
            math.inf if s.miles is None else s.miles,
            fair_turn(turn, s.listing.id),
            s.listing.id,
        ),
    )


def fair_turn(turn: str, partner_id: str) -> str:
    """A partner's place among equally good matches for `turn` (a day and a ZIP code): a hash, so each of them
    comes first about as often, the order holds all day (a homeowner who asks again sees the same pros), and
    nothing about it can be bought or spelled."""
    return hashlib.sha256(f"{turn}|{partner_id}".encode()).hexdigest()


def route(knowledge: Knowledge, snapshot: DirectorySnapshot, args: RouteByZipInput) -> RouteOutput:
    """Pure routing over a directory snapshot (no I/O)."""
    candidates = snapshot.places.candidates(args.zip_or_location)
    places = likeliest(candidates, snapshot.index) if len(candidates) > 1 else [(candidates[0], False)]
    place, others = places[0][0], places[1:]
    place_hint = _place_hint(places) if others else None
    issue = resolve_issue(knowledge, args.issue)
    services = set(issue.services) if issue else set()
    warm = set(routing_rules(knowledge).warm_services)
    turn = f"{datetime.now(UTC).date().isoformat()}|{place.zip}"
    ranked = rank(snapshot.index.serving(place), services, args.lead_heat, warm, args.preferred_partner_id, turn)
    if not ranked:
        return _uncovered(snapshot, place, others, place_hint, issue, args.lead_heat)
    best = ranked[0]
    return RouteOutput(
        covered=True,
        region=best.listing.region,
        partner_id=best.listing.id,
        partner=_card(best.listing),
        distance_miles=_miles(best.miles),
        alternatives=[_alternative(s) for s in ranked[1 : 1 + MAX_ALTERNATIVES]],
        reason=_reason(place, ranked, services, args.lead_heat, warm, args.preferred_partner_id),
        location=_location(place, others),
        issue=issue,
        lead_heat=args.lead_heat,
        hint=place_hint,
    )


def _reason(
    place: Place,
    ranked: list[Serving],
    services: set[ServiceType],
    heat: LeadHeat | None,
    warm: set[ServiceType],
    preferred: str | None = None,
) -> str:
    """One line on why the first of `ranked` won, naming a preference nobody here could meet."""
    best = ranked[0]
    listing = best.listing
    parts = [f"Serves {_where(place)}"]
    if preferred is not None:
        parts.append("the preferred partner" if listing.id == preferred else "the preferred partner does not serve it")
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
    snapshot: DirectorySnapshot,
    place: Place,
    others: list[tuple[Place, bool]],
    place_hint: str | None,
    issue: RoutedIssue | None,
    heat: LeadHeat | None,
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
        location=_location(place, others),
        issue=issue,
        lead_heat=heat,
        nearest=_alternative(nearest) if nearest is not None else None,
        hint=f"{place_hint} {hint}" if place_hint else hint,
    )


def record_referral(
    ctx: ToolContext,
    *,
    partner_id: str | None,
    covered: bool,
    zip_code: str | None,
    issue: str | None,
    door_size: str | None,
    heat: str | None,
    source: str,
) -> None:
    """Note that this caller was pointed at a partner: demand, once per caller, partner and issue a day.

    The caller is known by its key, or else its rate-limit bucket (its address), hashed with the day."""
    now = datetime.now(UTC)
    identity = ctx.caller.key_id or ctx.caller.partition or ctx.caller.ip or "unknown"
    ctx.data.partners.referrals.record(
        NewReferral(
            created_at=now,
            partner_id=partner_id,
            covered=covered,
            zip=zip_code,
            issue=issue,
            door_size=door_size,
            heat=heat,
            source=source,
            surface=ctx.caller.surface[:16],
            caller=caller_fingerprint(identity, now.date()),
        )
    )


async def route_by_zip(args: RouteByZipInput, ctx: ToolContext) -> RouteOutput:
    """Route, and record a referral (never a lead, never an e-mail: a search is not a request)."""
    partners = ctx.data.partners
    result = route(ctx.knowledge, await partners.directory.current(), args)
    record_referral(
        ctx,
        partner_id=result.partner_id,
        covered=result.covered,
        zip_code=result.location.zip,
        issue=args.issue,
        door_size=args.door_size,
        heat=args.lead_heat.value if args.lead_heat else None,
        source="routing",
    )
    return result


TOOL = Tool(
    name="routeByZip",
    view="pro",
    icon="pro",
    questions={"zipOrLocation": Question("Where is the garage door? A five-digit ZIP code, or a city and state.")},
    title="Find a local garage door pro",
    summary="A ZIP code or city to the best-suited vetted local partner, with phone and booking link.",
    description=(
        "Give where the door is (`zipOrLocation`: a five-digit ZIP code, ZIP+4 or a city with its state) and, "
        "when known, the `issue` (an issue key such as `broken_spring`, or the symptom key diagnose returned, "
        "such as `wont_close`), the `doorSize`, the `leadHeat` (`hot`: emergency, `warm`: replacement, "
        "`cold`: research) and a `preferredPartnerId` (chosen whenever it serves the place). Returns "
        "`covered`, the partner (name, phone, `schedulerUrl` to book online, `url`), its `partnerId` for "
        "getActivePromotions, up to two alternatives and a one-line `reason`. "
        "An area with no partner yet is still a success: `covered: false`, the nearest partner and a `hint` to "
        "read to the user. A city name without its state that several states have is read as the likeliest "
        "(`location.ambiguous: true`, the others in `location.alternatives`, a `hint`): confirm it with the "
        "user. An unknown place is 400 `unknown_location`."
    ),
    input_model=RouteByZipInput,
    output_model=RouteOutput,
    handler=route_by_zip,
)
