"""Schemas of the domain data files in `knowledge/data/`.

Domain experts edit the JSON files; these models validate them when the service starts,
so a typo in a data file stops start-up with a message naming the file and field instead of
surfacing as a wrong answer later. `garage-tools knowledge schemas` writes the matching
JSON Schema files to `knowledge/schemas/` for editor validation.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, StringConstraints, model_validator

Key = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$")]
Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")]
Text = Annotated[str, StringConstraints(min_length=1, strip_whitespace=True)]


class DataModel(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class Urgency(StrEnum):
    EMERGENCY = "emergency"  # stop using the door and call a professional now
    SOON = "soon"  # book a repair within days
    ROUTINE = "routine"  # schedule it


class DiyRisk(StrEnum):
    SAFE = "safe"
    CAUTION = "caution"
    UNSAFE = "unsafe"


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Source(DataModel):
    title: Text
    url: HttpUrl


class UsdRange(DataModel):
    min: int = Field(ge=0)
    max: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> UsdRange:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) is greater than max ({self.max})")
        return self


# --- diagnostic tree -------------------------------------------------------------------


class Issue(DataModel):
    """A cause the tree can point to. Costs live in costs.json under the same key."""

    name: Text
    description: Text
    diy_risk: DiyRisk = Field(alias="diyRisk")
    urgency: Urgency
    safety_note: Text | None = Field(default=None, alias="safetyNote")
    sources: list[Source] = Field(min_length=1)


class Symptom(DataModel):
    key: Key
    label: Text
    urgency: Urgency
    priority: int = Field(
        default=0, description="Breaks ties between symptoms whose phrases match equally well; higher wins."
    )
    phrases: list[Text] = Field(
        min_length=1,
        description="Phrases that mean this symptom. Matching ignores case, punctuation and apostrophes.",
    )
    likely_issues: list[Key] = Field(alias="likelyIssues", min_length=1)


class Grammar(DataModel):
    """A language's small words the matcher reads sentences by (the defaults are English's)."""

    garage_words: list[Text] = Field(
        default=["garage"], alias="garageWords", description='Filler words naming the garage itself ("garage").'
    )
    comparison_words: list[Text] = Field(
        default=["like"], alias="comparisonWords", description='Words before a comparison ("like a gunshot").'
    )
    articles: list[Text] = Field(default=["a", "an", "the", "some"], description="Articles a comparison may take.")
    source_words: list[Text] = Field(
        default=["from"], alias="sourceWords", description='Words saying where a sound comes from ("from the fridge").'
    )
    place_words: list[Text] = Field(
        default=["in", "inside", "into"], alias="placeWords", description='Words saying where a thing is ("in").'
    )
    owner_words: list[Text] = Field(
        default=["of"],
        alias="ownerWords",
        description='Words after a door naming whose door it is ("the door of the shed", "la puerta de la cocina").',
    )
    describing_endings: list[Text] = Field(
        default=["ing", "y", "ed", "en"],
        alias="describingEndings",
        description='Endings of a word describing the thing right after it ("a leaking window").',
    )


class Vocabulary(DataModel):
    """The words one language's matcher reads: word forms, filler, subjects, door parts and enquiries."""

    canonical_words: dict[Key, list[Text]] = Field(
        alias="canonicalWords",
        description=(
            "Word forms folded into one canonical word before matching, e.g. wont: [won't, will not, "
            "doesn't]. Multi-word forms are allowed. Misspellings one edit away from a phrase word "
            "are handled by the matcher and need no entry."
        ),
    )
    filler_words: list[Text] = Field(
        alias="fillerWords",
        description=(
            'Words dropped before matching because they carry no symptom meaning ("my", "the", "door", '
            '"like" as in "sounds like a bang"). Multi-word fillers ("at all") are allowed.'
        ),
    )
    known_words: list[Text] = Field(
        default_factory=list,
        alias="knownWords",
        description=(
            "Everyday words one letter away from a word of the tree that are not misspellings of it, so the "
            'matcher leaves them alone: "steel" is no typo of "seal", nor "string" of "spring".'
        ),
    )
    other_subjects: list[Text] = Field(
        default_factory=list,
        alias="otherSubjects",
        description=(
            "Things that are not a garage door: appliances, windows, other doors, gates, cars (a freezer, the "
            "TV remote, the patio door). A description that names one of them before its symptom words, and not "
            'the garage door itself, is about that thing, so it is not diagnosed: "the freezer in the garage '
            'hums" is no opener humming. The parts such a thing has are its own ("the window seal", "the gate '
            'opener", "is the dryer\'s drum loose?"), and so is a door right after it ("the oven door"); '
            '"garage" right before one is where it is ("the garage fridge"). Bystanders differ: see `bystanders`. '
            'Words or multi-word forms ("tv remote", "car key").'
        ),
    )
    bystanders: list[Text] = Field(
        default_factory=list,
        description=(
            "Other subjects that stand by in a garage door's stories (the car, the dog): any of the `doorWords` "
            'named elsewhere brings the door back ("the car is stuck inside, the opener won\'t lift"), and right '
            "before one of the `carriedParts` a bystander only qualifies it (\"my truck's remote\" is the door's "
            "remote). Each must be in `otherSubjects`."
        ),
    )
    carried_parts: list[Text] = Field(
        default_factory=list,
        alias="carriedParts",
        description="The garage door's controls a car carries (its remote, a built-in button); see `bystanders`.",
    )
    door_words: list[Text] = Field(
        default_factory=list,
        alias="doorWords",
        description=(
            "Words of the garage door and its parts (door, opener, spring, remote ...), checked after word forms "
            "are folded, before filler words are dropped. See `otherSubjects` and `bystanders`."
        ),
    )
    enquiry_words: list[Text] = Field(
        default_factory=list,
        alias="enquiryWords",
        description=(
            "Words of a question about a topic rather than a report of a symptom: buying, price, looks, "
            'insurance, conversions, and question shapes ("quote", "how much", "paint", "how do I", "can I"). '
            "The offline fallback makes no guess for such a text: it shares words with examples without "
            "describing a symptom. Phrases of the tree still match. Words or multi-word forms."
        ),
    )

    door_context_words: list[Text] = Field(
        default_factory=list,
        alias="doorContextWords",
        description=(
            "Canonical words that tell a symptom only in a story about the door (rain, mice, light): a phrase "
            'made of one of them alone matches only when the garage door or one of its parts is named ("rain '
            'gets in under the door" is the seal; "will it rain tomorrow" is no symptom).'
        ),
    )
    fault_words: list[Text] = Field(
        default_factory=list,
        alias="faultWords",
        description=(
            "Canonical words that say something is wrong (won't, stuck, broke, bang, squeak ...). In an enquiry "
            '(`enquiryWords`) only a phrase with one of them is a symptom: "how do I program a new remote" names a '
            'part, "how much to fix a door that won\'t close" a symptom. Empty: every phrase counts.'
        ),
    )
    grammar: Grammar = Field(default_factory=Grammar)
    stemmer: Literal["english", "spanish"] | None = Field(
        default=None,
        description=(
            "The Snowball stemmer every word goes through before matching (the data's words too), so one form "
            "stands for its plural and most verb endings; none keeps words as they are (English's phrases "
            "were tuned that way)."
        ),
    )

    @model_validator(mode="after")
    def _words_consistent(self) -> Vocabulary:
        owner: dict[str, str] = {}
        for canonical, forms in self.canonical_words.items():
            for form in forms:
                folded = " ".join(form.lower().split())
                if owner.setdefault(folded, canonical) != canonical:
                    raise ValueError(f"word form {form!r} belongs to both {owner[folded]!r} and {canonical!r}")
        strays = [thing for thing in self.bystanders if thing not in self.other_subjects]
        if strays:
            raise ValueError(f"bystanders must be otherSubjects too: {strays}")
        return self


