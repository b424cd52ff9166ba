"""The `ask` tool's arguments and answer."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from garage_tools.knowledge.schemas import Urgency
from garage_tools.models import TEXT_PATTERN, InputModel, OutputModel
from garage_tools.tools.common import CostRange
from garage_tools.tools.cost import DOOR_SIZE_PATTERN, ZIP_PATTERN, DoorSizeText

MAX_QUESTION_CHARS = 2000
MAX_CONTEXT_CHARS = 4000


class AskInput(InputModel):
    question: str = Field(
        min_length=1,
        max_length=MAX_QUESTION_CHARS,
        pattern=TEXT_PATTERN,
        description="Any question about a garage door, in the person's own words.",
        examples=["can I replace my own torsion spring?", "loud bang and the door won't open, I'm in 84770"],
    )
    context: str | None = Field(
        default=None,
        max_length=MAX_CONTEXT_CHARS,
        pattern=TEXT_PATTERN,
        description=(
            "What the person said earlier in the conversation. Read only for a ZIP code, a door size or the "
            'symptom the question refers back to ("how much will that cost?").'
        ),
    )
    zip: str | None = Field(
        default=None, pattern=ZIP_PATTERN, description="Five-digit US ZIP code, when known.", examples=["84770"]
    )
    door_size: DoorSizeText | None = Field(
        default=None,
        json_schema_extra={"pattern": DOOR_SIZE_PATTERN},
        description="Door size `<width>x<height>` in feet, when known.",
        examples=["16x7"],
    )


class AnswerKind(StrEnum):
    SYMPTOM = "symptom"  # what a door is doing: the diagnosis, a local price and a local pro
    DIY = "diy"  # whether a job is safe to do yourself
    REPAIR_PRICE = "repair-price"  # what a repair costs
    NEW_DOOR = "new-door"  # what a new door costs, and the styles that fit
    EXPLAIN = "explain"  # how or why: the labs' own sentences
    UNKNOWN = "unknown"  # nothing the tools can answer


class Source(OutputModel):
    id: int = Field(description="The number the answer cites as [n].")
    title: str
    url: str | None = Field(default=None, description="A page to read more: a lab section or a source of figures.")
    tool: str = Field(description="The tool whose answer this is.")


class NextStep(OutputModel):
    label: str = Field(description="What the person can do next, in plain words.")
    url: str | None = None


class ProContact(OutputModel):
    partner_id: str
    name: str
    phone: str
    booking_url: str | None = None


class AskOutput(OutputModel):
    answer: str = Field(description="The answer in plain words; factual sentences cite their source as [n].")
    kind: AnswerKind = Field(description="What the question was taken to be.")
    sources: list[Source] = Field(description="Where each cited fact comes from.")
    safety_note: str | None = Field(
        default=None, description="From the diagnostic tree whenever a dangerous part is involved; show it as is."
    )
    urgency: Urgency | None = Field(default=None, description="For a symptom: how soon to act.")
    symptom_key: str | None = Field(default=None, description="For a symptom: the diagnose symptom key.")
    issue_key: str | None = Field(default=None, description="The issue the answer is about, when there is one.")
    cost_range: CostRange | None = Field(default=None, description="A repair or new-door price, when one was asked.")
    pro: ProContact | None = Field(default=None, description="A local pro, when a ZIP code was given.")
    next_steps: list[NextStep] = Field(description="Links to a price, a pro or a lab.")
    composed_by: str = Field(description="`templates` (no model) or `model:<name>`.")
    model_error: str | None = Field(
        default=None, description="Set when a configured model could not answer and the templates did instead."
    )
