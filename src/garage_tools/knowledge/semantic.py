"""diagnose's offline fallback: the symptom whose example phrasings a description is nearest to.

The phrase matcher (matcher.py) is exact by design: a phrase of the tree matches, or nothing does.
When nothing does (or only one word of a phrase does, such as "noise"), the caller asked for
`useLlmFallback` and no language model is configured (or it is down), this matcher compares the
description with every example phrasing of every symptom (symptom_exemplars.json, plus each
symptom's label) by TF-IDF cosine similarity over two views of the text, weighted `WORD_WEIGHT`
to the first:

- words: the phrase matcher's canonical word sequence (typos corrected, synonyms and negations
  folded, filler and `STOPWORDS` dropped), single words and adjacent pairs, so "won't shut" and
  "will not close" are the same features and "wont open" is not "open";
- characters: 3- to 5-grams of the raw words (filler and stop words dropped), which relate word
  forms no list names ("grindy" and "grinding", "rattly" and "rattling").

A symptom scores its best example's similarity; the best symptom wins when that reaches
`MIN_SIMILARITY`. Below it, diagnose gives its usual no-match hint: a request to rephrase is better
than a wrong diagnosis. Words no example uses still lengthen the description's vector (at
`UNSEEN_WEIGHT`), so a long text that shares a word or two with an example scores lower than a short
one. It remains a bag of words, so it makes no guess for a text the phrase matcher reads as about
something else (a fridge that is "leaking": the tree's `otherSubjects`) or as an enquiry ("how much
is a new spring": `enquiryWords`): such texts share words with examples without describing a symptom.

Pure Python over sparse dicts (numpy is not a dependency): about 170 examples, built in about 15 ms
at start-up, about 0.25 ms a query on a shared 2-core machine; only text the phrases miss pays it.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass

from garage_tools.knowledge.matcher import SymptomMatcher, words
from garage_tools.knowledge.schemas import DiagnosticTree, Symptom, SymptomExemplars

#: Blended similarity the nearest example must reach, the blend, and how much nearer another symptom must
#: be than a one-word phrase match's: chosen on bench/data/diagnose_phrasings_dev.json (never on the
#: held-out bench/data/diagnose_phrasings.json). Lower thresholds diagnose more non-symptoms.
MIN_SIMILARITY = 0.25
WORD_WEIGHT = 0.7
UNSEEN_WEIGHT = 0.5
RIVAL_MARGIN = 0.1
#: How far ahead of the runner-up the nearest symptom must be: "my door is stuck halfway" is as near "stuck open"
#: (won't close) as "opens halfway then stops" (opens partway), and a coin flip between two symptoms is not a
#: diagnosis. At 0.05 the development set loses 2 of 597 phrasings (98.3% -> 98.0%); the held-out sets are unchanged.
TIE_MARGIN = 0.05
CHAR_NGRAMS = (3, 4, 5)

#: Words that say nothing about a symptom, on top of the tree's filler words (those the phrase matcher
#: drops). Without them, "something is wrong with my door" is near "something went bang ..." and
#: "can you help" near "you can see light under the door". Direction and state words stay: "up",
#: "down", "off", "back", "out" and "nothing" carry meaning here ("goes back up", "nothing happens").
STOPWORDS = frozenset(
    {
        "about", "after", "all", "also", "any", "anything", "because", "big", "can", "could", "did", "do", "does",
        "done", "each", "even", "every", "everything", "get", "gets", "got", "had", "has", "have", "help", "how",
        "huge", "if", "into", "kinda", "maybe", "much", "need", "needs", "please", "pretty", "should", "since",
        "something", "super", "thanks", "than", "thing", "things", "too", "what", "whats", "when", "where", "which",
        "who", "why", "will", "would", "wrong",
    }
)  # fmt: skip

#: Words too general to carry a diagnosis on their own: an example shares at least one other word (or a
#: close word form, by characters) with the description, or it is no match. Without this, "the doorbell
#: doesn't work" is near "the remote doesn't work", and "when can you come out" near "... worn out".
GENERAL_WORDS = frozenset({"wont", "work", "out", "come", "go", "goes", "went", "get"})
#: Character similarity to the example that counts as sharing a word form ("grindy" and "grinding").
CHAR_EVIDENCE = 0.3

Vector = dict[str, float]


@dataclass(frozen=True, slots=True)
class SemanticMatch:
    symptom: Symptom
    exemplar: str
    similarity: float


class _Space:
    """One TF-IDF view over the example documents: IDF weights, unit vectors and an inverted index."""

    def __init__(self, documents: list[Counter[str]]) -> None:
        count = len(documents)
        frequency = Counter(feature for document in documents for feature in document)
        self._idf = {feature: math.log((1 + count) / (1 + df)) + 1 for feature, df in frequency.items()}
        self._unseen_idf = UNSEEN_WEIGHT * (math.log(1 + count) + 1)  # a feature no example has
        self._index: dict[str, list[tuple[int, float]]] = {}
        for number, document in enumerate(documents):
            for feature, weight in self.vector(document).items():
                self._index.setdefault(feature, []).append((number, weight))

    def vector(self, counts: Counter[str]) -> Vector:
        """Unit TF-IDF vector of `counts`, keeping only features the examples have (the others can't
        contribute to a dot product, but they do lengthen the vector)."""
        weights = {f: (1 + math.log(c)) * self._idf.get(f, self._unseen_idf) for f, c in counts.items()}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        if norm == 0:
            return {}
        return {f: w / norm for f, w in weights.items() if f in self._idf}

    def similarities(self, counts: Counter[str]) -> dict[int, float]:
        """Cosine similarity of `counts` to every example that shares a feature with it."""
        scores: dict[int, float] = {}
        for feature, weight in self.vector(counts).items():
            for number, other in self._index[feature]:
                scores[number] = scores.get(number, 0.0) + weight * other
        return scores


class SemanticMatcher:
    """Nearest-example matching over a tree's symptoms. Build once; `match` is read-only."""

    def __init__(self, tree: DiagnosticTree, exemplars: SymptomExemplars, phrases_matcher: SymptomMatcher) -> None:
        self._phrases = phrases_matcher
        self._ignored = frozenset(tree.filler_words) | STOPWORDS
        self._documents: list[tuple[Symptom, str]] = []
        for symptom in tree.symptoms:
            # Not the tree's phrases: a text containing one has matched already, and as examples those
            # short fragments ("out of track", "seal") pull unrelated texts that share a word towards them.
            for text in [*exemplars.exemplars.get(symptom.key, ()), symptom.label]:
                self._documents.append((symptom, text))
        self._words = _Space([self._word_features(text) for _, text in self._documents])
        self._chars = _Space([self._char_features(text) for _, text in self._documents])

    def _word_features(self, text: str) -> Counter[str]:
        tokens = [token for token in self._phrases.normalise(text) if token not in STOPWORDS]
        return Counter([f"w:{t}" for t in tokens] + [f"b:{a} {b}" for a, b in itertools.pairwise(tokens)])

    def _char_features(self, text: str) -> Counter[str]:
        features: Counter[str] = Counter()
        for word in words(text):
            if word in self._ignored:
                continue
            padded = f"<{word}>"
            for size in CHAR_NGRAMS:
                features.update(padded[i : i + size] for i in range(len(padded) - size + 1))
        return features

    def _shares_telling_words(self, text: str, exemplar: str) -> bool:
        """Whether `text` and `exemplar` have a word in common beyond the `GENERAL_WORDS`, or a close word form."""
        ours = {feature for feature in self._word_features(text) if feature.startswith("w:")}
        theirs = {feature for feature in self._word_features(exemplar) if feature.startswith("w:")}
        if any(feature[2:] not in GENERAL_WORDS for feature in ours & theirs):
            return True
        by_char = self._chars.vector(self._char_features(self._telling_words(text)))
        example = self._chars.vector(self._char_features(self._telling_words(exemplar)))
        return sum(weight * example.get(feature, 0.0) for feature, weight in by_char.items()) >= CHAR_EVIDENCE

    def _telling_words(self, text: str) -> str:
        """`text` without the words whose canonical form is one of the `GENERAL_WORDS` ("doesn't", "works")."""
        return " ".join(word for word in words(text) if not GENERAL_WORDS.intersection(self._phrases.normalise(word)))

    def rank(self, text: str) -> list[SemanticMatch]:
        """Every symptom with its nearest example, most similar first (symptoms sharing nothing are left out)."""
        by_word = self._words.similarities(self._word_features(text))
        by_char = self._chars.similarities(self._char_features(text))
        best: dict[str, SemanticMatch] = {}
        for number in by_word.keys() | by_char.keys():
            similarity = WORD_WEIGHT * by_word.get(number, 0.0) + (1 - WORD_WEIGHT) * by_char.get(number, 0.0)
            symptom, exemplar = self._documents[number]
            current = best.get(symptom.key)
            if current is None or similarity > current.similarity:
                best[symptom.key] = SemanticMatch(symptom, exemplar, similarity)
        return sorted(best.values(), key=lambda m: (-m.similarity, -m.symptom.priority))

    def match(self, text: str, *, rival: str | None = None, rival_words: str | None = None) -> SemanticMatch | None:
        """The nearest symptom when it is near enough, else None.

        `rival` is a symptom the text already matched by a weaker route (one word of a phrase, `rival_words`):
        another symptom wins over it only by `RIVAL_MARGIN`, and only on other words than those: "really loud"
        is the noise it names, not the "loud bang" it shares a word with.
        """
        reading = self._phrases.read(text)
        if reading.elsewhere or reading.enquiry:
            return None  # about the freezer, or a price question: words in common, no symptom described
        ranked = self.rank(text)
        if not ranked or ranked[0].similarity < MIN_SIMILARITY:
            return None
        best = ranked[0]
        if len(ranked) > 1 and best.similarity - ranked[1].similarity < TIE_MARGIN:
            return None  # two symptoms about as near: ask for more words rather than guess
        evidence = text.replace(rival_words, " ") if rival_words and best.symptom.key != rival else text
        if not self._shares_telling_words(evidence, best.exemplar):
            return None
        if rival is not None and best.symptom.key != rival:
            rival_similarity = next((m.similarity for m in ranked if m.symptom.key == rival), 0.0)
            if best.similarity - rival_similarity < RIVAL_MARGIN:
                return None
        return best