class DiagnosticTree(Vocabulary):
    """The symptoms, their causes and the English words for them (other languages: languages.py)."""

    issues: dict[Key, Issue]
    symptoms: list[Symptom]
    no_match_hint: Text = Field(alias="noMatchHint")
    urgency_notes: dict[Urgency, Text] = Field(
        default_factory=dict,
        alias="urgencyNotes",
        description="One sentence per urgency telling the homeowner what to do (diagnose's `urgencyNote`).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> DiagnosticTree:
        keys = [s.key for s in self.symptoms]
        if len(keys) != len(set(keys)):
            raise ValueError("symptom keys must be unique")
        for symptom in self.symptoms:
            unknown = [k for k in symptom.likely_issues if k not in self.issues]
            if unknown:
                raise ValueError(f"symptom {symptom.key} names unknown issues: {unknown}")
        return self


class SymptomExemplars(DataModel):
    """Example phrasings per symptom for diagnose's offline fallback (knowledge/semantic.py)."""

    exemplars: dict[Key, Annotated[list[Text], Field(min_length=3)]] = Field(
        description=(
            "Symptom key -> several ways homeowners describe it, in plain words and in different words from "
            "the tree's phrases. Used only when no phrase matches and the caller asked for the fallback: the "
            "description is compared with every example, and the nearest wins if it is close enough. Keep "
            "them generic (no typos: the matcher corrects those)."
        )
    )


# --- costs ------------------------------------------------------------------------------


class IssueCost(DataModel):
    covers: Text = Field(description="What the range pays for, in one sentence.")
    single: UsdRange = Field(description="Installed (parts and labor), single-car door (under 12 ft wide).")
    double: UsdRange = Field(description="Installed (parts and labor), double-car door (12 ft wide or more).")
    confidence: Confidence
    notes: list[Text] = Field(default_factory=list)
    sources: list[Source] = Field(min_length=1)


class CostCatalog(DataModel):
    currency: Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
    as_of: Text = Field(alias="asOf", description="When the figures were gathered, e.g. 2024-2026.")
    double_width_ft: float = Field(alias="doubleWidthFt", gt=0, description="Doors this wide or wider cost as double.")
    emergency_surcharge: UsdRange = Field(
        alias="emergencySurcharge", description="What an emergency or after-hours call adds, nationally."
    )
    issues: dict[Key, IssueCost]


# --- door styles ------------------------------------------------------------------------


class Budget(StrEnum):
    ECONOMY = "economy"
    MID_RANGE = "mid-range"
    PREMIUM = "premium"


class DoorType(StrEnum):
    STEEL = "steel"
    ALUMINUM = "aluminum"
    INSULATED = "insulated"
    GLASS = "glass"
    CUSTOM = "custom"


Rating = Annotated[int, Field(ge=1, le=5)]


class StyleRatings(DataModel):
    durability: Rating
    insulation: Rating
    curb_appeal: Rating = Field(alias="curbAppeal")
    low_maintenance: Rating = Field(alias="lowMaintenance", description="5 = least upkeep.")


class DoorPattern(StrEnum):
    """How the door's face is divided, for its drawing (scripts/draw_door_styles.py)."""

    RIBBED = "ribbed"
    SHORT_PANEL = "short-panel"
    LONG_PANEL = "long-panel"
    FLUSH = "flush"
    CARRIAGE = "carriage"
    V_GROOVE = "v-groove"
    MODERN_PANELS = "modern-panels"
    FULL_VIEW_CLEAR = "full-view-clear"
    FULL_VIEW_FROSTED = "full-view-frosted"
    PLANKS = "planks"


class DoorFinish(StrEnum):
    WHITE = "white"
    ALMOND = "almond"
    SANDSTONE = "sandstone"
    CHARCOAL = "charcoal"
    BLACK = "black"
    SILVER = "silver"
    OAK = "oak"
    WALNUT = "walnut"
    CEDAR = "cedar"


class DoorLook(DataModel):
    """What the style's drawing shows: the face's pattern and its colour."""

    pattern: DoorPattern
    finish: DoorFinish


class DoorStyle(DataModel):
    id: Slug
    look: DoorLook = Field(description="How the style's drawing (static/styles/<id>.webp) shows it.")
    name: Text
    type: DoorType
    budget: Budget
    description: Text
    price_range: UsdRange = Field(
        alias="priceRange", description="Installed price, from a single-car door (low) to a double-car door (high)."
    )
    r_value: float = Field(alias="rValue", ge=0, le=30)
    material: Text
    features: list[Text] = Field(min_length=2)
    ratings: StyleRatings


class DoorStyleCatalog(DataModel):
    price_basis: Text = Field(alias="priceBasis")
    sources: list[Source] = Field(min_length=1)
    styles: list[DoorStyle] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> DoorStyleCatalog:
        ids = [s.id for s in self.styles]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate style ids: {duplicates}")
        return self
