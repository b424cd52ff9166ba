"""`costEstimate`: the typical repair cost for an issue, by door size and region."""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints, field_validator

from garage_tools.errors import FieldProblem, InvalidArguments
from garage_tools.knowledge.loader import Knowledge, packaged_issue_keys, packaged_tree
from garage_tools.knowledge.places import us_places
from garage_tools.knowledge.regional_prices import FactorKind, LocalFactor, local_factor
from garage_tools.knowledge.schemas import Confidence, DiagnosticTree, DiyRisk, Urgency, UsdRange
from garage_tools.languages import supported
from garage_tools.models import InputModel, OutputModel
from garage_tools.registry import Tool, ToolContext
from garage_tools.tools.common import DIY_RISK_DESCRIPTION, LANG_PATTERN, CostRange, SourceLink

# Exact residential ranges (width 6-24 ft, height 6-16 ft, up to two decimals) in the pattern
# itself, so the published schema says precisely which sizes are accepted. Classes are spelled
# out (`[0-9]`, `[ \t]`) so Python and ECMA-262 validators accept the same strings.
_WIDTH = r"(?:[6-9](?:\.[0-9]{1,2})?|1[0-9](?:\.[0-9]{1,2})?|2[0-3](?:\.[0-9]{1,2})?|24(?:\.0{1,2})?)"
_HEIGHT = r"(?:[6-9](?:\.[0-9]{1,2})?|1[0-5](?:\.[0-9]{1,2})?|16(?:\.0{1,2})?)"
_FEET = r"(?:[fF][tT]|')?"
_GAP = r"[ \t]*"
DOOR_SIZE_PATTERN = rf"^{_GAP}({_WIDTH}){_GAP}{_FEET}{_GAP}[xX\u00d7]{_GAP}({_HEIGHT}){_GAP}{_FEET}{_GAP}$"
_SIZE = re.compile(DOOR_SIZE_PATTERN)
ZIP_PATTERN = r"^[0-9]{5}$"


def parse_door_size(text: str) -> tuple[float, float]:
    """`<width>x<height>` in feet (e.g. `16x7`, `9 x 7.5`) to (width, height); ValueError if not."""
    # fullmatch: Python's `$` also matches before a final newline, ECMA-262's does not.
    found = _SIZE.fullmatch(text)
    if not found:
        raise ValueError(
            "must be <width>x<height> in feet within residential sizes (width 6-24, height 6-16), e.g. 16x7 or 9x7"
        )
    return float(found.group(1)), float(found.group(2))


def _door_size(text: str) -> str:
    parse_door_size(text)
    return text


#: A door size as the tools take it. `DOOR_SIZE_PATTERN` is published in each field's schema; the check
#: here gives the refusal a message people can read.
DoorSizeText = Annotated[str, StringConstraints(max_length=20), AfterValidator(_door_size)]


class CostEstimateInput(InputModel):
    issue_key: str = Field(
        min_length=1,
        max_length=64,
        description=(
            "An issue key from the diagnostic tree, e.g. `broken_spring`, `worn_rollers`, `broken_cable`, "
            "`sensor_misalignment`, `opener_failure`, `track_damage`, `worn_seal` (diagnose returns them as "
            "`likelyIssues[].key`). An unknown key is a 400 that lists the valid keys."
        ),
        examples=["broken_spring"],
        # The enum is read from the data file when a schema is generated (not at import).
        json_schema_extra=lambda schema: schema.update(enum=list(packaged_issue_keys())),
    )
    door_size: DoorSizeText | None = Field(
        default=None,
        json_schema_extra={"pattern": DOOR_SIZE_PATTERN},
        description="Door size `<width>x<height>` in feet, e.g. `16x7` (double) or `9x7` (single); default single-car.",
        examples=["16x7"],
    )
    lang: str | None = Field(
        default=None,
        pattern=LANG_PATTERN,
        description=(
            "The language of the homeowner-facing texts (`issueName`, `covers`, `safetyNote`, `urgencyNote`): "
            "`en` (default) or `es`; pass diagnose's `lang`. A language not spoken answers in English."
        ),
    )
    zip: str | None = Field(
        default=None,
        pattern=ZIP_PATTERN,
        description=(
            "Five-digit US ZIP code; adjusts the range to local prices (a factor for every state and DC, "
            "and for a few metro areas)."
        ),
        examples=["94110"],
    )

    @field_validator("issue_key")
    @classmethod
    def _known_issue(cls, value: str) -> str:
        # The schema publishes the packaged keys as an enum; refuse the rest here, listing them.
        tree = packaged_tree()
        if value not in tree.issues:
            raise ValueError(unknown_issue_message(value, tree))
        return value


