"""`identifyOpener`: a photo of a garage door opener to its brand family, radio generation and remotes.

The learn button's colour is the strongest cue a homeowner can photograph: on LiftMaster,
Chamberlain and Craftsman units it marks the radio generation, which decides the remotes that pair.
Offline, Pillow looks for a button-shaped patch of that colour (`colour.py` beside this module). With a vision
model configured, the model reads the colour and any brand or model text instead. Either way the opener knowledge base
(`knowledge/data/openers.json`) is the only source of generation, frequency, years and remotes, so a
model can never invent a remote; and the answer says which way it was made (`method`) and how sure
it is, in a number and a word.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from garage_tools.imaging.decode import DecodedImage
from garage_tools.imaging.fetch import PhotoInput, load_image
from garage_tools.imaging.for_models import PHOTO_TOOL_BODY_BYTES, for_model
from garage_tools.knowledge.openers import Brand, Certainty, LearnButton, LearnButtonColour, OpenerCatalog
from garage_tools.knowledge.schemas import Confidence
from garage_tools.models import OutputModel
from garage_tools.providers.base import VisionModel
from garage_tools.registry import Annotations, AuthPolicy, Tool, ToolContext
from garage_tools.tools.opener.colour import ColourReading, read_learn_button

OFFLINE_METHOD = "offline-colour"
#: Confidence levels: a number at or above these reads as `high` or `medium`, anything lower as `low`.
HIGH_FROM = 0.7
MEDIUM_FROM = 0.4
#: An entry the sources could not confirm is never reported above `low`.
UNVERIFIED_CEILING = 0.35
#: When the model and the offline check (itself at least `medium`) disagree on the colour.
DISAGREEMENT_FACTOR = 0.6
_MODEL_NUMBER = re.compile(r"^[0-9A-Za-z][0-9A-Za-z .\-/]{0,39}$")


class IdentifyOpenerInput(PhotoInput):
    pass  # the photo alone (a docstring here would become the schema's description)


class Remote(OutputModel):
    model: str = Field(description="The remote's model number, e.g. 893MAX.")
    series: str | None = Field(default=None, description="Its series, e.g. 89xLM.")
    universal: bool = Field(description="A universal remote that also covers other generations.")
    certainty: Certainty = Field(description="How well the sources back this pairing (`unverified`: doubtful).")


class Years(OutputModel):
    first: int | None = Field(default=None, description="First year sold.")
    last: int | None = Field(default=None, description="The latest end year the sources give; absent while sold.")
    text: str = Field(description='For people, doubts included, e.g. "2005 to early 2010s".')


class DriveType(OutputModel):
    slug: str
    name: str
    cue: str = Field(description="What in the photo shows it.")


class Alternative(OutputModel):
    """Another button colour the photo also shows."""

    learn_button_color: LearnButtonColour
    slug: str
    generation: str
    share: float = Field(description="Share of the photo this colour's largest patch covers, 0-1.")


class IdentifyOpenerOutput(OutputModel):
    identified: bool = Field(description="Whether a learn-button generation or a brand was recognised.")
    brand: str | None = Field(
        default=None,
        description=(
            "The brand when the label shows it; from the button colour alone, the family's brands "
            '(e.g. "LiftMaster / Chamberlain / Craftsman"), which share the colour scheme.'
        ),
    )
    family_brands: list[str] = Field(description="Every brand the identification fits.")
    maker: str | None = None
    model: str | None = Field(
        default=None, description="The model number as read from the label; absent when no label was read."
    )
    slug: str | None = Field(default=None, description="The matched knowledge-base entry (generation, or brand).")
    learn_button_color: LearnButtonColour | None = Field(
        default=None, description="`yellow`, `purple`, `red-orange`, `green` or `white`; absent when none was seen."
    )
    generation: str | None = Field(default=None, description='The radio generation, e.g. "Security+ 2.0".')
    technology: str | None = None
    frequencies_mhz: list[int] = Field(description="Radio frequencies in MHz; empty when not known.")
    frequency_text: str | None = Field(default=None, description='For people, e.g. "310 / 315 / 390 MHz (tri-band)".')
    years: Years | None = None
    compatible_remotes: list[Remote] = Field(description="Remotes that pair with this generation.")
    drive_type: DriveType | None = Field(default=None, description="Chain, belt, screw...: only a model reports it.")
    confidence: float = Field(ge=0, le=1, description="How sure the identification is, 0-1 (0: nothing found).")
    confidence_level: Confidence = Field(description="`high` (0.7 or more), `medium` (0.4 or more) or `low`.")
    method: str = Field(description=f"`{OFFLINE_METHOD}` (Pillow colour check) or the vision model's name.")
    alternatives: list[Alternative] = Field(description="Other button colours the photo shows; each lowers confidence.")
    notes: list[str] = Field(description="Doubts and context from the sources; read them to the user.")
    next_steps: list[str] = Field(
        description="What to do now: pair a remote, confirm on the label, or retake the photo."
    )


# --- what a vision model is asked ------------------------------------------------------


class SeenColour(StrEnum):
    YELLOW = "yellow"
    PURPLE = "purple"
    RED_ORANGE = "red-orange"
    GREEN = "green"
    WHITE = "white"
    NONE = "none"  # no learn button in the photo
    UNKNOWN = "unknown"  # a button, but its colour cannot be told


class OpenerSighting(BaseModel):
    """The reply a vision model must give: what it sees, nothing it would have to know."""

    model_config = ConfigDict(alias_generator=to_camel, validate_by_alias=True, validate_by_name=True, extra="ignore")

    learn_button_color: SeenColour = Field(description="The learn button's colour, `none` or `unknown`.")
    dip_switches_visible: bool = Field(default=False, description="A row of DIP switches instead of a learn button.")
    brand_text: str | None = Field(default=None, description="The brand name printed on the unit, as written.")
    model_text: str | None = Field(default=None, description="The model number on the label, as written.")
    drive_type: str | None = Field(default=None, description="The drive type slug, when the photo shows it.")
    confidence: float = Field(ge=0, le=1, description="How sure you are of what you report, 0-1.")

    @field_validator("learn_button_color", mode="before")
    @classmethod
    def _fold_colour(cls, value: object) -> object:
        # Models write "Red", "orange" or "red/orange" for the one red-orange generation.
        if isinstance(value, str):
            value = value.strip().lower()
            if value in ("red", "orange", "red/orange", "red orange", "red_orange"):
                return SeenColour.RED_ORANGE.value
        return value


SYSTEM = (
    "You look at a homeowner's photo of a garage door opener and report only what is visible. Reply with a "
    "single JSON object matching the schema, nothing else. Never guess a brand or model number you cannot read."
)


def _prompt(catalog: OpenerCatalog) -> str:
    drives = "; ".join(f"{d.slug}: {d.cue}" for d in catalog.drive_types)
    brands = ", ".join(b.name for b in catalog.brands)
    return (
        "Find the learn (program) button on the motor unit: usually on the back or side panel, often behind "
        "the light lens near the antenna wire. Report its colour as one of yellow, purple, red-orange (red or "
        "orange), green, white; `none` when no learn button is visible, `unknown` when one is but its colour "
        "cannot be told. Set dipSwitchesVisible when a row of small DIP switches is visible instead. Copy any "
        f"brand name printed on the unit into brandText (known brands: {brands}) and the model number from the "
        "label into modelText, exactly as written; leave them null when not legible. Set driveType to one of "
        f"these slugs only when the photo shows the drive ({drives}). Confidence is how sure you are of what "
        "you report, above all the learn-button colour."
    )


# --- the answer ------------------------------------------------------------------------


def confidence_level(value: float) -> Confidence:
    if value >= HIGH_FROM:
        return Confidence.HIGH
    return Confidence.MEDIUM if value >= MEDIUM_FROM else Confidence.LOW


def _family_brands(catalog: OpenerCatalog, entry: LearnButton) -> list[Brand]:
    family = catalog.families[entry.family]
    return [brand for slug in family.learn_button_brands if (brand := catalog.brand(slug)) is not None]


def _remote_steps(catalog: OpenerCatalog, entry: LearnButton) -> list[str]:
    """Pairing advice for a generation: the family's learn steps and the universal remote's setting."""
    family = catalog.families[entry.family]
    steps = list(family.learn_steps) if entry.colour is not None else []
    if entry.universal_remote_presses is not None:
        times = "once" if entry.universal_remote_presses == 1 else f"{entry.universal_remote_presses} times"
        steps.append(
            f"On an 893MAX universal remote: press its program button, then the button you want to use {times} "
            f"({entry.colour_label})."
        )
    steps.append(family.model_label)
    return steps


def _model_patterns(brands: list[Brand]) -> str | None:
    patterns = [f"{b.name}: {b.model_pattern}." for b in brands if b.model_pattern]
    return " ".join(["The model number on the label tells the brand and model.", *patterns]) if patterns else None


def describe(
    catalog: OpenerCatalog,
    *,
    entry: LearnButton | None,
    brand: Brand | None,
    confidence: float,
    method: str,
    model: str | None = None,
    drive: DriveType | None = None,
    alternatives: list[Alternative] | None = None,
    notes: list[str] | None = None,
    retake: list[str] | None = None,
) -> IdentifyOpenerOutput:
    """The answer for a matched generation and/or brand; the knowledge base supplies every fact.

    `retake` says what was wrong with this photo; it leads the next steps, before the general photo advice.
    """
    notes = list(notes or [])
    steps: list[str] = []
    fits: list[Brand] = [brand] if brand is not None else []
    if entry is not None:
        if brand is None:
            fits = _family_brands(catalog, entry)
        notes.extend(entry.notes)
        if entry.certainty is Certainty.UNVERIFIED:
            confidence = min(confidence, UNVERIFIED_CEILING)
        steps.extend(_remote_steps(catalog, entry))
        if any(remote.certainty is Certainty.UNVERIFIED for remote in entry.compatible_remotes):
            notes.append("Remotes marked `unverified` come from a doubtful list: prefer the others.")
    if brand is not None:
        notes.extend(brand.notes)
        steps.extend(brand.identification if entry is None else [])
    if model is None and (patterns := _model_patterns(fits)):
        steps.append(patterns)
    identified = entry is not None or brand is not None
    if not identified:
        confidence = 0.0
    level = confidence_level(confidence)
    if level is Confidence.LOW or entry is None:  # a better photo of the button is the way to a generation
        steps = [*catalog.photo_advice, *steps]
    steps = [*(retake or []), *steps]
    family_brand = " / ".join(b.name for b in fits) or None
    return IdentifyOpenerOutput(
        identified=identified,
        brand=brand.name if brand is not None else family_brand,
        family_brands=[b.name for b in fits],
        maker=brand.maker if brand is not None else (catalog.families[entry.family].name if entry else None),
        model=model,
        slug=entry.slug if entry is not None else (brand.slug if brand is not None else None),
        learn_button_color=entry.colour if entry is not None else None,
        generation=entry.generation if entry is not None else None,
        technology=entry.technology if entry is not None else None,
        frequencies_mhz=list(entry.frequencies_mhz) if entry is not None else [],
        frequency_text=entry.frequency_text if entry is not None else None,
        years=Years(**entry.years.model_dump()) if entry is not None else None,
        compatible_remotes=[Remote(**r.model_dump()) for r in entry.compatible_remotes] if entry else [],
        drive_type=drive,
        confidence=round(confidence, 2),
        confidence_level=level,
        method=method,
        alternatives=alternatives or [],
        notes=notes,
        next_steps=steps,
    )


def identify_offline(catalog: OpenerCatalog, reading: ColourReading) -> IdentifyOpenerOutput:
    """The answer from the Pillow colour check alone, with every doubt the check had spelt out."""
    set_aside = _set_aside_note(reading)
    entry = catalog.by_colour(reading.colour) if reading.colour is not None else None
    if entry is None:
        return describe(
            catalog,
            entry=None,
            brand=None,
            confidence=0.0,
            method=OFFLINE_METHOD,
            notes=[
                "No learn-button colour (yellow, purple, red/orange or green) was found in the photo.",
                *([set_aside] if set_aside else []),
            ],
        )
    alternatives: list[Alternative] = []
    for patch in reading.patches[1:]:
        other = catalog.by_colour(patch.colour)
        if other is not None:
            alternatives.append(
                Alternative(
                    learn_button_color=patch.colour,
                    slug=other.slug,
                    generation=other.generation,
                    share=round(patch.share, 3),
                )
            )
    notes = ["Identified from the learn button's colour alone: it tells the radio generation, not the model."]
    retake: list[str] = []
    if reading.colour_only:
        notes.append(
            f"The {entry.colour_label} patch is not set in a grey, white or beige housing, so only its colour "
            "says it is a learn button: a sticker, a toy or paint would look the same."
        )
        retake.append("Retake the photo with the button and some of the motor unit's housing around it in view.")
    if alternatives:
        others = _colour_names(a.learn_button_color for a in alternatives)
        notes.append(f"The photo also shows {others} patches shaped like a button, so the match is less certain.")
        retake.append(f"Photograph only the learn button, close up, so that no {others} patch is in the frame.")
    if set_aside:
        notes.append(set_aside)
    return describe(
        catalog,
        entry=entry,
        brand=None,
        confidence=reading.confidence,
        method=OFFLINE_METHOD,
        alternatives=alternatives,
        notes=notes,
        retake=retake,
    )


def _set_aside_note(reading: ColourReading) -> str | None:
    """Why vivid areas the user can see in the photo were not read as the button, if there were any."""
    if not reading.set_aside:
        return None
    colours = _colour_names(patch.colour for patch in reading.set_aside)
    return (
        f"Large or oddly shaped {colours} areas (a wall, a label, wood, a wire) were not taken for a learn button: "
        "a button is a small, solid square or round patch."
    )


def _colour_names(colours: Iterable[LearnButtonColour]) -> str:
    names = list(dict.fromkeys(colour.value for colour in colours))
    return " and ".join(filter(None, [", ".join(names[:-1]), names[-1]]))


def _clean(text: str | None) -> str | None:
    """Text a model read, or None when it is blank; whitespace folded."""
    folded = " ".join((text or "").split())
    return folded or None


def identify_from_sighting(
    catalog: OpenerCatalog, sighting: OpenerSighting, method: str, offline: ColourReading
) -> IdentifyOpenerOutput:
    """The answer from a vision model's sighting, checked against the knowledge base and the offline check."""
    notes: list[str] = []
    brand_text = _clean(sighting.brand_text)
    brand = catalog.brand_in(brand_text) if brand_text else None
    if brand_text and brand is None:
        notes.append(f"The label reads {brand_text!r}, a brand this service has no facts about.")
    model = _clean(sighting.model_text)
    if model is not None and not _MODEL_NUMBER.fullmatch(model):
        notes.append("The model text read from the label did not look like a model number, so it is left out.")
        model = None

    colour = (
        None if sighting.learn_button_color in (SeenColour.NONE, SeenColour.UNKNOWN) else sighting.learn_button_color
    )
    entry: LearnButton | None = None
    if colour is not None:
        entry = catalog.by_colour(LearnButtonColour(colour.value))
    elif sighting.dip_switches_visible:
        entry = catalog.by_colour(None)
    if entry is not None and brand is not None and brand.slug not in catalog.families[entry.family].learn_button_brands:
        notes.append(f"{brand.name} does not mark its radio generation by learn-button colour.")
        entry = None

    confidence = sighting.confidence
    if (
        colour is not None
        and offline.colour is not None
        and offline.colour.value != colour.value
        and confidence_level(offline.confidence) is not Confidence.LOW
    ):
        confidence *= DISAGREEMENT_FACTOR
        notes.append(f"The offline colour check saw {offline.colour.value} instead: check the button in good light.")
    drive = next((d for d in catalog.drive_types if d.slug == sighting.drive_type), None)
    return describe(
        catalog,
        entry=entry,
        brand=brand,
        confidence=confidence,
        method=method,
        model=model,
        drive=DriveType(slug=drive.slug, name=drive.name, cue=drive.cue) if drive is not None else None,
        notes=notes,
    )


