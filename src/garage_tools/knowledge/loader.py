"""Load and cross-check the domain data files once, at start-up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from garage_tools.knowledge.checklist import InspectionChecklist
from garage_tools.knowledge.data_files import DATA_DIR, KnowledgeError, read_data_file
from garage_tools.knowledge.lab_index import SynonymList
from garage_tools.knowledge.labs import LabLibrary, load_labs
from garage_tools.knowledge.languages import (
    ENGLISH,
    DoorStyleTexts,
    LanguageGuesser,
    LanguageTexts,
    LanguageWords,
    exemplars_of,
    localised_checklist,
    localised_tree,
    missing_checklist_texts,
    missing_style_texts,
    missing_texts,
    signature,
)
from garage_tools.knowledge.matcher import SymptomMatcher
from garage_tools.knowledge.openers import OpenerCatalog
from garage_tools.knowledge.prompts import PromptCatalog
from garage_tools.knowledge.regional_prices import RegionalPrices
from garage_tools.knowledge.schemas import (
    CostCatalog,
    DiagnosticTree,
    DoorStyleCatalog,
    SymptomExemplars,
)
from garage_tools.knowledge.semantic import SemanticMatcher
from garage_tools.knowledge.stemmer import stemmer

#: Each data file and the schema it must satisfy.
DATA_FILES: dict[str, type[BaseModel]] = {
    "diagnostic_tree.json": DiagnosticTree,
    "costs.json": CostCatalog,
    "regional_prices.json": RegionalPrices,
    "door_styles.json": DoorStyleCatalog,
    "inspection_items.json": InspectionChecklist,
    "symptom_exemplars.json": SymptomExemplars,
    "openers.json": OpenerCatalog,
    "lab_synonyms.json": SynonymList,
    "prompts.json": PromptCatalog,
}

#: Each other language's files and their schemas: `diagnostic_words.json` stands for every
#: `diagnostic_words.<lang>.json` beside the English files, `texts.json` for every `texts.<lang>.json`.
LANGUAGE_FILES: dict[str, type[BaseModel]] = {"diagnostic_words.json": LanguageWords, "texts.json": LanguageTexts}

DerivedT = TypeVar("DerivedT")


@dataclass(frozen=True)
class Language:
    """diagnose, costEstimate, getDoorStyles and submitInspection in one language: its tree (labels, causes and
    phrases), matchers, texts and inspection checklist."""

    code: str
    tree: DiagnosticTree
    matcher: SymptomMatcher
    semantic_matcher: SemanticMatcher
    covers: dict[str, str]  # issue key -> what its price covers
    checklist: InspectionChecklist  # the inspection's items and grade labels in this language (English: the file's)
    door_styles: DoorStyleTexts | None = None  # getDoorStyles' words; None: the catalog's own (English)


@dataclass(frozen=True)
class Knowledge:
    """Everything the tools know, validated and indexed."""

    tree: DiagnosticTree
    costs: CostCatalog
    regional_prices: RegionalPrices  # a local factor for every ZIP code (costEstimate)
    door_styles: DoorStyleCatalog
    checklist: InspectionChecklist
    exemplars: SymptomExemplars
    openers: OpenerCatalog
    labs: LabLibrary
    lab_synonyms: SynonymList  # homeowners' words for the labs' vocabulary (retrieveLabContext)
    prompts: PromptCatalog  # the MCP prompts and the door sizes completions offer
    #: Languages other than English: language code -> (its words, its texts).
    translations: dict[str, tuple[LanguageWords, LanguageTexts]] = field(default_factory=dict)

    @cached_property
    def matcher(self) -> SymptomMatcher:
        return SymptomMatcher(self.tree)

    @cached_property
    def semantic_matcher(self) -> SemanticMatcher:
        """diagnose's offline fallback: nearest example phrasing, for text no phrase matches."""
        return SemanticMatcher(self.tree, self.exemplars, self.matcher)

    @cached_property
    def languages(self) -> dict[str, Language]:
        """Every language diagnose speaks, English first."""
        found = {
            ENGLISH: Language(
                ENGLISH,
                self.tree,
                self.matcher,
                self.semantic_matcher,
                {key: cost.covers for key, cost in self.costs.issues.items()},
                self.checklist,
            )
        }
        for code, (words, texts) in self.translations.items():
            tree = localised_tree(self.tree, words, texts)
            matcher = SymptomMatcher(tree, stemmer(words.stemmer))
            semantic = SemanticMatcher(tree, exemplars_of(words), matcher)
            checklist = localised_checklist(self.checklist, texts)
            found[code] = Language(code, tree, matcher, semantic, texts.costs, checklist, texts.door_styles)
        return found

    def language(self, code: str | None) -> Language:
        """The language called `code`, English when it is None or not spoken."""
        languages = self.languages
        return languages.get(code or ENGLISH) or languages[ENGLISH]

    @cached_property
    def guesser(self) -> LanguageGuesser:
        """Tells which language a description is in (see languages.py)."""
        signatures = {ENGLISH: signature(self.tree, [p for s in self.tree.symptoms for p in s.phrases])}
        for code, (words, _) in self.translations.items():
            signatures[code] = signature(words, [p for phrases in words.phrases.values() for p in phrases])
        return LanguageGuesser(signatures)

    _derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def derived(self, name: str, build: Callable[[], DerivedT]) -> DerivedT:
        """An index a tool builds from this knowledge once and reuses (built on first use)."""
        try:
            value: DerivedT = self._derived[name]
        except KeyError:
            value = self._derived[name] = build()
        return value