class SizeClass(StrEnum):
    SINGLE = "single"
    DOUBLE = "double"


class DoorSize(OutputModel):
    width_ft: float
    height_ft: float
    size_class: SizeClass


class RegionalAdjustment(OutputModel):
    zip: str
    region: str = Field(description="The area whose price level is used: a metro area, or else the state.")
    multiplier: float = Field(description="Applied to the national range.")
    confidence: Confidence = Field(description="How sure the local factor is.")
    kind: FactorKind | None = Field(default=None, description="`metro` or `state`: which kind of area `region` is.")
    state: str | None = Field(default=None, description="The ZIP code's two-letter state.")
    place: str | None = Field(default=None, description='The ZIP code\'s own town, e.g. "Saint George, UT".')
    year: int | None = Field(default=None, description="The year of the local price figure.")
    basis: str | None = Field(default=None, description="What the factor rests on, in plain words.")
    sources: list[SourceLink] = Field(default_factory=list, description="Where the local factor comes from.")

    @classmethod
    def of(cls, code: str, factor: LocalFactor) -> RegionalAdjustment:
        if factor.kind is FactorKind.STATE:
            basis = (
                f"{factor.area}'s price level in {factor.year} (the BEA's Regional Price Parity), "
                "compared with the US average"
            )
        else:
            basis = f"a construction cost estimate for the {factor.area} area ({factor.year})"
        return cls(
            zip=code,
            region=factor.area,
            multiplier=factor.multiplier,
            confidence=factor.confidence,
            kind=factor.kind,
            state=factor.state,
            place=factor.place,
            year=factor.year,
            basis=basis,
            sources=[SourceLink(title=s.title, url=str(s.url)) for s in factor.sources],
        )


class CostEstimateOutput(OutputModel):
    issue_key: str
    issue_name: str
    cost_range: CostRange = Field(description="Typical installed cost for this door and region.")
    national_range: CostRange = Field(description="The national range before any regional adjustment.")
    covers: str = Field(description="What the range pays for.")
    size_class: SizeClass = Field(description="Whether the single-car or the double-car range applies.")
    door_size: DoorSize | None = Field(default=None, description="The parsed door size, when one was given.")
    region: RegionalAdjustment | None = Field(
        default=None,
        description="Where the price is for and how sure the local factor is (ZIP codes of the 50 states and DC).",
    )
    emergency_surcharge: CostRange | None = Field(
        default=None,
        description="What an emergency or after-hours call adds on top of the range (adjusted like the range).",
    )
    diy_risk: DiyRisk = Field(description=DIY_RISK_DESCRIPTION)
    urgency: Urgency
    safety_note: str | None = Field(default=None, description="Present when there is a safety concern.")
    urgency_note: str | None = Field(
        default=None, description="What the urgency means for the homeowner, in one sentence (in `lang`)."
    )
    lang: str = Field(default="en", description="The language of the homeowner-facing texts (`en`, `es`).")
    confidence: Confidence = Field(description="How well the published sources agree on this range.")
    assumptions: list[str] = Field(description="What the estimate assumed; read these to the user.")
    notes: list[str] = Field(description="Context from the sources: what raises or lowers the price.")
    sources: list[SourceLink]


def unknown_issue_message(key: str, tree: DiagnosticTree) -> str:
    """Why `key` is not an issue key, with the valid keys (and a hint when it is a symptom key)."""
    hint = (
        f" {key!r} is a symptom key: call diagnose and use one of its likelyIssues[].key."
        if any(s.key == key for s in tree.symptoms)
        else ""
    )
    return f"unknown issue key {key!r}.{hint} Valid keys: {', '.join(tree.issues)}"


def _round_out(value: float, step: int, up: bool) -> int:
    return int((math.ceil if up else math.floor)(value / step) * step)


def _scaled(usd: UsdRange, factor: float, currency: str) -> CostRange:
    """A national range times a local factor, rounded outwards to $5 (a range never narrows by rounding)."""
    return CostRange(
        min=_round_out(usd.min * factor, 5, up=False), max=_round_out(usd.max * factor, 5, up=True), currency=currency
    )


