"""Schema of the opener knowledge base (`knowledge/data/openers.json`).

What a learn-button colour means (generation, radio frequency, years, the remotes that pair with it)
and what is known about each opener brand is data, kept with its sources and how sure they are, so a
domain expert can correct a year or add a remote without reading Python. `identifyOpener` reads only
this file for those facts, whether a vision model or the offline colour check saw the button: a model
names the colour, the file answers everything else.

The checks below stop start-up on a file the tool could not use: two entries for one colour, a
reference to a family or brand that is not there, a brand name two brands answer to.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from garage_tools.knowledge.schemas import DataModel, Slug, Source, Text


class LearnButtonColour(StrEnum):
    """The colour of the learn button on a LiftMaster, Chamberlain or Craftsman motor unit."""

    YELLOW = "yellow"
    PURPLE = "purple"
    RED_ORANGE = "red-orange"
    GREEN = "green"
    WHITE = "white"


class Certainty(StrEnum):
    """How well the sources back a fact: as tagged in the domain fact sheet."""

    HIGH = "high"  # official source, or many independent sources agree
    MEDIUM = "medium"  # several secondary sources agree
    LOW = "low"  # a single secondary source
    UNVERIFIED = "unverified"  # could not be confirmed: shown only with a warning


Mhz = Annotated[int, Field(ge=300, le=400)]
ModelNumber = Annotated[str, StringConstraints(pattern=r"^[0-9A-Z][0-9A-Za-z.\-]*$")]


class Years(DataModel):
    """When a generation was sold. `text` is what people read; the numbers are for sorting and filters."""

    first: int | None = Field(default=None, ge=1950, le=2100, description="First year; null when unknown.")
    last: int | None = Field(
        default=None,
        ge=1950,
        le=2100,
        description="The latest end year the sources give; null while still sold (or unknown: see `text`).",
    )
    text: Text = Field(description='Display form with any doubt left in, e.g. "2005 to early 2010s".')

    @model_validator(mode="after")
    def _ordered(self) -> Years:
        if self.first is not None and self.last is not None and self.first > self.last:
            raise ValueError(f"first year ({self.first}) is after the last ({self.last})")
        return self


class Remote(DataModel):
    """A remote control model that pairs with an opener generation."""

    model: ModelNumber = Field(description="The model number exactly as printed, e.g. 893MAX.")
    series: Text | None = Field(default=None, description="The series it belongs to, e.g. 97xLM.")
    universal: bool = Field(default=False, description="A universal remote covering several generations.")
    certainty: Certainty


class LearnButton(DataModel):
    """One learn-button colour (or the DIP-switch era before them) and the opener generation it marks."""

    slug: Slug
    colour: LearnButtonColour | None = Field(description="Null for openers with no learn button (DIP switches).")
    colour_label: Text = Field(alias="colourLabel", description='As people say it, e.g. "red / orange".')
    family: Slug = Field(description="The key of the family (in `families`) whose openers use this colour.")
    generation: Text = Field(description='The radio generation, e.g. "Security+ 2.0".')
    technology: Text = Field(description="What the radio does, in a few words.")
    frequencies_mhz: list[Mhz] = Field(alias="frequenciesMhz", description="Empty when the sources give no figure.")
    frequency_text: Text = Field(alias="frequencyText", description='Display form, e.g. "310 / 315 / 390 MHz".')
    years: Years
    compatible_remotes: list[Remote] = Field(alias="compatibleRemotes")
    universal_remote_presses: int | None = Field(
        default=None,
        alias="universalRemotePresses",
        ge=1,
        le=4,
        description="How many times to press the chosen 893MAX button after its program button.",
    )
    detectable: bool = Field(
        description="Whether the offline colour check looks for it (a white button on a white housing cannot be told)."
    )
    certainty: Certainty
    notes: list[Text] = Field(default_factory=list, description="Doubts, variants and advice, shown with the match.")
    sources: list[Source] = Field(min_length=1)


class Family(DataModel):
    """Brands that share one learn-button scheme and one pairing procedure."""

    name: Text
    learn_button_brands: list[Slug] = Field(
        alias="learnButtonBrands", min_length=1, description="Brands (keys in `brands`) using the colour scheme."
    )
    learn_steps: list[Text] = Field(alias="learnSteps", min_length=1, description="Pairing a remote, step by step.")
    erase_steps: Text = Field(alias="eraseSteps", description="Erasing every paired remote and keypad.")
    model_label: Text = Field(alias="modelLabel", description="Where the model label is and what it tells you.")
    sources: list[Source] = Field(min_length=1)


class Brand(DataModel):
    """An opener brand: who makes it, how its radio works, what its model numbers look like."""

    slug: Slug
    name: Text
    aliases: list[Text] = Field(default_factory=list, description="Other names on labels, e.g. Sears.")
    maker: Text | None = None
    family: Slug | None = Field(default=None, description="Its family in `families`, when it has one.")
    radio: Text | None = None
    model_pattern: Text | None = Field(
        default=None, alias="modelPattern", description="What its model numbers look like."
    )
    identification: list[Text] = Field(default_factory=list, description="How to recognise its generation.")
    certainty: Certainty
    notes: list[Text] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)

    @model_validator(mode="after")
    def _sourced(self) -> Brand:
        if self.certainty is not Certainty.UNVERIFIED and not self.sources:
            raise ValueError(f"brand {self.slug}: a verified brand needs at least one source")
        return self


class DriveType(DataModel):
    """A drive type and how it looks in a photo."""

    slug: Slug
    name: Text
    cue: Text = Field(description="What to look for in a photo of the opener.")


def fold(text: str) -> str:
    """A brand name folded for matching: lower case, letters and digits only ("Wayne-Dalton" = "waynedalton")."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


