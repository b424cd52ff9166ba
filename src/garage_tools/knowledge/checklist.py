"""Schema of the 24-point inspection checklist (`knowledge/data/inspection_items.json`).

The items, their weights and the scoring bands are data, so a domain expert can reword advice or
re-weigh an item without reading Python. The checks below stop start-up on a list that the
published API could not honour: the eight item ids the specification names must come first and
in its order, and the nine reference-photo ids must all be items.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from garage_tools.knowledge.schemas import DataModel, DiyRisk, Key, Slug, Source, Text

CHECKLIST_SIZE = 24
#: The start of the list of 24, in the specification's order.
SPEC_ITEM_IDS = ("springs", "drums", "cables", "rollers", "hinges", "door-panels-interior", "track", "bottom-seal")
#: Items with a reference-photo gallery (`getInspectionReferencePhotos`).
REFERENCE_PHOTO_ITEM_IDS = (
    "springs",
    "cables",
    "drums",
    "bottom-seal",
    "photo-eyes",
    "motorhead",
    "wall-button",
    "remotes",
    "keypad",
)
ReferencePhotoItem = Literal[
    "springs", "cables", "drums", "bottom-seal", "photo-eyes", "motorhead", "wall-button", "remotes", "keypad"
]


class ItemStatus(StrEnum):
    """What the homeowner found."""

    OK = "ok"
    WATCH = "watch"  # worn or borderline: check again, plan a repair
    FIX = "fix"  # needs repair


class ChecklistItem(DataModel):
    id: Slug
    label: Text
    area: Text = Field(description="The group the form shows the item in.")
    weight: int = Field(
        ge=1, le=5, description="How much the item counts in the score, 1 (cosmetic) to 5 (life safety)."
    )
    safety_critical: bool = Field(
        alias="safetyCritical", description="A failure can hurt someone: a `fix` here caps the score at an F."
    )
    look_for: Text = Field(alias="lookFor", description="What to look for, in the homeowner's words.")
    watch_advice: Text = Field(alias="watchAdvice", description="Guidance when the item is marked `watch`.")
    fix_advice: Text = Field(alias="fixAdvice", description="Guidance when the item is marked `fix`.")
    diy_risk: DiyRisk = Field(alias="diyRisk", description="Whether a homeowner can safely put it right.")
    reference_photo_item: ReferencePhotoItem | None = Field(
        default=None, alias="referencePhotoItem", description="The reference-photo gallery that shows this part."
    )
    issue_key: Key | None = Field(
        default=None, alias="issueKey", description="The diagnostic-tree issue a `fix` here most likely is."
    )
    under_tension: bool = Field(
        default=False,
        alias="underTension",
        description="A part under spring tension (springs, cables, drums, brackets): marked `fix`, the door must "
        "not be run or lifted, so the form stops asking for the checks that would.",
    )
    hands_on: bool = Field(
        default=False,
        alias="handsOn",
        description="The check moves the door (by hand, with the opener or the release): asked after the parts "
        "under tension, and not asked once one of them is marked `fix`.",
    )
    source: Text


class Credit(DataModel):
    """The share of an item's weight each status earns."""

    ok: float = Field(ge=0, le=1)
    watch: float = Field(ge=0, le=1)
    fix: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> Credit:
        if not self.ok >= self.watch >= self.fix:
            raise ValueError("credit must not grow from ok to watch to fix")
        return self


class Caps(DataModel):
    """The highest score a report can have when any item is in the named state."""

    any_fix: int = Field(ge=0, le=100, alias="anyFix")
    safety_critical_watch: int = Field(ge=0, le=100, alias="safetyCriticalWatch")
    safety_critical_fix: int = Field(ge=0, le=100, alias="safetyCriticalFix")


class GradeBand(DataModel):
    grade: str = Field(pattern=r"^[A-F]$")
    min_score: int = Field(ge=0, le=100, alias="minScore")
    label: Text


class Scoring(DataModel):
    credit: Credit
    caps: Caps
    grades: list[GradeBand] = Field(min_length=2, description="Best first; the last band starts at 0.")

    @model_validator(mode="after")
    def _bands(self) -> Scoring:
        floors = [band.min_score for band in self.grades]
        if floors != sorted(set(floors), reverse=True) or floors[-1] != 0:
            raise ValueError("grade bands must have strictly falling minScore values, the last one 0")
        return self

    def grade_for(self, score: int) -> GradeBand:
        return next(band for band in self.grades if score >= band.min_score)


class InspectionChecklist(DataModel):
    about: Text
    scoring: Scoring
    sources: list[Source] = Field(min_length=1)
    items: list[ChecklistItem] = Field(min_length=CHECKLIST_SIZE, max_length=CHECKLIST_SIZE)

    @model_validator(mode="after")
    def _consistent(self) -> InspectionChecklist:
        ids = [item.id for item in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError("item ids must be unique")
        if tuple(ids[: len(SPEC_ITEM_IDS)]) != SPEC_ITEM_IDS:
            raise ValueError(f"the list must start with the specification's items, in order: {list(SPEC_ITEM_IDS)}")
        missing = [photo for photo in REFERENCE_PHOTO_ITEM_IDS if photo not in ids]
        if missing:
            raise ValueError(f"reference-photo items missing from the list: {missing}")
        both = [item.id for item in self.items if item.under_tension and item.hands_on]
        if both:
            raise ValueError(f"an item is either a part under tension or a check that moves the door: {both}")
        return self

    @property
    def ids(self) -> list[str]:
        return [item.id for item in self.items]
