"""A BM25 index over the labs' sections: the search behind `retrieveLabContext`.

Each `##` section of a lab is one document, so every hit has an anchor an agent can cite. The
scoring is Okapi BM25 with field weights folded into the term frequencies (a simple BM25F): a
word in the section title counts `TITLE_WEIGHT` times, the lab's title and keywords count
`LAB_WEIGHT` times for every section of that lab (they say what the whole lab is about), and the
section body counts once. Words are lower-cased, stripped of stop words and reduced to their
Porter stems (Snowball's, knowledge/stemmer.py); `data/lab_synonyms.json` maps homeowner words onto
the labs' vocabulary.

A synonym group is scored as one concept standing in for the caller's words: a section gains
credit, at SYNONYM_WEIGHT, for the best of the group's other phrases it contains (a disjunction
max), not for each of them, and a phrase of several words counts as one word. Summing every
alternative let a word with a large group ("worth": return on investment, ROI, payback, resale
value...) outweigh all the words the caller typed, so the ROI lab answered any question that
asked whether something was worth it.

A section's score is then scaled by the share of the question's words and concepts (its terms, and each
synonym group it reaches) that the section matches at all, the coordination factor of classic Lucene
scoring: without it, one rare word ("money", in one section of the energy lab) outweighed a section that
answers every other part of the question.

Some questions say what they are about only in words the index drops: "can I replace my own spring?"
asks whether a job is DIY through "my own", two stop words. A group's `cues` are such phrases,
matched word for word in the question; a group a cue reaches stands in for those words in full
(weight 1, as the caller's own words count), since nothing else of them is left to count.

With some sixty sections the whole index is a few thousand postings. Everything that does not
depend on the query (the per-term, per-section BM25 weight) is computed when the index is built,
once per process, so a query is a handful of dictionary lookups and additions.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field, StringConstraints, field_validator

from garage_tools.knowledge.labs import Lab, LabSection
from garage_tools.knowledge.schemas import DataModel
from garage_tools.knowledge.stemmer import stem

#: Okapi BM25 parameters: the usual values (term-frequency saturation, length normalisation).
K1 = 1.2
B = 0.75
#: How many times a word in a section's title, or in its lab's title and keywords, counts.
TITLE_WEIGHT = 3.0
LAB_WEIGHT = 1.5
#: How much a synonym group counts, next to a word the caller used.
SYNONYM_WEIGHT = 0.5

_WORD = re.compile(r"[a-z0-9]+")
_APOSTROPHES = str.maketrans("", "", "'\u2019\u2018`\u00b4")

#: Words that carry no topic (apostrophes are removed first: "won't" is `wont`), fillers such as
#: "really" and "actually" among them. Directions and states (up, down, off, open) are left in: for
#: a door they are the topic; so are "myself" and "yourself", which ask whether a job is DIY.
STOP_WORDS = frozenset((
    "a", "about", "actually", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "between", "both", "but", "by", "can", "cant", "could", "couldnt", "did",
    "didnt", "do", "does", "doesnt", "doing", "dont", "during", "each", "few", "for", "from", "further", "get",
    "gets", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "im",
    "in", "into", "is", "isnt", "it", "its", "itself", "ive", "just", "me", "more", "most", "much", "many", "my",
    "no", "nor", "not", "now", "of", "once", "only", "or", "other", "our", "ours", "own", "really", "same", "she",
    "should", "shouldnt", "so", "some", "such", "than", "that", "thats", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "very", "was", "wasnt", "we", "were", "what",
    "whats", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "wont", "would", "wouldnt",
    "you", "your", "yours",
))  # fmt: skip


def words(text: str) -> list[str]:
    """Lower-case ASCII words of `text`, apostrophes inside words removed (door's -> doors)."""
    return _WORD.findall(text.lower().translate(_APOSTROPHES))


def terms(text: str) -> list[str]:
    """The index terms of `text`: its words without stop words, each reduced to its stem."""
    return [stem(word) for word in words(text) if word not in STOP_WORDS]


# --- synonyms ----------------------------------------------------------------------------

Phrase = Annotated[str, StringConstraints(min_length=1, max_length=60, strip_whitespace=True)]
#: A phrase as the index sees it: its terms, in order.
Terms = tuple[str, ...]


class SynonymGroup(DataModel):
    """Words and phrases that mean the same thing to someone asking about garage doors."""

    words: list[Phrase] = Field(min_length=2, description="Each phrase is matched on its word stems.")
    cues: list[Phrase] = Field(
        default_factory=list,
        description=(
            'Phrases made only of stop words that point at this group in a question ("my own" for DIY), '
            "matched word for word; the group then counts in full, standing in for them."
        ),
    )

    @field_validator("words")
    @classmethod
    def _not_only_stop_words(cls, words: list[str]) -> list[str]:
        empty = [phrase for phrase in words if not terms(phrase)]
        if empty:
            raise ValueError(
                f"these phrases are made only of stop words and would never match (make them cues): {empty}"
            )
        return words

    @field_validator("cues")
    @classmethod
    def _only_stop_words(cls, cues: list[str]) -> list[str]:
        topical = [phrase for phrase in cues if terms(phrase) or not words(phrase)]
        if topical:
            raise ValueError(f"cues are phrases made only of stop words (put these in words): {topical}")
        return cues


class SynonymList(DataModel):
    """`data/lab_synonyms.json`: how homeowners' words map onto the labs' vocabulary.

    A query word or phrase found in a group brings in the group's other phrases, so "photo eye"
    also finds sections that say "safety sensor"; a section scores for the best of them, at
    SYNONYM_WEIGHT. Groups hold general equivalences of the trade, not the wording of particular
    questions.
    """

    groups: list[SynonymGroup]

    def phrase_groups(self) -> list[tuple[Terms, ...]]:
        """Each group as its phrases' terms, duplicates dropped ("photo eye" and "photo-eye" are one)."""
        return [tuple(dict.fromkeys(tuple(terms(phrase)) for phrase in group.words)) for group in self.groups]

    def cue_groups(self) -> dict[tuple[str, ...], int]:
        """Each cue as its words, and the number of the group it points at."""
        return {tuple(words(cue)): number for number, group in enumerate(self.groups) for cue in group.cues}


# --- the index ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked section."""

    lab: Lab
    section: LabSection
    score: float


@dataclass(frozen=True, slots=True)
class Query:
    """A question as the index scores it."""

    terms: Terms  # the caller's own terms, each once, at weight 1
    #: Per synonym group the question touches, the group's other phrases without the caller's own terms.
    synonyms: tuple[tuple[Terms, ...], ...]
    #: Per group in `synonyms`, its weight: SYNONYM_WEIGHT, or 1 for a group only a cue reached ("my own").
    weights: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class _Document:
    lab: Lab
    section: LabSection


class LabIndex:
    """BM25 over every lab section. Build once (`build`); `search` is read-only and thread-safe."""

    def __init__(
        self,
        documents: Sequence[_Document],
        postings: dict[str, list[tuple[int, float]]],
        synonym_groups: Sequence[tuple[Terms, ...]],
        cues: dict[tuple[str, ...], int] | None = None,
    ) -> None:
        self._documents = documents
        self._postings = postings
        self._groups = tuple(synonym_groups)
        self._cues = cues or {}
        self._longest_cue = max((len(cue) for cue in self._cues), default=0)
        self._groups_with: dict[Terms, list[int]] = {}  # phrase -> the groups it belongs to
        for number, group in enumerate(self._groups):
            for phrase in group:
                self._groups_with.setdefault(phrase, []).append(number)
        self._longest_synonym = max((len(phrase) for phrase in self._groups_with), default=1)
        # Every synonym phrase's per-section score, computed once: a query only looks them up.
        self._phrase_cache = {phrase: self._phrase_scores(phrase) for phrase in self._groups_with}

    @classmethod
    def build(cls, labs: Iterable[Lab], synonyms: SynonymList | None = None) -> LabIndex:
        documents: list[_Document] = []
        frequencies: list[dict[str, float]] = []  # per section: term -> field-weighted frequency
        for lab in labs:
            lab_terms = terms(" ".join([lab.title, *lab.keywords]))
            for section in lab.sections:
                weighted: dict[str, float] = {}
                for field, weight in ((section.text, 1.0), (section.title, TITLE_WEIGHT)):
                    for term in terms(field):
                        weighted[term] = weighted.get(term, 0.0) + weight
                for term in lab_terms:
                    weighted[term] = weighted.get(term, 0.0) + LAB_WEIGHT
                documents.append(_Document(lab, section))
                frequencies.append(weighted)

        lengths = [sum(weighted.values()) for weighted in frequencies]
        average = sum(lengths) / len(lengths) if lengths else 1.0
        containing = Counter(term for weighted in frequencies for term in weighted)
        total = len(documents)
        postings: dict[str, list[tuple[int, float]]] = {}
        for number, weighted in enumerate(frequencies):
            norm = K1 * (1 - B + B * lengths[number] / average)
            for term, tf in weighted.items():
                idf = math.log(1 + (total - containing[term] + 0.5) / (containing[term] + 0.5))
                postings.setdefault(term, []).append((number, idf * tf * (K1 + 1) / (tf + norm)))
        if synonyms is None:
            return cls(documents, postings, [])
        return cls(documents, postings, synonyms.phrase_groups(), synonyms.cue_groups())

    def __len__(self) -> int:
        return len(self._documents)

    def expand(self, text: str) -> Query:
        """`text` as the caller's own terms plus the synonym groups any of its words or phrases belong to."""
        query = terms(text)
        own = tuple(dict.fromkeys(query))
        touched: dict[int, float] = {}  # group numbers, in the order the question reaches them, and weights
        for start in range(len(query)):
            for size in range(1, min(self._longest_synonym, len(query) - start) + 1):
                for number in self._groups_with.get(tuple(query[start : start + size]), ()):
                    touched[number] = SYNONYM_WEIGHT
        said = words(text)
        for start in range(len(said)):
            for size in range(1, min(self._longest_cue, len(said) - start) + 1):
                cued = self._cues.get(tuple(said[start : start + size]))
                if cued is not None and cued not in touched:
                    touched[cued] = 1.0  # nothing else counts for the words of a cue: the group stands in
        synonyms, weights = [], []
        for number, weight in touched.items():
            # The caller's own terms already count in full; what is left of each phrase stands in for them.
            others = (tuple(term for term in phrase if term not in own) for phrase in self._groups[number])
            alternatives = tuple(dict.fromkeys(phrase for phrase in others if phrase))
            if alternatives:
                synonyms.append(alternatives)
                weights.append(weight)
        return Query(own, tuple(synonyms), tuple(weights))

    def _phrase_scores(self, phrase: Terms) -> dict[int, float]:
        """Per section, the mean BM25 score of the phrase's terms: a phrase is worth one word, however long."""
        sums: dict[int, float] = {}
        for term in phrase:
            for number, value in self._postings.get(term, ()):
                sums[number] = sums.get(number, 0.0) + value
        return {number: total / len(phrase) for number, total in sums.items()}

    def search(self, text: str, *, top_k: int, lab_slug: str | None = None) -> list[Hit]:
        """The `top_k` best sections for `text`, best first; only sections of `lab_slug` when given."""
        query = self.expand(text)
        count = len(self._documents)
        scores = [0.0] * count  # per section (a few dozen): lists index faster than dictionaries
        matched = [0] * count  # per section, how many of the question's terms and concepts it has
        for term in query.terms:
            for number, value in self._postings.get(term, ()):
                scores[number] += value
                matched[number] += 1
        for alternatives, weight in zip(query.synonyms, query.weights, strict=True):
            concept: dict[int, float] = {}  # one concept: each section counts its best alternative only
            for phrase in alternatives:
                scored = self._phrase_cache.get(phrase)
                if scored is None:  # a phrase cut short by the caller's own terms
                    scored = self._phrase_scores(phrase)
                for number, value in scored.items():
                    if value > concept.get(number, 0.0):
                        concept[number] = value
            for number, value in concept.items():
                scores[number] += weight * value
                matched[number] += 1
        # Coordination: a section that answers more of the question's words and concepts ranks above one
        # that scores high on a few ("save money" alone is the energy lab; with "replace", "spring" and "my
        # own" it is the spring section on DIY).
        concepts = len(query.terms) + len(query.synonyms)
        found = {n: scores[n] * matched[n] / concepts for n in range(count) if matched[n]}
        if lab_slug is not None:
            found = {n: s for n, s in found.items() if self._documents[n].lab.slug == lab_slug}
        # Ties go to the earlier section (labs in spec order, sections in page order).
        best = heapq.nsmallest(top_k, found.items(), key=lambda item: (-item[1], item[0]))
        return [Hit(self._documents[n].lab, self._documents[n].section, score) for n, score in best]
