"""Schema of `data/prompts.json`: the MCP prompts the service offers, and the values its completions suggest.

A prompt's text lives in the data file, not in code, so its wording can be edited like any other
knowledge. A paragraph may name an argument under `when` (kept only when that argument was given)
or `unless` (kept only when it was not); `{argument}` in a paragraph is replaced by the value given.
Each argument says which list completes it (`complete`), so completions and prompts cannot drift apart.
"""

from __future__ import annotations

import string
from enum import StrEnum
from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from garage_tools.knowledge.schemas import DataModel, Slug, Text

ArgumentName = Annotated[str, StringConstraints(pattern=r"^[a-z][A-Za-z0-9]*$")]
DoorSize = Annotated[str, StringConstraints(pattern=r"^[1-9][0-9]?x[1-9][0-9]?$")]


class Completion(StrEnum):
    """Which values complete an argument."""

    PLACE = "place"  # a ZIP code's start to "City, ST 12345", or a city name's start to "City, ST"
    DOOR_SIZE = "doorSize"  # common door sizes (`doorSizes` below)
    ISSUE = "issue"  # issue keys of the diagnostic tree
    INSPECTION_ITEM = "inspectionItem"  # the inspection checklist's item ids
    LAB = "lab"  # lab slugs


class PromptArgument(DataModel):
    name: ArgumentName = Field(description="The argument's name, camelCase.")
    description: Text
    required: bool = False
    complete: Completion | None = Field(default=None, description="Which values complete it; none for free text.")


class Paragraph(DataModel):
    text: Text
    when: str | None = Field(default=None, description="Keep this paragraph only when this argument was given.")
    unless: str | None = Field(default=None, description="Keep this paragraph only when this argument was not given.")
    tier: str | None = Field(
        default=None, pattern=r"^(public|pro)$", description="Keep it only on this tier (`/mcp` or `/mcp-pro`)."
    )


class Prompt(DataModel):
    name: Slug
    title: Text
    description: Text
    arguments: list[PromptArgument] = Field(default_factory=list)
    paragraphs: list[Paragraph] = Field(min_length=1)
    lab: Slug | None = Field(
        default=None,
        description="A lab the prompt is about: on the pro tier its passages for the question come with the prompt.",
    )

    @model_validator(mode="after")
    def _names_known(self) -> Prompt:
        names = {argument.name for argument in self.arguments}
        required = {argument.name for argument in self.arguments if argument.required}
        for paragraph in self.paragraphs:
            used = {field for _, field, _, _ in string.Formatter().parse(paragraph.text) if field}
            guards = {name for name in (paragraph.when, paragraph.unless) if name is not None}
            unknown = (used | guards) - names
            if unknown:
                raise ValueError(f"prompt {self.name!r} names arguments it does not declare: {sorted(unknown)}")
            if unsure := used - required - {paragraph.when}:
                raise ValueError(
                    f"prompt {self.name!r}: a paragraph uses optional {sorted(unsure)} without `when` naming it"
                )
        return self


class PromptCatalog(DataModel):
    about: Text
    door_sizes: list[DoorSize] = Field(
        alias="doorSizes", min_length=1, description="Door sizes completions offer, most common first."
    )
    prompts: list[Prompt] = Field(min_length=1)

    def get(self, name: str) -> Prompt | None:
        return next((prompt for prompt in self.prompts if prompt.name == name), None)
