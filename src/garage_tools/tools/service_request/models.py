"""What `requestService` takes and returns. Every bound is in the published schema, so a client can check a
request before sending it; the rules a schema cannot say (one way to reach the homeowner at least, consent
given, an issue or a description) are checked here with plain messages."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field, field_validator, model_validator

from garage_tools.models import EMAIL_PATTERN, LINE_PATTERN, MAX_EMAIL, TEXT_PATTERN, InputModel, OutputModel
from garage_tools.tools.cost import DOOR_SIZE_PATTERN, ZIP_PATTERN, DoorSizeText
from garage_tools.tools.routing.models import check_issue_or_symptom, publish_issue_enum

MAX_WINDOWS = 3
#: How far ahead a preferred time may be; a day back is allowed, for a homeowner a time zone behind UTC.
MAX_DAYS_AHEAD = 180
MAX_DESCRIPTION = 500
MAX_NOTES = 1000
#: A phone number as people type it: digits, spaces, + ( ) - . and an extension; at least seven digits.
PHONE_PATTERN = r"^\+?[0-9 ().\-]{7,24}(?: *(?:x|ext\.?) *[0-9]{1,6})?$"
PARTNER_ID_PATTERN = r"^[A-Za-z0-9_.-]+$"
REPORT_ID_PATTERN = r"^[A-Za-z0-9_-]{16,32}$"


def present(name: str) -> dict[str, Any]:
    """A schema branch: `name` given and not null (null for an optional argument means left out, models.py)."""
    return {"required": [name], "properties": {name: {"not": {"type": "null"}}}}


class PartOfDay(StrEnum):
    MORNING = "morning"
    AFTERNOON = "afternoon"
    EVENING = "evening"


class Contact(InputModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"name": "Dana Reyes", "phone": "(435) 555-0199"}],
            "anyOf": [present("phone"), present("email")],  # at least one way to reach them
        },
    )

    name: str = Field(
        min_length=1, max_length=100, pattern=LINE_PATTERN, description="Who the pro asks for.", examples=["Dana Reyes"]
    )
    phone: str | None = Field(
        default=None,
        max_length=32,
        pattern=PHONE_PATTERN,
        description="A number the pro can call or text.",
        examples=["(435) 555-0199"],
    )
    email: str | None = Field(
        default=None,
        max_length=MAX_EMAIL,
        json_schema_extra={"format": "email", "pattern": EMAIL_PATTERN},
        description="An address for the pro, and for our confirmation and status e-mails.",
    )

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must name someone")
        return value.strip()

    @model_validator(mode="after")
    def _reachable(self) -> Contact:
        if self.phone is None and self.email is None:
            raise ValueError("give a phone number or an e-mail address (or both), so the pro can reach the homeowner")
        if self.email is not None:
            self.email = self.email.lower()
        return self


class RequestConsent(InputModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"contactShare": True}]})

    contact_share: bool = Field(
        description=(
            "Must be true: the homeowner agrees that the pro (and, should that pro not answer, the next local "
            "pro) receives their name, phone or e-mail and what they wrote, to contact them about this job."
        ),
        examples=[True],
    )


class Window(InputModel):
    date: dt.date = Field(
        description=f"A day the homeowner would like a visit (YYYY-MM-DD), today to {MAX_DAYS_AHEAD} days ahead."
    )
    part_of_day: PartOfDay = Field(description="`morning`, `afternoon` or `evening`.")


class RequestServiceInput(InputModel):
    # What is wrong, one way or both: the schema says it as the validator below checks it.
    model_config = ConfigDict(json_schema_extra={"anyOf": [present("issueKey"), present("description")]})

    partner_id: str = Field(
        min_length=1,
        max_length=64,
        pattern=PARTNER_ID_PATTERN,
        description="The pro to ask: the `partnerId` routeByZip answered for this ZIP code.",
        examples=["dixie-door-and-spring"],
    )
    zip: str = Field(pattern=ZIP_PATTERN, description="Five-digit ZIP code of the door.", examples=["84770"])
    issue_key: str | None = Field(
        default=None,
        max_length=64,
        description="What is wrong: an issue key (`broken_spring`) or diagnose's symptom key (`wont_close`).",
        json_schema_extra=publish_issue_enum,
        examples=["broken_spring"],
    )
    description: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_DESCRIPTION,
        pattern=TEXT_PATTERN,
        description="The problem in the homeowner's words. Send this, `issueKey`, or both.",
        examples=["loud bang and the door won't open"],
    )
    door_size: DoorSizeText | None = Field(
        default=None,
        json_schema_extra={"pattern": DOOR_SIZE_PATTERN},
        description="Door size `<width>x<height>` in feet, e.g. `16x7`.",
    )
    contact: Contact = Field(
        description="`name`, and a `phone` or an `email` (or both).",
        examples=[{"name": "Dana Reyes", "phone": "(435) 555-0199"}],
    )
    consent: RequestConsent = Field(description="`contactShare` must be true.", examples=[{"contactShare": True}])
    windows: list[Window] = Field(
        default_factory=list,
        max_length=MAX_WINDOWS,
        description="Up to three preferred times, each a date and a part of the day.",
    )
    notes: str | None = Field(
        default=None, max_length=MAX_NOTES, pattern=TEXT_PATTERN, description="Anything else for the pro."
    )
    report_id: str | None = Field(
        default=None,
        pattern=REPORT_ID_PATTERN,
        description="The id of an inspection report (submitInspection's `reportId`) to pass on with the request.",
    )

    @field_validator("issue_key")
    @classmethod
    def _known_issue(cls, value: str | None) -> str | None:
        return check_issue_or_symptom(value, "issueKey")

    @model_validator(mode="after")
    def _says_what(self) -> RequestServiceInput:
        if self.issue_key is None and (self.description is None or not self.description.strip()):
            raise ValueError("say what is wrong: send `issueKey`, `description`, or both")
        return self


class RequestedPro(OutputModel):
    partner_id: str
    name: str
    phone: str


class RequestServiceOutput(OutputModel):
    request_id: str = Field(description="The request number to quote, e.g. `R-4829-3915`.")
    status: str = Field(description="`received`: stored and sent to the pro.")
    status_url: str = Field(description="The homeowner's page for this request (where it stands; cancel). Private.")
    partner: RequestedPro = Field(description="Who has the request now.")
    answer_by: dt.datetime = Field(description="When the pro is asked to have answered; then the next pro is asked.")
    next_step: str = Field(description="What happens next, in plain words, to read to the homeowner.")
    created_at: dt.datetime
    replayed: bool = Field(default=False, description="True when an Idempotency-Key retry returned the first answer.")