@lru_cache(maxsize=1)
def packaged_tree() -> DiagnosticTree:
    """The packaged diagnostic tree, read on first use (input schemas and validators need its keys)."""
    return read_data_file(DATA_DIR / "diagnostic_tree.json", DiagnosticTree)


def packaged_issue_keys() -> tuple[str, ...]:
    """Issue keys of the packaged diagnostic tree, for publishing as a schema enum."""
    return tuple(packaged_tree().issues)


@lru_cache(maxsize=1)
def packaged_checklist() -> InspectionChecklist:
    """The packaged inspection checklist, read on first use (the input schema lists its item ids)."""
    return read_data_file(DATA_DIR / "inspection_items.json", InspectionChecklist)


def load_knowledge(directory: Path = DATA_DIR) -> Knowledge:
    """Read every data file, validate it against its schema and check the files agree."""
    knowledge = Knowledge(
        tree=read_data_file(directory / "diagnostic_tree.json", DiagnosticTree),
        costs=read_data_file(directory / "costs.json", CostCatalog),
        regional_prices=read_data_file(directory / "regional_prices.json", RegionalPrices),
        door_styles=read_data_file(directory / "door_styles.json", DoorStyleCatalog),
        checklist=read_data_file(directory / "inspection_items.json", InspectionChecklist),
        exemplars=read_data_file(directory / "symptom_exemplars.json", SymptomExemplars),
        openers=read_data_file(directory / "openers.json", OpenerCatalog),
        labs=load_labs(directory / "labs"),
        lab_synonyms=read_data_file(directory / "lab_synonyms.json", SynonymList),
        prompts=read_data_file(directory / "prompts.json", PromptCatalog),
        translations=read_translations(directory),
    )
    missing = sorted(set(knowledge.tree.issues) - set(knowledge.costs.issues))
    extra = sorted(set(knowledge.costs.issues) - set(knowledge.tree.issues))
    if missing or extra:
        raise KnowledgeError(
            f"costs.json and diagnostic_tree.json disagree: issues without costs {missing}, "
            f"costs for unknown issues {extra}"
        )
    try:
        _ = knowledge.matcher  # builds the phrase index; rejects phrases made only of filler words
    except ValueError as exc:
        raise KnowledgeError(f"diagnostic_tree.json: {exc}") from exc
    unknown = sorted({i.issue_key for i in knowledge.checklist.items if i.issue_key} - set(knowledge.tree.issues))
    if unknown:
        raise KnowledgeError(f"inspection_items.json names issue keys diagnostic_tree.json lacks: {unknown}")
    symptoms, examples = {s.key for s in knowledge.tree.symptoms}, set(knowledge.exemplars.exemplars)
    if symptoms != examples:
        raise KnowledgeError(
            f"symptom_exemplars.json must give examples for exactly the tree's symptoms: "
            f"missing {sorted(symptoms - examples)}, unknown {sorted(examples - symptoms)}"
        )
    _ = knowledge.semantic_matcher
    unknown_labs = sorted({p.lab for p in knowledge.prompts.prompts if p.lab} - set(knowledge.labs.slugs))
    if unknown_labs:
        raise KnowledgeError(f"prompts.json names labs that do not exist: {unknown_labs}")
    for code, (words, texts) in knowledge.translations.items():
        missing = missing_texts(knowledge.tree, knowledge.costs.issues, words, texts)
        missing += missing_style_texts(knowledge.door_styles.styles, texts)
        missing += missing_checklist_texts(knowledge.checklist, texts)
        if missing:
            raise KnowledgeError(f"the {code} texts are incomplete: {'; '.join(missing)}")
    try:
        _ = knowledge.languages, knowledge.guesser
    except ValueError as exc:
        raise KnowledgeError(f"diagnostic_words: {exc}") from exc
    return knowledge


def read_translations(directory: Path) -> dict[str, tuple[LanguageWords, LanguageTexts]]:
    """Every other language's words and texts (`diagnostic_words.<lang>.json` with `texts.<lang>.json`)."""
    found = {}
    for path in sorted(directory.glob("diagnostic_words.*.json")):
        code = path.name.split(".")[1]
        words = read_data_file(path, LanguageWords)
        texts = read_data_file(directory / f"texts.{code}.json", LanguageTexts)
        if words.lang != code or texts.lang != code:
            raise KnowledgeError(f'{path.name} and texts.{code}.json must both say "lang": "{code}"')
        found[code] = (words, texts)
    return found