class OpenerCatalog(DataModel):
    """The whole opener knowledge base."""

    photo_advice: list[Text] = Field(
        alias="photoAdvice", min_length=1, description="What to photograph when the learn button was not found."
    )
    families: dict[Slug, Family] = Field(min_length=1)
    learn_buttons: list[LearnButton] = Field(alias="learnButtons", min_length=1)
    brands: list[Brand] = Field(min_length=1)
    drive_types: list[DriveType] = Field(alias="driveTypes")

    @model_validator(mode="after")
    def _consistent(self) -> OpenerCatalog:
        slugs = [b.slug for b in self.learn_buttons] + [b.slug for b in self.brands]
        duplicates = sorted({s for s in slugs if slugs.count(s) > 1})
        if duplicates:
            raise ValueError(f"slugs must be unique across learn buttons and brands: {duplicates}")
        colours = [b.colour for b in self.learn_buttons]
        if len(colours) != len(set(colours)):
            raise ValueError("each learn-button colour (and the no-button era) may appear only once")
        brand_slugs = {b.slug for b in self.brands}
        for button in self.learn_buttons:
            if button.family not in self.families:
                raise ValueError(f"learn button {button.slug} names unknown family {button.family!r}")
        for key, family in self.families.items():
            unknown = sorted(set(family.learn_button_brands) - brand_slugs)
            if unknown:
                raise ValueError(f"family {key} names unknown brands: {unknown}")
        names: dict[str, str] = {}
        for brand in self.brands:
            if brand.family is not None and brand.family not in self.families:
                raise ValueError(f"brand {brand.slug} names unknown family {brand.family!r}")
            for name in (brand.name, *brand.aliases):
                if names.setdefault(fold(name), brand.slug) != brand.slug:
                    raise ValueError(f"brand name {name!r} belongs to both {names[fold(name)]} and {brand.slug}")
        return self

    def by_colour(self, colour: LearnButtonColour | None) -> LearnButton | None:
        """The entry for a learn-button colour (None: the no-button, DIP-switch era)."""
        return next((b for b in self.learn_buttons if b.colour == colour), None)

    def brand(self, slug: str) -> Brand | None:
        return next((b for b in self.brands if b.slug == slug), None)

    def brand_in(self, text: str) -> Brand | None:
        """The brand a label's text names, e.g. "LiftMaster Professional" → LiftMaster.

        When several brands appear ("Craftsman, made by Chamberlain"), the one named first wins: a
        label leads with its own brand and names the maker after it.
        """
        folded = fold(text)
        found: list[tuple[int, int, Brand]] = []
        for order, brand in enumerate(self.brands):
            positions = [folded.find(fold(name)) for name in (brand.name, *brand.aliases) if fold(name)]
            hits = [p for p in positions if p >= 0]
            if hits:
                found.append((min(hits), order, brand))
        return min(found, key=lambda hit: hit[:2])[2] if found else None
