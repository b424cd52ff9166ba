"""Diagnosis in more languages than English: each one's words, its homeowner texts, and which one a text is in.

English lives in diagnostic_tree.json, symptom_exemplars.json and costs.json. Each other language has two
files beside them: `diagnostic_words.<lang>.json` (how people say it: word forms folded onto the tree's
canonical words, filler, other things, phrases and example phrasings per symptom, its Snowball stemmer) and
`texts.<lang>.json` (what the homeowner reads back: symptom labels, causes, safety notes, urgency, the hint,
what a price covers, door styles, the inspection's items and grades). Keys and codes stay English.
`localised_tree` builds the language's own `DiagnosticTree` from the English one, so the same matchers and
the same answer builder serve it, and `localised_checklist` its `InspectionChecklist`; a missing text stops
start-up (`missing_texts`, `missing_style_texts`, `missing_checklist_texts`).

The language of a description is read from the text itself (`guess`): words only one language uses are
counted; a hint (an explicit `lang`, then the caller's Accept-Language) settles a tie, and English is the
default. Mixed "Spanglish" ("el remote no jala") reads as Spanish: its small words are Spanish.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated

from pydantic import Field

from garage_tools.knowledge.checklist import InspectionChecklist
from garage_tools.knowledge.schemas import (
    DataModel,
    DiagnosticTree,
    DoorStyle,
    Key,
    SymptomExemplars,
    Text,
    Urgency,
    Vocabulary,
)
from garage_tools.knowledge.spelling import words
from garage_tools.languages import DEFAULT

ENGLISH = DEFAULT  # the tree's own language
#: How many recent texts the guesser remembers the counted words of (cleared when full, as the matcher's cache).
RECENT_TEXTS = 4096


class LanguageWords(Vocabulary):
    """`diagnostic_words.<lang>.json`: one language's words for the tree's symptoms."""

    lang: Annotated[str, Field(pattern=r"^[a-z]{2}$")]
    phrases: dict[Key, list[Text]] = Field(
        description="Symptom key -> phrases that mean it in this language (see the tree's `phrases`)."
    )
    exemplars: dict[Key, Annotated[list[Text], Field(min_length=3)]] = Field(
        description="Symptom key -> example phrasings for the offline fallback (see symptom_exemplars.json)."
    )


class IssueTexts(DataModel):
    name: Text
    description: Text
    safety_note: Text | None = Field(default=None, alias="safetyNote")


class StyleTexts(DataModel):
    """One door style's words (door_styles.json's), in one language; the same number of features."""

    name: Text
    description: Text
    material: Text
    features: list[Text]


class DoorStyleTexts(DataModel):
    price_basis: Text = Field(alias="priceBasis")
    styles: dict[str, StyleTexts] = Field(description="Style id -> its words.")


class ItemTexts(DataModel):
    """One inspection item's words (inspection_items.json's), in one language."""

    label: Text
    area: Text
    look_for: Text = Field(alias="lookFor")
    watch_advice: Text = Field(alias="watchAdvice")
    fix_advice: Text = Field(alias="fixAdvice")


class InspectionTexts(DataModel):
    grades: dict[str, Text] = Field(description="Grade (A-F) -> its label.")
    items: dict[str, ItemTexts] = Field(description="Inspection item id -> its words.")


class LanguageTexts(DataModel):
    """`texts.<lang>.json`: what a homeowner reads back, in one language (every English text has one)."""

    lang: Annotated[str, Field(pattern=r"^[a-z]{2}$")]
    no_match_hint: Text = Field(alias="noMatchHint")
    urgency_notes: dict[Urgency, Text] = Field(alias="urgencyNotes")
    symptoms: dict[Key, Text] = Field(description="Symptom key -> its label.")
    issues: dict[Key, IssueTexts]
    costs: dict[Key, Text] = Field(description="Issue key -> what its price covers (costs.json's `covers`).")
    door_styles: DoorStyleTexts = Field(alias="doorStyles", description="getDoorStyles' words (door_styles.json).")
    inspection: InspectionTexts = Field(description="The inspection's words (inspection_items.json).")


def missing_texts(
    tree: DiagnosticTree, covered: Iterable[str], words_: LanguageWords, texts: LanguageTexts
) -> list[str]:
    """What the language lacks that English has (empty when complete); `covered` are the priced issue keys."""
    lang = texts.lang
    missing = [f"{lang}: label of symptom {s.key}" for s in tree.symptoms if s.key not in texts.symptoms]
    missing += [f"{lang}: phrases of symptom {s.key}" for s in tree.symptoms if not words_.phrases.get(s.key)]
    missing += [f"{lang}: examples of symptom {s.key}" for s in tree.symptoms if s.key not in words_.exemplars]
    missing += [f"{lang}: urgency note {u.value}" for u in Urgency if u not in texts.urgency_notes]
    for key, issue in tree.issues.items():
        found = texts.issues.get(key)
        if found is None:
            missing.append(f"{lang}: name and description of issue {key}")
        elif (issue.safety_note is None) != (found.safety_note is None):
            missing.append(f"{lang}: safety note of issue {key} (present in one language only)")
    missing += [f"{lang}: what the price of {key} covers" for key in covered if key not in texts.costs]
    return missing


def missing_style_texts(styles: Iterable[DoorStyle], texts: LanguageTexts) -> list[str]:
    """The door styles the language has no words for, or whose features it counts differently."""
    lang, found = texts.lang, texts.door_styles.styles
    missing = [f"{lang}: words of door style {s.id}" for s in styles if s.id not in found]
    missing += [
        f"{lang}: features of door style {s.id} ({len(found[s.id].features)}, English has {len(s.features)})"
        for s in styles
        if s.id in found and len(found[s.id].features) != len(s.features)
    ]
    return missing


def missing_checklist_texts(checklist: InspectionChecklist, texts: LanguageTexts) -> list[str]:
    """The inspection items and grades the language has no words for, and areas it would group differently
    (the form and the report group items by area, so one English area must have one name)."""
    lang, found = texts.lang, texts.inspection
    missing = [f"{lang}: words of inspection item {i.id}" for i in checklist.items if i.id not in found.items]
    missing += [f"{lang}: label of grade {b.grade}" for b in checklist.scoring.grades if b.grade not in found.grades]
    areas: dict[str, set[str]] = {}
    for item in checklist.items:
        if item.id in found.items:
            areas.setdefault(item.area, set()).add(found.items[item.id].area)
    missing += [
        f"{lang}: one name for the area {area!r} (has {sorted(names)})"
        for area, names in areas.items()
        if len(names) > 1
    ]
    return missing


def localised_checklist(checklist: InspectionChecklist, texts: LanguageTexts) -> InspectionChecklist:
    """The English `checklist` with this language's words (ids, weights, flags and scoring kept)."""
    words = texts.inspection
    items = [item.model_copy(update=words.items[item.id].model_dump()) for item in checklist.items]
    grades = [band.model_copy(update={"label": words.grades[band.grade]}) for band in checklist.scoring.grades]
    scoring = checklist.scoring.model_copy(update={"grades": grades})
    return checklist.model_copy(update={"items": items, "scoring": scoring})