def estimate(knowledge: Knowledge, args: CostEstimateInput) -> CostEstimateOutput:
    """Pure estimate over the knowledge base (no I/O)."""
    costs = knowledge.costs
    cost = costs.issues.get(args.issue_key)
    if cost is None:  # knowledge other than the packaged tree the input model checks against
        message = unknown_issue_message(args.issue_key, knowledge.tree)
        raise InvalidArguments(
            f"Invalid arguments for costEstimate: issueKey: {message}",
            details=[FieldProblem(field="issueKey", message=message)],
        )
    language = knowledge.language(supported(args.lang))
    issue = language.tree.issues[args.issue_key]  # its name and safety note in the language asked for
    assumptions: list[str] = []

    door_size: DoorSize | None = None
    if args.door_size is None:
        size_class = SizeClass.SINGLE
        assumptions.append("No door size given: priced as a single-car door (8-10 ft wide).")
    else:
        width, height = parse_door_size(args.door_size)
        size_class = SizeClass.DOUBLE if width >= costs.double_width_ft else SizeClass.SINGLE
        door_size = DoorSize(width_ft=width, height_ft=height, size_class=size_class)
        assumptions.append(f"A {width:g} ft wide door is priced as a {size_class.value}-car door.")
    national: UsdRange = cost.double if size_class is SizeClass.DOUBLE else cost.single

    region: RegionalAdjustment | None = None
    factor = 1.0
    if args.zip is None:
        assumptions.append("No ZIP code given: national typical range.")
    else:
        found = local_factor(knowledge.regional_prices, us_places(), args.zip)
        if found is None:
            assumptions.append(
                f"No local price data for ZIP {args.zip} (outside the 50 states and DC): national range."
            )
        else:
            region = RegionalAdjustment.of(args.zip, found)
            factor = found.multiplier
            where = f"the {found.area} area" if found.kind is FactorKind.METRO else found.area
            assumptions.append(
                f"ZIP {args.zip} is in {where}: national range x {factor:g} for local prices "
                f"({found.confidence.value} confidence; indicative, not a quote)."
            )
    surcharge = costs.emergency_surcharge
    assumptions.append(
        f"Parts and labor at {costs.as_of} prices; an emergency or after-hours call adds about "
        f"${_round_out(surcharge.min * factor, 5, up=False)}-${_round_out(surcharge.max * factor, 5, up=True)}."
    )

    return CostEstimateOutput(
        issue_key=args.issue_key,
        issue_name=issue.name,
        cost_range=_scaled(national, factor, costs.currency),
        national_range=CostRange.of(national, costs.currency),
        covers=language.covers[args.issue_key],
        size_class=size_class,
        door_size=door_size,
        region=region,
        emergency_surcharge=_scaled(surcharge, factor, costs.currency),
        diy_risk=issue.diy_risk,
        urgency=issue.urgency,
        safety_note=issue.safety_note,
        urgency_note=language.tree.urgency_notes.get(issue.urgency),
        lang=language.code,
        confidence=cost.confidence,
        assumptions=assumptions,
        notes=list(cost.notes),
        sources=[SourceLink(title=s.title, url=str(s.url)) for s in cost.sources],
    )


async def cost_estimate(args: CostEstimateInput, ctx: ToolContext) -> CostEstimateOutput:
    return estimate(ctx.knowledge, args)


TOOL = Tool(
    name="costEstimate",
    view="cost",
    icon="cost",
    title="Estimate a garage door repair cost",
    summary="Typical repair cost range for an issue, by door size and ZIP code, with DIY safety.",
    description=(
        "Give an issue key (from diagnose's `likelyIssues[].key`, e.g. `broken_spring`), optionally the door "
        "size as `<width>x<height>` in feet (double-car doors cost more) and a five-digit ZIP code (adjusts to "
        "local prices: a metro area's factor or the state's price level, with its confidence and source). Returns "
        "the typical installed cost range in USD, what it covers, what an emergency call adds, the DIY risk "
        "rating, a safety note when the repair is dangerous, the assumptions used and the sources of the "
        "figures. Figures are published averages adjusted to the place, not a quote."
    ),
    input_model=CostEstimateInput,
    output_model=CostEstimateOutput,
    handler=cost_estimate,
)
