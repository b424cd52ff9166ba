"""`getActivePromotions`: the current offers of a partner (or, for legacy callers, of a region).

`partnerId` (from routeByZip) is the primary filter; `issueKey` and `serviceType` narrow it. Only
when the partnerId is absent or unknown does the legacy `regionKey` select instead. Offers outside
their validity window (whole UTC days) never appear, and a partner that has not opted in to
promotions yields an empty list.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from enum import StrEnum

from pydantic import Field, field_validator
from pydantic.config import JsonDict

from garage_tools.knowledge.directory import DiscountType, PromotionRecord, ServiceType
from garage_tools.knowledge.loader import Knowledge, packaged_tree
from garage_tools.models import InputModel, OutputModel
from garage_tools.partners.directory import DirectorySnapshot
from garage_tools.partners.index import Listing
from garage_tools.registry import Tool, ToolContext
from garage_tools.tools.routing import check_issue_or_symptom, issue_and_symptom_keys

MAX_PROMOTIONS = 50


def _publish_issue_enum(schema: JsonDict) -> None:
    schema.update(enum=[*issue_and_symptom_keys(packaged_tree()), None])


class PromotionsInput(InputModel):
    partner_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="The `partnerId` routeByZip returned: the primary filter.",
        examples=["red-rock-garage-doors"],
    )
    issue_key: str | None = Field(
        default=None,
        max_length=64,
        description="Only offers for this issue key (or a symptom key from diagnose, for its likely issues).",
        examples=["broken_spring"],
        json_schema_extra=_publish_issue_enum,
    )
    service_type: ServiceType | None = Field(default=None, description="Only offers for this kind of work.")
    region_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="Legacy: a region key such as `ut-southern`, used only when `partnerId` is absent or unknown.",
        examples=["ut-southern"],
    )

    @field_validator("issue_key")
    @classmethod
    def _known_issue(cls, value: str | None) -> str | None:
        return check_issue_or_symptom(value, "issueKey")


class MatchedBy(StrEnum):
    PARTNER = "partnerId"
    REGION = "regionKey"
    NOTHING = "none"


class Discount(OutputModel):
    type: DiscountType = Field(description="`amount` (US dollars off) or `percent` (percent off).")
    value: float
    label: str = Field(description='Ready to show, e.g. "$50 off" or "15% off".')


class PromotionOut(OutputModel):
    id: str
    partner_id: str
    partner_name: str
    title: str
    description: str
    discount: Discount
    service_types: list[ServiceType] = Field(description="Kinds of work it applies to; empty means any.")
    issue_keys: list[str] = Field(description="Issues it applies to; empty means any.")
    region_keys: list[str] = Field(description="Regions it applies to; empty means the partner's whole area.")
    valid_from: date
    valid_until: date = Field(description="Last day of the offer (inclusive, UTC).")
    terms: str | None = None


class PromotionsOutput(OutputModel):
    promotions: list[PromotionOut] = Field(description="Current offers, soonest-ending first; may be empty.")
    count: int = Field(description="How many offers matched (the list holds at most 50).")
    matched_by: MatchedBy = Field(description="`partnerId`, `regionKey` (legacy fallback), or `none` (no filter).")
    note: str | None = Field(default=None, description="Why the list is what it is, when that is not obvious.")


def _label(discount_type: DiscountType, value: float) -> str:
    shown = f"{value:g}" if value != int(value) else f"{int(value)}"
    return f"{shown}% off" if discount_type is DiscountType.PERCENT else f"${shown} off"


def _out(promotion: PromotionRecord, partner: Listing) -> PromotionOut:
    return PromotionOut(
        id=promotion.id,
        partner_id=promotion.partner_id,
        partner_name=partner.display_name,
        title=promotion.title,
        description=promotion.description,
        discount=Discount(
            type=promotion.discount_type,
            value=promotion.discount_value,
            label=_label(promotion.discount_type, promotion.discount_value),
        ),
        service_types=list(promotion.service_types),
        issue_keys=list(promotion.issue_keys),
        region_keys=list(promotion.region_keys),
        valid_from=promotion.valid_from,
        valid_until=promotion.valid_until,
        terms=promotion.terms,
    )


def _wanted_issues(knowledge: Knowledge, key: str | None) -> set[str] | None:
    if key is None:
        return None
    if key in knowledge.tree.issues:
        return {key}
    symptom = next((s for s in knowledge.tree.symptoms if s.key == key), None)
    return set(symptom.likely_issues) if symptom else {key}


def active_promotions(
    knowledge: Knowledge, snapshot: DirectorySnapshot, args: PromotionsInput, today: date
) -> PromotionsOutput:
    """Pure filtering over a directory snapshot (no I/O); `today` is the UTC day the offers must cover."""
    index = snapshot.index
    partner = index.get(args.partner_id) if args.partner_id is not None else None
    note: str | None = None
    if partner is not None:
        matched_by = MatchedBy.PARTNER
        candidates: tuple[PromotionRecord, ...] = snapshot.promotions_by_partner.get(partner.id, ())
        if not (partner.active and partner.promotions_opt_in):
            note = f"{partner.display_name} shows no promotions."
    elif args.region_key is not None:
        matched_by = MatchedBy.REGION
        candidates = snapshot.promotions
        if args.partner_id is not None:
            note = f"Unknown partnerId {args.partner_id!r}: offers for region {args.region_key!r} instead."
    elif args.partner_id is not None:
        return PromotionsOutput(
            promotions=[],
            count=0,
            matched_by=MatchedBy.NOTHING,
            note=f"Unknown partnerId {args.partner_id!r}. Use the partnerId routeByZip returned.",
        )
    else:
        matched_by = MatchedBy.NOTHING
        candidates = snapshot.promotions

    issues = _wanted_issues(knowledge, args.issue_key)
    chosen: list[PromotionOut] = []
    for promotion in candidates:
        owner = index.get(promotion.partner_id)
        if owner is None or not (owner.active and owner.promotions_opt_in) or not promotion.valid_on(today):
            continue
        if (
            args.service_type is not None
            and promotion.service_types
            and args.service_type not in promotion.service_types
        ):
            continue
        if issues is not None and promotion.issue_keys and not issues & set(promotion.issue_keys):
            continue
        if matched_by is MatchedBy.REGION and not (
            args.region_key in promotion.region_keys
            or (not promotion.region_keys and owner.region_key == args.region_key)
        ):
            continue
        chosen.append(_out(promotion, owner))
    chosen.sort(key=lambda p: (p.valid_until, p.partner_id, p.id))
    return PromotionsOutput(promotions=chosen[:MAX_PROMOTIONS], count=len(chosen), matched_by=matched_by, note=note)


async def get_active_promotions(args: PromotionsInput, ctx: ToolContext) -> PromotionsOutput:
    snapshot = await ctx.data.partners.directory.current()
    return active_promotions(ctx.knowledge, snapshot, args, datetime.now(UTC).date())


TOOL = Tool(
    name="getActivePromotions",
    icon="offer",
    title="Current offers of a local partner",
    summary="Current promotions of a partner (by the partnerId from routeByZip), by issue and service type.",
    description=(
        "Give the `partnerId` routeByZip returned; optionally narrow by `issueKey` (or a diagnose symptom key) "
        "and `serviceType` (repair, maintenance, replacement, installation). Returns the offers valid today, "
        'each with its title, discount (with a ready `label` such as "$50 off"), what it applies to, its '
        "validity dates and terms. A partner without opted-in promotions gives an empty list, which is not an "
        "error. `regionKey` is a legacy filter, used only when `partnerId` is absent or unknown."
    ),
    input_model=PromotionsInput,
    output_model=PromotionsOutput,
    handler=get_active_promotions,
)