def localised_tree(tree: DiagnosticTree, words_: LanguageWords, texts: LanguageTexts) -> DiagnosticTree:
    """The English `tree` with this language's words, phrases and texts (keys, urgency and sources kept)."""
    issues = {
        key: issue.model_copy(
            update={
                "name": texts.issues[key].name,
                "description": texts.issues[key].description,
                "safety_note": texts.issues[key].safety_note,
            }
        )
        for key, issue in tree.issues.items()
    }
    symptoms = [
        symptom.model_copy(update={"label": texts.symptoms[symptom.key], "phrases": words_.phrases[symptom.key]})
        for symptom in tree.symptoms
    ]
    vocabulary = {name: getattr(words_, name) for name in Vocabulary.model_fields}
    return tree.model_copy(
        update={
            **vocabulary,
            "issues": issues,
            "symptoms": symptoms,
            "no_match_hint": texts.no_match_hint,
            "urgency_notes": texts.urgency_notes,
        }
    )


def exemplars_of(words_: LanguageWords) -> SymptomExemplars:
    return SymptomExemplars(exemplars=words_.exemplars)


def signature(vocabulary: Vocabulary, phrases: Iterable[str]) -> frozenset[str]:
    """The words (folded, unstemmed) a language's data uses: what `guess` counts a text's words against."""
    texts = [*vocabulary.filler_words, *vocabulary.enquiry_words, *vocabulary.other_subjects, *phrases]
    texts += [form for forms in vocabulary.canonical_words.values() for form in forms]
    return frozenset(word for text in texts for word in words(text))


class LanguageGuesser:
    """Which of a few languages a text is in, by the words only one of them uses."""

    def __init__(self, signatures: dict[str, frozenset[str]]) -> None:
        self._own = {
            lang: signature - frozenset().union(*(other for code, other in signatures.items() if code != lang))
            for lang, signature in signatures.items()
        }
        #: Each word only one language uses -> that language (the sets above are disjoint): one look-up a word.
        self._owner = {word: lang for lang, own in self._own.items() for word in own}
        #: Recent texts -> their count of each language's own words. Texts repeat (the widget's symptom chips,
        #: a retried call): reading one again took 1.2 µs of a 2.4 µs understanding.
        self._recent: dict[str, dict[str, int]] = {}

    @property
    def languages(self) -> Sequence[str]:
        return tuple(self._own)

    def guess(self, text: str, hints: Sequence[str] = ()) -> str:
        """The language `text` is in: the most words of its own, a hint on a tie, else English."""
        return self.ranked(text, hints)[0]

    def ranked(self, text: str, hints: Sequence[str] = ()) -> list[str]:
        """`guess` first, then any other language some of the text's words are in, the most words first."""
        found = self._recent.get(text)
        if found is None:
            found = self._counted(text)
        if len(found) == 1:  # most texts: one language's own words, and it outranks every other
            return list(found)
        if not found:  # no language's own words: the first hint that is one of them, else English
            return [next((lang for lang in hints if lang in self._own), ENGLISH)]
        scores = dict.fromkeys(self._own, 0) | found

        def order(lang: str) -> tuple[int, int, int]:
            hinted = hints.index(lang) if lang in hints else len(hints)
            return (-scores[lang], hinted, lang != ENGLISH)

        ranked = sorted(scores, key=order)
        return [ranked[0], *(lang for lang in ranked[1:] if scores[lang] > 0)]

    def _counted(self, text: str) -> dict[str, int]:
        """How many of `text`'s words each language owns (only languages with some), kept for `ranked`."""
        found: dict[str, int] = {}
        owner = self._owner
        for word in words(text):
            lang = owner.get(word)
            if lang is not None:
                found[lang] = found.get(lang, 0) + 1
        if len(self._recent) >= RECENT_TEXTS:
            self._recent.clear()  # bounded: the texts people send vary without end
        self._recent[text] = found
        return found
