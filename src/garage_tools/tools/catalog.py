"""`getDoorStyles`: the door style catalog, filtered by budget, type, price and insulation."""

from __future__ import annotations

from pydantic import Field

from garage_tools.knowledge.languages import StyleTexts
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.schemas import Budget, DoorStyle, DoorType
from garage_tools.languages import supported
from garage_tools.models import InputModel, Number, OutputModel
from garage_tools.registry import Tool, ToolContext
from garage_tools.tools.common import LANG_PATTERN, CostRange


class DoorStylesInput(InputModel):
    budget: Budget | None = Field(default=None, description="Budget tier.")
    door_type: DoorType | None = Field(
        default=None,
        alias="type",
        description=(
            "Door type: `steel` (uninsulated or vinyl-backed), `insulated` (insulated steel), `aluminum`, "
            "`glass` (full-view), `custom` (wood, carriage-house, composite, fiberglass)."
        ),
    )
    max_price_usd: Number | None = Field(
        default=None, ge=0, le=1_000_000, description="Only styles whose installed price starts at or below this."
    )
    min_r_value: Number | None = Field(
        default=None, ge=0, le=100, description="Only styles insulated at least this well."
    )
    lang: str | None = Field(
        default=None,
        pattern=LANG_PATTERN,
        description=(
            "The language of the styles' words (`name`, `description`, `material`, `features`, `priceBasis`): "
            "`en` (default) or `es`. Ids, types and budgets stay as they are. A language not spoken answers in English."
        ),
    )


class StyleRatings(OutputModel):
    durability: int = Field(ge=1, le=5)
    insulation: int = Field(ge=1, le=5)
    curb_appeal: int = Field(ge=1, le=5)
    low_maintenance: int = Field(ge=1, le=5, description="5 = least upkeep.")


class DoorStyleOut(OutputModel):
    id: str
    name: str
    type: DoorType
    budget: Budget
    description: str
    price_range: CostRange = Field(description="Installed: single-car door (min) to double-car door (max).")
    r_value: float = Field(description="Insulation R-value of the door section (0 = uninsulated).")
    material: str
    features: list[str]
    ratings: StyleRatings = Field(description="1 (poor) to 5 (excellent), for comparing styles.")


class DoorStylesOutput(OutputModel):
    styles: list[DoorStyleOut] = Field(description="Matching styles, cheapest first; empty when none match.")
    count: int
    price_basis: str = Field(description="What the prices include.")
    lang: str = Field(default="en", description="The language of the styles' words (`en`, `es`).")


def _out(style: DoorStyle, words: StyleTexts | None) -> DoorStyleOut:
    r = style.ratings
    return DoorStyleOut(
        id=style.id,
        name=words.name if words else style.name,
        type=style.type,
        budget=style.budget,
        description=words.description if words else style.description,
        price_range=CostRange.of(style.price_range),
        r_value=style.r_value,
        material=words.material if words else style.material,
        features=list(words.features if words else style.features),
        ratings=StyleRatings(
            durability=r.durability,
            insulation=r.insulation,
            curb_appeal=r.curb_appeal,
            low_maintenance=r.low_maintenance,
        ),
    )


def find_styles(knowledge: Knowledge, args: DoorStylesInput) -> DoorStylesOutput:
    """Every style that passes all the given filters (filters combine with AND)."""
    catalog = knowledge.door_styles
    chosen = [
        style
        for style in catalog.styles
        if (args.budget is None or style.budget is args.budget)
        and (args.door_type is None or style.type is args.door_type)
        and (args.max_price_usd is None or style.price_range.min <= args.max_price_usd)
        and (args.min_r_value is None or style.r_value >= args.min_r_value)
    ]
    chosen.sort(key=lambda s: (s.price_range.min, s.price_range.max, s.name))
    language = knowledge.language(supported(args.lang))
    words = language.door_styles
    styles = [_out(s, words.styles[s.id] if words else None) for s in chosen]
    basis = words.price_basis if words else catalog.price_basis
    return DoorStylesOutput(styles=styles, count=len(chosen), price_basis=basis, lang=language.code)


async def get_door_styles(args: DoorStylesInput, ctx: ToolContext) -> DoorStylesOutput:
    return find_styles(ctx.knowledge, args)


TOOL = Tool(
    name="getDoorStyles",
    icon="styles",
    title="Browse garage door styles",
    summary="Door styles with installed prices, R-values, features and ratings (filterable).",
    description=(
        "Returns garage door styles from the catalog, cheapest first, each with its installed price range "
        "(single-car to double-car door), insulation R-value, material, features and 1-5 ratings for "
        "durability, insulation, curb appeal and low maintenance. All filters are optional and combine: "
        "`budget` (economy, mid-range, premium), `type` (steel, aluminum, insulated, glass, custom), "
        "`maxPriceUsd` (price starts at or below) and `minRValue`. No match is an empty list, not an error. "
        "`lang: es` gives the styles' words in Spanish."
    ),
    input_model=DoorStylesInput,
    output_model=DoorStylesOutput,
    handler=get_door_styles,
)
