"""A BM25 index over the labs' sections: the search behind `retrieveLabContext`.

Each `##` section of a lab is one document, so every hit has an anchor an agent can cite. The
scoring is Okapi BM25 with field weights folded into the term frequencies (a simple BM25F): a
word in the section title counts `TITLE_WEIGHT` times, the lab's title and keywords count
`LAB_WEIGHT` times for every section of that lab (they say what the whole lab is about), and the
section body counts once. Words are lower-cased, stripped of stop words and reduced to their
Porter stems; `data/lab_synonyms.json` maps homeowner words onto the labs' vocabulary.

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
#: How much a word reached only through a synonym counts, next to a word the caller used.
SYNONYM_WEIGHT = 0.5

_WORD = re.compile(r"[a-z0-9]+")
_APOSTROPHES = str.maketrans("", "", "'\u2019\u2018`\u00b4")

#: Words that carry no topic (apostrophes are removed first: "won't" is `wont`). Directions and
#: states (up, down, off, open) are left in: for a door they are the topic.
STOP_WORDS = frozenset((
    "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because",
    "been", "before", "being", "between", "both", "but", "by", "can", "cant", "could", "couldnt", "did", "didnt",
    "do", "does", "doesnt", "doing", "dont", "during", "each", "few", "for", "from", "further", "get", "gets",
    "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "im", "in",
    "into", "is", "isnt", "it", "its", "itself", "ive", "just", "me", "more", "most", "much", "many", "my",
    "myself", "no", "nor", "not", "now", "of", "once", "only", "or", "other", "our", "ours", "own", "same", "she",
    "should", "shouldnt", "so", "some", "such", "than", "that", "thats", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "very", "was", "wasnt", "we", "were", "what",
    "whats", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "wont", "would", "wouldnt",
    "you", "your", "yours", "yourself",
))  # fmt: skip


def words(text: str) -> list[str]:
    """Lower-case ASCII words of `text`, apostrophes inside words removed (door's -> doors)."""
    return _WORD.findall(text.lower().translate(_APOSTROPHES))


def terms(text: str) -> list[str]:
    """The index terms of `text`: its words without stop words, each reduced to its stem."""
    return [stem(word) for word in words(text) if word not in STOP_WORDS]


# --- synonyms ----------------------------------------------------------------------------

Phrase = Annotated[str, StringConstraints(min_length=1, max_length=60, strip_whitespace=True)]


class SynonymGroup(DataModel):
    """Words and phrases that mean the same thing to someone asking about garage doors."""

    words: list[Phrase] = Field(min_length=2, description="Each phrase is matched on its word stems.")

    @field_validator("words")
    @classmethod
    def _not_only_stop_words(cls, words: list[str]) -> list[str]:
        empty = [phrase for phrase in words if not terms(phrase)]
        if empty:
            raise ValueError(f"these phrases are made only of stop words and would never match: {empty}")
        return words


class SynonymList(DataModel):
    """`data/lab_synonyms.json`: how homeowners' words map onto the labs' vocabulary.

    A query word or phrase found in a group brings in the terms of the group's other phrases at
    SYNONYM_WEIGHT, so "photo eye" also finds sections that say "safety sensor". Groups hold
    general equivalences of the trade, not the wording of particular questions.
    """

    groups: list[SynonymGroup]

    def expansions(self) -> dict[tuple[str, ...], tuple[str, ...]]:
        """Each phrase (as its terms) mapped to the terms of the other phrases in its group."""
        mapping: dict[tuple[str, ...], set[str]] = {}
        for group in self.groups:
            phrases = [tuple(terms(phrase)) for phrase in group.words]
            for phrase in phrases:
                others = {term for other in phrases if other != phrase for term in other}
                mapping.setdefault(phrase, set()).update(others - set(phrase))
        return {phrase: tuple(sorted(extra)) for phrase, extra in mapping.items() if extra}


# --- the index ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked section."""

    lab: Lab
    section: LabSection
    score: float


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
        synonyms: dict[tuple[str, ...], tuple[str, ...]],
    ) -> None:
        self._documents = documents
        self._postings = postings
        self._synonyms = synonyms
        self._longest_synonym = max((len(phrase) for phrase in synonyms), default=1)

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
        return cls(documents, postings, synonyms.expansions() if synonyms is not None else {})

    def __len__(self) -> int:
        return len(self._documents)

    def query_weights(self, text: str) -> dict[str, float]:
        """The query's terms with their weights: 1 for the caller's own words, less for synonyms."""
        query = terms(text)
        weights = dict.fromkeys(query, 1.0)
        for start in range(len(query)):
            for size in range(min(self._longest_synonym, len(query) - start), 0, -1):
                for term in self._synonyms.get(tuple(query[start : start + size]), ()):
                    weights.setdefault(term, SYNONYM_WEIGHT)
        return weights

    def search(self, text: str, *, top_k: int, lab_slug: str | None = None) -> list[Hit]:
        """The `top_k` best sections for `text`, best first; only sections of `lab_slug` when given."""
        scores: dict[int, float] = {}
        for term, weight in self.query_weights(text).items():
            for number, value in self._postings.get(term, ()):
                scores[number] = scores.get(number, 0.0) + weight * value
        if lab_slug is not None:
            scores = {n: s for n, s in scores.items() if self._documents[n].lab.slug == lab_slug}
        # Ties go to the earlier section (labs in spec order, sections in page order).
        best = heapq.nsmallest(top_k, scores.items(), key=lambda item: (-item[1], item[0]))
        return [Hit(self._documents[n].lab, self._documents[n].section, score) for n, score in best]
