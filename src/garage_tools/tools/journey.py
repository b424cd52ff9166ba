"""`homeownerAnswer`: the homeowner's whole journey in one call, the one place its order is written.

A homeowner says what the door does and where it is; the answer is what is likely wrong, a local pro
(with the heat taken from the diagnosis's safety flag: an unsafe door is a hot lead), that pro's current
offers, and the likely causes priced for the place routing resolved. The front door (with and without
script) and the contractor widget call this tool and nothing else for it, and render its answer with the
one set of result cards; the ask endpoint and MCP Apps views of later issues reuse it.

Each step is the domain function of its own tool (diagnose, routeByZip, getActivePromotions,
costEstimate, getInspectionReferencePhotos), so the journey adds an order, not a rule: routeByZip still
records what it routed. A place that cannot be read is part of the answer (`placeError`), not a failure of
the call, so the diagnosis still arrives beside it. Both inputs are optional in the schema as in validation
(a schema-level "one of them" is beyond many agents' clients): with neither, the answer is empty.
"""

from __future__ import annotations

from pydantic import Field

from garage_tools.errors import ServiceError
from garage_tools.models import InputModel, OutputModel
from garage_tools.registry import Tool, ToolContext
from garage_tools.tools.cost import DOOR_SIZE_PATTERN, CostEstimateInput, CostEstimateOutput, DoorSizeText, estimate
from garage_tools.tools.diagnose import DiagnoseInput, DiagnoseOutput, diagnose
from garage_tools.tools.photos import ReferencePhotosInput, ReferencePhotosOutput, get_reference_photos
from garage_tools.tools.promotions import PromotionsInput, PromotionsOutput, get_active_promotions
from garage_tools.tools.routing import LeadHeat, RouteByZipInput, RouteOutput, route_by_zip

MAX_DESCRIPTION = 2000
MAX_PLACE = 200


class HomeownerAnswerInput(InputModel):
    description: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_DESCRIPTION,
        description="What the door does or sounds like, in the homeowner's words (\"loud bang, won't open\").",
        examples=["loud bang and the door won't open"],
    )
    place: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PLACE,
        description="Where the door is: a ZIP code or a city (`84770`, `Saint George, UT`), as routeByZip reads it.",
        examples=["84770"],
    )
    door_size: DoorSizeText | None = Field(
        default=None,
        json_schema_extra={"pattern": DOOR_SIZE_PATTERN},
        description="Door size `<width>x<height>` in feet, e.g. `16x7`: prices the causes and goes with the lead.",
        examples=["16x7"],
    )
    preferred_partner_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_.-]+$",
        description="A partner to prefer where it serves the place (the contractor whose site embeds the widget).",
        examples=["acme-garage-doors"],
    )


class PlaceError(OutputModel):
    """Why the place could not be routed (the diagnosis, if any, still stands)."""

    code: str = Field(description="The error code routeByZip gave, e.g. `unknown_location`.")
    message: str


class HomeownerAnswerOutput(OutputModel):
    diagnosis: DiagnoseOutput | None = Field(
        default=None, description="diagnose's answer, when a description was given."
    )
    reference_photos: ReferencePhotosOutput | None = Field(
        default=None,
        description="Reference pictures (by URL) of the part behind the likeliest cause that has a gallery.",
    )
    route: RouteOutput | None = Field(
        default=None,
        description="routeByZip's answer for the place, `leadHeat` hot when the diagnosis set `safetyFlag`.",
    )
    place_error: PlaceError | None = Field(default=None, description="Present when the place could not be routed.")
    promotions: PromotionsOutput | None = Field(default=None, description="The routed partner's current offers.")
    costs: list[CostEstimateOutput] = Field(
        default_factory=list,
        description="Each likely cause priced for the routed place (empty until a place is routed).",
    )


