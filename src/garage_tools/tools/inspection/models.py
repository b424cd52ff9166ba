"""What `submitInspection` takes and returns, and the stored report a report page shows.

The input mirrors the specification's table exactly; every bound is in the published schema so
clients can check a submission before sending it. Patterns spell their classes out (see
`garage_tools.models`): browsers, ECMA-262 validators and the server must agree on what a valid
e-mail address or ZIP code is.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from garage_tools.knowledge.checklist import ItemStatus
from garage_tools.knowledge.loader import packaged_checklist
from garage_tools.knowledge.photos import PhotoSeverity
from garage_tools.knowledge.schemas import DiyRisk, Urgency
from garage_tools.models import (
    EMAIL_PATTERN,
    LINE_PATTERN,
    MAX_EMAIL,
    TEXT_PATTERN,
    Flag,
    InputModel,
    OutputModel,
    is_email_address,
)
from garage_tools.tools.common import DIY_RISK_DESCRIPTION, LANG_PATTERN
from garage_tools.tools.cost import ZIP_PATTERN

MAX_ITEM_NOTE = 500
MAX_NOTES = 2000


class Recipient(InputModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"email": "homeowner@example.com", "zip": "94110"}]})

    email: str = Field(
        max_length=MAX_EMAIL,
        json_schema_extra={"format": "email", "pattern": EMAIL_PATTERN},
        description="Where the report is e-mailed when `emailReport` is true. Never shown on the report page.",
        examples=["homeowner@example.com"],
    )
    zip: str = Field(
        pattern=ZIP_PATTERN,
        description="Five-digit US ZIP code of the door, for finding a local pro.",
        examples=["94110"],
    )
    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        pattern=LINE_PATTERN,
        description="The homeowner's name. Only the first word (the first name) appears on the report.",
        examples=["Alex Rivera"],
    )

    @field_validator("email")
    @classmethod
    def _address(cls, value: str) -> str:
        # The pattern is published in the schema; checked here because of its lookahead.
        if not is_email_address(value):
            raise ValueError("must be an e-mail address such as homeowner@example.com")
        return value


class Consent(InputModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"marketing": False, "contactShare": True}]})

    marketing: Flag = Field(description="The homeowner agrees to receive offers by e-mail.")
    contact_share: Flag = Field(
        description="The homeowner agrees that a local pro may contact them about the items that need fixing."
    )


class Door(InputModel):
    size: str | None = Field(
        default=None, max_length=20, pattern=LINE_PATTERN, description="Door size, e.g. `16x7`.", examples=["16x7"]
    )
    year_installed: str | None = Field(
        default=None, max_length=20, pattern=LINE_PATTERN, description="When the door was installed."
    )
    motor_brand: str | None = Field(
        default=None, max_length=60, pattern=LINE_PATTERN, description="Opener brand, e.g. LiftMaster."
    )


class ItemReport(InputModel):
    status: ItemStatus = Field(description="`ok`, `watch` (worn or borderline) or `fix` (needs repair).")
    note: str | None = Field(
        default=None, max_length=MAX_ITEM_NOTE, pattern=TEXT_PATTERN, description="What the homeowner saw."
    )


def _item_ids_schema(schema: dict[str, Any]) -> None:
    # Read from the data file when a schema is generated, so agents and OpenAPI clients see the 24 ids.
    schema["propertyNames"] = {"enum": packaged_checklist().ids}


class SubmitInspectionInput(InputModel):
    recipient: Recipient = Field(
        description="Who inspected the door: `email` and `zip` required, `name` optional.",
    )
    consent: Consent = Field(
        description="Both choices are required and stored with the report.",
    )
    door: Door | None = Field(default=None, description="Optional facts about the door.")
    items: dict[str, ItemReport] = Field(
        min_length=1,
        description=(
            "Inspection item id → `{status, note}`. Ids: springs, drums, cables, rollers, hinges, "
            "door-panels-interior, track, bottom-seal, photo-eyes, motorhead, wall-button, remotes, keypad, "
            "balance, spring-safety-cables, bottom-brackets, torsion-shaft, pulleys, struts, lock-and-handles, "
            "warning-labels, emergency-release, auto-reverse, limits-and-force. Items left out count as not "
            "inspected."
        ),
        json_schema_extra=_item_ids_schema,
        examples=[{"springs": {"status": "ok"}, "cables": {"status": "watch", "note": "Some rust on the left"}}],
    )
    notes: str | None = Field(
        default=None, max_length=MAX_NOTES, pattern=TEXT_PATTERN, description="Anything else, in free text."
    )
    email_report: Flag = Field(default=False, description="Queue the report e-mail to `recipient.email`.")
    lang: str | None = Field(
        default=None,
        pattern=LANG_PATTERN,
        description=(
            "The language of the report's homeowner-facing texts (item `label`, `area`, `guidance`, `gradeLabel`, "
            "`summary`, `nextStep.text`), its page and its e-mail: `en` (default) or `es`. Item ids, statuses, "
            "grades and codes stay as they are. A language not spoken answers in English."
        ),
    )

    @field_validator("items", mode="before")
    @classmethod
    def _known_items(cls, value: object) -> object:
        # Checked before the values, so unknown ids are reported together and by name.
        if isinstance(value, dict):
            known = set(packaged_checklist().ids)
            unknown = [key for key in value if key not in known]
            if unknown:
                raise ValueError(
                    f"unknown inspection item ids: {', '.join(map(str, unknown))}. "
                    f"Valid ids: {', '.join(packaged_checklist().ids)}"
                )
        return value


# --- results ------------------------------------------------------------------------------------


class ReportStatus(StrEnum):
    """An item's state on the report: a status the homeowner gave, or not inspected."""

    OK = "ok"
    WATCH = "watch"
    FIX = "fix"
    NOT_INSPECTED = "not_inspected"