async def identify(catalog: OpenerCatalog, photo: DecodedImage, vision: VisionModel | None) -> IdentifyOpenerOutput:
    """Identify the opener in a decoded photo, through the vision model when there is one."""
    offline = await asyncio.to_thread(read_learn_button, photo.image)  # CPU-bound: off the event loop
    if vision is None:
        return identify_offline(catalog, offline)
    image, mime_type = await asyncio.to_thread(for_model, photo)  # the size vision APIs take, as visualDiagnose
    sighting = await vision.analyse_json(
        system=SYSTEM, prompt=_prompt(catalog), image=image, mime_type=mime_type, schema=OpenerSighting
    )
    return identify_from_sighting(catalog, sighting, vision.name, offline)


async def identify_opener(args: IdentifyOpenerInput, ctx: ToolContext) -> IdentifyOpenerOutput:
    photo = await load_image(args.image, args.image_url)
    vision = ctx.data.models.vision
    return await identify(ctx.knowledge.openers, photo, vision)


TOOL = Tool(
    name="identifyOpener",
    icon="opener",
    title="Identify a garage door opener from a photo",
    summary="Brand family, radio generation, frequency, years and compatible remotes from a photo of the opener.",
    description=(
        "Send a photo of the opener's learn button (on the back or side of the motor unit, often behind the "
        "light lens) as `image` {data, mimeType} (preferred) or an HTTPS `imageUrl`. On LiftMaster, Chamberlain "
        "and Craftsman openers the button colour marks the radio generation: yellow = Security+ 2.0, purple and "
        "red/orange = Security+, green = Billion Code. Returns the brand (family), model when a label is "
        "legible, the generation, frequencies, years and the remotes that pair, with `confidence` (0-1 and "
        "low/medium/high) and `method` (offline colour check or a vision model). Low confidence comes with "
        "what to photograph instead."
    ),
    input_model=IdentifyOpenerInput,
    output_model=IdentifyOpenerOutput,
    handler=identify_opener,
    auth=AuthPolicy.BEARER,
    annotations=Annotations(open_world=True),
    max_body_bytes=PHOTO_TOOL_BODY_BYTES,
)