def lead_heat(diagnosis: DiagnoseOutput | None) -> LeadHeat:
    """Hot when the diagnosis says the door is unsafe to use, warm otherwise: the rule every surface follows."""
    return LeadHeat.HOT if diagnosis is not None and diagnosis.safety_flag else LeadHeat.WARM


async def answer_homeowner(args: HomeownerAnswerInput, ctx: ToolContext) -> HomeownerAnswerOutput:
    """Diagnose, then route with the heat from the safety flag, then the pro's offers, then local prices."""
    answer = HomeownerAnswerOutput()
    if args.description is not None:
        answer.diagnosis = await diagnose(DiagnoseInput.model_validate({"description": args.description}), ctx)
        answer.reference_photos = await _reference_photos(answer.diagnosis, ctx)
    if args.place is None:
        return answer
    arguments: dict[str, object] = {"zipOrLocation": args.place, "leadHeat": lead_heat(answer.diagnosis).value}
    if answer.diagnosis is not None and answer.diagnosis.symptom is not None:
        arguments["issue"] = answer.diagnosis.symptom.key
    if args.door_size is not None:
        arguments["doorSize"] = args.door_size
    if args.preferred_partner_id is not None:
        arguments["preferredPartnerId"] = args.preferred_partner_id
    try:
        answer.route = route = await route_by_zip(RouteByZipInput.model_validate(arguments), ctx)
    except ServiceError as error:
        if error.status >= 500:
            raise
        answer.place_error = PlaceError(code=error.code, message=error.message)
        return answer
    if route.covered and route.partner_id:
        offers = PromotionsInput.model_validate({"partnerId": route.partner_id})
        answer.promotions = await get_active_promotions(offers, ctx)
    diagnosis = answer.diagnosis
    language = diagnosis.lang if diagnosis is not None else None  # a Spanish description: the prices' words too
    for issue in diagnosis.likely_issues if diagnosis is not None else []:
        priced: dict[str, object] = {"issueKey": issue.key, "zip": route.location.zip, "lang": language}
        if args.door_size is not None:
            priced["doorSize"] = args.door_size
        answer.costs.append(estimate(ctx.knowledge, CostEstimateInput.model_validate(priced)))
    return answer


async def _reference_photos(diagnosis: DiagnoseOutput, ctx: ToolContext) -> ReferencePhotosOutput | None:
    """The gallery of the likeliest cause that has one (the checklist names each issue's part), by URL, in the
    diagnosis's language (its captions, and the words drawn in its pictures)."""
    galleries = {
        item.issue_key: item.reference_photo_item
        for item in reversed(ctx.knowledge.checklist.items)  # the first item of an issue wins
        if item.issue_key and item.reference_photo_item
    }
    for issue in diagnosis.likely_issues:
        if issue.key in galleries:
            arguments = {"itemId": galleries[issue.key], "inlineImages": False, "lang": diagnosis.lang}
            request = ReferencePhotosInput.model_validate(arguments)
            return await get_reference_photos(request, ctx)
    return None


TOOL = Tool(
    name="homeownerAnswer",
    title="Help a homeowner with a garage door",
    summary="A door's symptom and place to the likely cause, a local pro with offers, and local prices, in one call.",
    description=(
        "The homeowner's journey in one call. Give `description` (what the door does, in their words), "
        "`place` (ZIP code or city) or both (with neither the answer is empty), and optionally `doorSize`. "
        "Returns `diagnosis` (as diagnose), with `referencePhotos` of the part behind it; with a place, "
        "`route` (as routeByZip, sent as a hot lead when the diagnosis set `safetyFlag`, else warm), the "
        "pro's current `promotions` and `costs`: each likely cause priced for the routed place (as "
        "costEstimate). A place that cannot be read comes back as `placeError` beside the diagnosis. When "
        "`diagnosis.safetyFlag` is true, tell the user to stop using the door and call the pro."
    ),
    input_model=HomeownerAnswerInput,
    output_model=HomeownerAnswerOutput,
    handler=answer_homeowner,
)