class ReferencePhotos(OutputModel):
    """Where reference photos of the part are: call `tool` with `itemId` (and `severity`)."""

    tool: str = Field(default="getInspectionReferencePhotos")
    item_id: str
    severity: PhotoSeverity | None = Field(
        default=None, description="The photos that match the item's state: `FIX` for a fix, `WATCH` for a watch."
    )


class FlaggedItem(OutputModel):
    item_id: str
    label: str
    area: str
    status: Literal[ItemStatus.WATCH, ItemStatus.FIX]
    urgency: Urgency = Field(
        description=(
            "`emergency` (a safety-critical part needs fixing: stop using the door), `soon` (a repair, or a "
            "safety-critical part to watch) or `routine`."
        )
    )
    safety_critical: bool
    guidance: str = Field(description="What to do about it.")
    diy_risk: DiyRisk = Field(description=DIY_RISK_DESCRIPTION)
    note: str | None = Field(default=None, description="What the homeowner wrote about it.")
    issue_key: str | None = Field(default=None, description="Pass to costEstimate as `issueKey` for a price range.")
    reference_photos: ReferencePhotos | None = None


class ItemResult(OutputModel):
    item_id: str
    label: str
    area: str
    status: ReportStatus
    safety_critical: bool
    note: str | None = None


class Completeness(OutputModel):
    inspected: int
    total: int
    percent: int = Field(description="Share of the 24 items inspected, 0-100.")
    not_inspected: list[str] = Field(description="Item ids not submitted.")
    safety_critical_not_inspected: list[str] = Field(description="The not-inspected items that matter most.")


class LocalPro(OutputModel):
    """The local pro for the repairs: the partner routeByZip's rule picks for the ZIP code and the most urgent issue."""

    name: str
    phone: str | None = None
    booking_url: str | None = Field(default=None, description="The partner's online booking calendar.")
    website: str | None = None
    partner_id: str
    covered: bool = Field(
        default=True,
        description="False when no partner serves the area yet: this is the nearest, which may not travel that far.",
    )
    contact_details_sent: bool = Field(
        default=False,
        description=(
            "The homeowner's name, e-mail address and the report link went to this pro with the lead, because "
            "they agreed (`consent.contactShare`). Never true otherwise."
        ),
    )


class RouteArguments(OutputModel):
    zip_or_location: str
    issue: str | None = None
    lead_heat: Literal["hot", "warm", "cold"]


class NextStepAction(StrEnum):
    CALL_A_PRO_NOW = "call_a_pro_now"  # a safety-critical item needs fixing
    BOOK_A_PRO = "book_a_pro"  # something needs a technician's repair
    DO_IT_YOURSELF = "do_it_yourself"  # the fixes are all safe for a homeowner
    KEEP_AN_EYE = "keep_an_eye"  # items to watch only
    ROUTINE_CARE = "routine_care"  # nothing flagged


class NextStep(OutputModel):
    action: NextStepAction
    text: str = Field(description="The next step in a sentence or two, for the homeowner.")
    tool: str | None = Field(default=None, description="The tool that finds a local pro: `routeByZip`.")
    arguments: RouteArguments | None = Field(default=None, description="Arguments for `tool`.")
    contact_shared: bool = Field(description="The homeowner agreed that a local pro may contact them.")
    local_pro: LocalPro | None = Field(
        default=None, description="The local pro to call, when a pro is needed and the partner directory has one."
    )


class Scorecard(OutputModel):
    """The scored result of one submission, stored as it was computed (later weight changes don't alter it)."""

    score: int = Field(description="0-100; see `scoring` in the data file and the guide for how it is computed.")
    grade: str = Field(description="A (good shape) to F (unsafe until repaired).")
    grade_label: str
    summary: str
    completeness: Completeness
    flagged_items: list[FlaggedItem] = Field(description="Watch and fix items, most urgent first.")
    items: list[ItemResult] = Field(description="All 24 items in checklist order.")
    lang: str = Field(
        default="en", description="The language the report is written in (`en`, `es`); its page and e-mail use it."
    )


class ReportDoor(OutputModel):
    size: str | None = None
    year_installed: str | None = None
    motor_brand: str | None = None


class ReportLinks(OutputModel):
    report_id: str = Field(description="The report's unguessable id.")
    report_url: str = Field(
        description="The printable report page; share it with a pro. Not indexed by search engines."
    )
    report_json_url: str = Field(description="The same report as JSON.")
    created_at: datetime


class InspectionReport(Scorecard, ReportLinks):
    """A stored report as anyone with its link sees it: no personal data beyond a first name."""

    first_name: str | None = None
    door: ReportDoor | None = None
    next_step: NextStep


class ConsentRecord(OutputModel):
    marketing: bool
    contact_share: bool


class SubmitInspectionOutput(InspectionReport):
    replayed: bool = Field(
        description="True when this answers a retry: the same Idempotency-Key and body as an earlier submission."
    )
    email_queued: bool = Field(description="The report e-mail is queued (sent once the mail server accepts it).")
    consent: ConsentRecord
