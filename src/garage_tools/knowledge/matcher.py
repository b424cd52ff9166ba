"""Deterministic symptom matching: free text in, the best canonical symptom out.

Both the user's words and every phrase in the diagnostic tree go through the same
normalisation (case, punctuation and apostrophes folded; word forms and negations mapped
to canonical words from the tree; the tree's filler words dropped), so "Door WON'T shut!!",
"door wont shut" and "the door will not close" all become `wont close`. Single-word typos
are corrected against the tree's vocabulary (one edit for words of five letters or more,
a swapped pair of letters for four-letter words), never changing the first letter: people
rarely mistype it, and a first letter changed turns everyday words into symptom words
("house" into "mouse", "right" into "light", "mower" into "lower"), and never the tree's
`knownWords` ("steel" is not "seal"). A phrase matches when its words appear
in order with at most `MAX_GAP` other words between them, none of them a direction (in "won't
come down, stays open" the negation belongs to "down": no "won't open" there); the longest match
wins, a symptom's `priority` breaks ties, and then the tightest match.

A description whose subject is something else (the tree's `otherSubjects`: an appliance, a window,
another door, a gate, a car) matches nothing: the garage door itself is not named, and the other
thing comes before the symptom's words (a sentence's subject precedes its verb, so "it lifts three
feet, not enough for the car" is still about the door). The parts the other thing has are its own
(the window's seal, the gate's opener, the dryer's drum), as is a door right after it ("the oven
door"), or a bare "door" once another door was named ("the shed door hinge broke, the door hangs").
Bystanders are the exception (`bystanders`: the car, the dog): they stand by in the door's stories,
so a door part named anywhere brings the door back ("the car is stuck inside, the opener won't
lift"), and a car carries the door's remote ("my truck's remote"). Everything is precomputed, so a
match costs microseconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from garage_tools.knowledge.schemas import DiagnosticTree, Symptom

MAX_GAP = 3
#: How many recent descriptions `match` remembers (the cache is cleared when full).
RECENT_MATCHES = 4096


_WORD = re.compile(r"[a-z0-9]+")
_APOSTROPHE_MARKS = "'\u2019\u2018`\u00b4"
_APOSTROPHES = str.maketrans("", "", _APOSTROPHE_MARKS)


def words(text: str) -> list[str]:
    """Lower-case words with apostrophes removed inside words (won't -> wont)."""
    return _WORD.findall(text.lower().translate(_APOSTROPHES))


def word_spans(text: str) -> list[tuple[int, int]]:
    """Where each of `words(text)` is in `text`: (start, end) character offsets, apostrophes included."""
    kept = [
        (lowered, index) for index, char in enumerate(text) if char not in _APOSTROPHE_MARKS for lowered in char.lower()
    ]
    folded = "".join(char for char, _ in kept)
    return [(kept[found.start()][1], kept[found.end() - 1][1] + 1) for found in _WORD.finditer(folded)]


@dataclass(frozen=True, slots=True)
class Pattern:
    symptom: Symptom
    phrase: str
    tokens: tuple[str, ...]

    @property
    def rank(self) -> tuple[int, int]:
        return (len(self.tokens), self.symptom.priority)


@dataclass(frozen=True, slots=True)
class Reading:
    """A description as the matchers see it: canonical words, and what it is about."""

    tokens: list[str]
    #: For each of `tokens`, the raw words (positions in `words(text)`) it was read from: start, end.
    origins: list[tuple[int, int]]
    #: Where (in `tokens`) another thing is named as the subject (`otherSubjects`), the garage door itself
    #: not being named (see the module docstring); None when it may be the door.
    subject_at: int | None
    #: It asks about a topic (buying, price, looks, insurance, "how do I ...": `enquiryWords`).
    enquiry: bool

    @property
    def elsewhere(self) -> bool:
        """Whether another thing is the subject (the offline fallback, which has no match position, asks)."""
        return self.subject_at is not None


@dataclass(frozen=True, slots=True)
class Match:
    symptom: Symptom
    phrase: str  # the tree's phrase, in its own words
    score: int
    #: Where the words that matched the phrase are in the description: (start, end) character offsets.
    span: tuple[int, int] | None = None

    def matched_text(self, description: str) -> str | None:
        """The words of `description` that matched the phrase ("wont shut" for the phrase "won't close")."""
        return None if self.span is None else description[self.span[0] : self.span[1]]


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))} | {word}


def _within_one_edit(a: str, b: str) -> bool:
    """Optimal-string-alignment distance <= 1 (insert, delete, substitute or swap neighbours)."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diffs = [i for i in range(la) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2 and diffs[1] == diffs[0] + 1 and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]]
        )
    short, long_ = (a, b) if la < lb else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _is_swap(a: str, b: str) -> bool:
    return len(a) == len(b) and sorted(a) == sorted(b) and _within_one_edit(a, b)


def _same_start(typo: str, word: str) -> bool:
    """Whether `typo` keeps `word`'s first letter (or only swaps its first two)."""
    return typo[0] == word[0] or typo[:2] == word[1::-1]


class SymptomMatcher:
    """Matches descriptions against a diagnostic tree. Build once; `match` is read-only."""

    def __init__(self, tree: DiagnosticTree) -> None:
        self._filler = frozenset(tokens[0] for tokens in map(words, tree.filler_words) if len(tokens) == 1)
        self._single: dict[str, str] = {}
        # Multi-word forms -> canonical word; "" for a multi-word filler ("at all"), which is dropped.
        self._multi: dict[tuple[str, ...], str] = {}
        for filler in tree.filler_words:
            if len(tokens := tuple(words(filler))) > 1:
                self._multi[tokens] = ""
        for canonical, forms in tree.canonical_words.items():
            for form in [canonical, *forms]:
                tokens = tuple(words(form))
                if len(tokens) == 1:
                    self._single[tokens[0]] = canonical
                elif tokens:
                    self._multi[tokens] = canonical
        self._door_words = self._markers(tree.door_words)
        self._other_subjects = self._markers(tree.other_subjects)
        self._enquiry_words = self._markers(tree.enquiry_words)
        self._bystanders = self._markers(tree.bystanders)
        self._carried_parts = self._markers(tree.carried_parts)
        # Other doors (the patio door, a car door): a bare "door" after one of them is that door.
        door_names = {word for word in tree.door_words if word in self._filler}
        self._other_doors = self._markers([e for e in tree.other_subjects if door_names.intersection(words(e))])
        # First word -> the lengths of the multi-word forms it starts, longest first (most words start none).
        self._multi_sizes: dict[str, tuple[int, ...]] = {}
        for key in self._multi:
            self._multi_sizes[key[0]] = tuple(sorted({*self._multi_sizes.get(key[0], ()), len(key)}, reverse=True))

        self._phrase_words: frozenset[str] = frozenset()  # filled below, once the phrases are read
        patterns: list[Pattern] = []
        for symptom in tree.symptoms:
            for phrase in symptom.phrases:
                tokens = tuple(self._normalise(words(phrase), correct=False))
                if not tokens:
                    raise ValueError(f"phrase {phrase!r} of {symptom.key} has only filler words")
                patterns.append(Pattern(symptom, phrase, tokens))
        self._patterns = patterns
        self._phrase_words = frozenset(token for pattern in patterns for token in pattern.tokens)
        # First word -> (rank, pattern, remaining words), best-ranked first.
        self._by_first: dict[str, list[tuple[tuple[int, int], Pattern, tuple[str, ...]]]] = {}
        for pattern in sorted(patterns, key=lambda p: p.rank, reverse=True):
            entry = (pattern.rank, pattern, pattern.tokens[1:])
            self._by_first.setdefault(pattern.tokens[0], []).append(entry)

        # Typo correction: every word the tree knows, mapped to its canonical form.
        vocabulary = {token for p in patterns for token in p.tokens} | set(self._single)
        self._vocabulary = {word: self._single.get(word, word) for word in vocabulary}
        self._deletes: dict[str, set[str]] = {}
        for word in vocabulary:
            if len(word) >= 4:
                for variant in _deletes(word):
                    self._deletes.setdefault(variant, set()).add(word)
        # Every token seen so far and what it corrects to (vocabulary words map to themselves).
        self._corrections: dict[str, str] = {word: word for word in vocabulary}
        # Words of other subjects and enquiries are known words, never corrected, but no typo is corrected
        # into one either: "changes" is not "charges", and "washers" (door hardware) is not a "washer".
        for marker in self._other_subjects | self._enquiry_words | self._door_words:
            self._corrections.setdefault(marker, marker)
        for word in tree.known_words:
            self._corrections.setdefault(word.lower(), word.lower())
        # Recent descriptions and their match: agents and widgets send the same few phrases again and again.
        self._recent: dict[str, Match | None] = {}

    def _markers(self, entries: list[str]) -> frozenset[str]:
        """The canonical tokens that `entries` become (a multi-word entry no form covers becomes one token)."""
        markers = set()
        for entry in entries:
            tokens = tuple(words(entry))
            if len(tokens) == 1:
                markers.add(self._single.get(tokens[0], tokens[0]))
            elif tokens:
                markers.add(self._multi.setdefault(tokens, " ".join(tokens)))
        return frozenset(markers)

    @property
    def patterns(self) -> Sequence[Pattern]:
        return self._patterns

    def _correct(self, token: str) -> str:
        fixed = self._corrections.get(token)
        if fixed is not None:
            return fixed
        if token in self._vocabulary or len(token) < 4 or token.isdigit():
            return token
        candidates = {c for v in _deletes(token) for c in self._deletes.get(v, ())}
        if len(token) == 4:
            close = sorted(c for c in candidates if _is_swap(token, c))
        else:
            close = sorted(c for c in candidates if len(c) >= 4 and _within_one_edit(token, c))
        close = [c for c in close if _same_start(token, c)]
        targets = {self._vocabulary[c] for c in close}
        # Only correct when the typo points at one meaning; otherwise leave it alone.
        corrected = targets.pop() if len(targets) == 1 else token
        if len(self._corrections) < 10_000:  # bounded: the cache must not grow with arbitrary input
            self._corrections[token] = corrected
        return corrected

    def _normalise(self, tokens: list[str], *, correct: bool) -> list[str]:
        return self._read(tokens, correct=correct).tokens

    def _read(self, tokens: list[str], *, correct: bool) -> Reading:
        if correct:
            tokens = [self._correct(t) for t in tokens]
        out: list[str] = []
        origins: list[tuple[int, int]] = []
        named = False  # "garage" or "door" naming the garage door: filler words, seen here before they are dropped
        after_subject = -1  # the raw word right after the last other thing named
        governing: set[int] = set()  # where (in `out`) another thing is the subject from the start (see below)
        i, count = 0, len(tokens)
        while i < count:
            for size in self._multi_sizes.get(tokens[i], ()):
                if i + size > count:
                    continue
                canonical = self._multi.get(tuple(tokens[i : i + size]))
                if canonical is not None:
                    if canonical and not (canonical in self._other_subjects and _compared(tokens, i)):
                        if canonical in self._other_subjects and self._governs(tokens, i, out):
                            governing.add(len(out))
                        out.append(canonical)
                        origins.append((i, i + size))
                    i += size
                    if canonical in self._other_subjects:
                        after_subject = i
                    break
            else:
                token = tokens[i]
                i += 1
                if token in self._filler:
                    if token in self._door_words and not named:
                        named = self._names_the_door(token, out, tokens, i, after_subject == i - 1)
                    continue
                token = self._single.get(token, token)
                if token in self._other_subjects:
                    after_subject = i
                    if _compared(tokens, i - 1):
                        continue  # "sounded like a car backfiring": the car is a comparison, not the subject
                    if self._governs(tokens, i - 1, out):
                        governing.add(len(out))
                if token == POSITION_WORD and out and out[-1] == WHILE_WORD:
                    continue  # "tilts when it's halfway up": halfway says when, not where the door stops
                out.append(token)
                origins.append((i - 1, i))
        return Reading(
            tokens=out,
            origins=origins,
            subject_at=None if named else self._subject_at(out, governing),
            enquiry=not self._enquiry_words.isdisjoint(out),
        )

    def _names_the_door(self, name: str, out: list[str], tokens: list[str], after: int, owned: bool) -> bool:
        """Whether "garage" or "door", just read (the raw words continue at `after`), names the garage door.

        Not "garage" right before another thing or after "in" (where it is: "the garage fridge", "a night in
        the freezing garage"; "the garage won't open" names the door), nor "door" right after
        another thing (`owned`, its door: "the freezer door") or after another door was named ("the shed
        door hinge broke and the door hangs crooked")."""
        if name == GARAGE_WORD:
            if after < len(tokens) and self._single.get(tokens[after], tokens[after]) in self._door_words:
                return True  # "garage door", "garage remote"
            return not (self._subject_starts(tokens, after) or _follows(tokens, after - 1, _PLACES))
        return not owned and self._other_doors.isdisjoint(out)

    def _governs(self, tokens: list[str], start: int, out: list[str]) -> bool:
        """Whether another thing named at raw word `start` is the subject from the start: a sound or a leak
        comes from it ("heard a bang from the old fridge"), or the description opens with it and one symptom
        word describing it ("a leaking window", "noisy fridge in the garage")."""
        if _follows(tokens, start, _SOURCES):
            return True
        describing = len(out) == 1 and start > 0 and tokens[start - 1].endswith(_DESCRIBING)
        return describing and out[0] in self._phrase_words

    def _subject_starts(self, tokens: list[str], at: int) -> bool:
        """Whether another thing (`otherSubjects`) is named at raw word `at`."""
        if at >= len(tokens):
            return False
        for size in self._multi_sizes.get(tokens[at], ()):
            if self._multi.get(tuple(tokens[at : at + size])) in self._other_subjects:
                return True
        return self._single.get(tokens[at], tokens[at]) in self._other_subjects

    def _subject_at(self, tokens: list[str], governing: set[int]) -> int | None:
        """Where another thing is named as the subject, else None (see `Reading.subject_at`). A bystander right
        before a control it carries only qualifies it ("my car's remote", "the truck button"), and is no subject
        when a door part is named anywhere else ("the car is stuck, the opener won't lift"). A thing a sound or a
        leak comes from, or one a description opens with ("a leaking window"), is the subject from the start
        ("heard a bang from the old fridge")."""
        count = len(tokens)
        for at, token in enumerate(tokens):
            if token not in self._other_subjects:
                continue
            if token in self._bystanders:
                if at + 1 < count and tokens[at + 1] in self._carried_parts:
                    continue
                if any(self._loose_door_word(tokens, k) for k in range(count)):
                    return None
            return 0 if at in governing else at
        return None

    def _loose_door_word(self, tokens: list[str], at: int) -> bool:
        """Whether tokens[at] is a door part that belongs to no other thing (a thing right before it owns it)."""
        return tokens[at] in self._door_words and not (at and tokens[at - 1] in self._other_subjects)

    def normalise(self, text: str) -> list[str]:
        """The canonical word sequence for `text` (exposed for tests and debugging)."""
        return self._normalise(words(text), correct=True)

    def read(self, text: str) -> Reading:
        """`text`'s canonical words and what it is about (the offline fallback reads texts this way too)."""
        return self._read(words(text), correct=True)

    def match(self, text: str) -> Match | None:
        """The best-matching symptom for `text`, or None when no phrase matches."""
        try:
            return self._recent[text]
        except KeyError:
            pass
        found = self._match(text)
        if len(self._recent) >= RECENT_MATCHES:
            self._recent.clear()  # bounded, and cheap: a cleared cache refills with what is asked now
        self._recent[text] = found
        return found

    def _match(self, text: str) -> Match | None:
        reading = self.read(text)
        tokens = reading.tokens
        # Ranked by (words matched, priority, minus words skipped): longest, then priority, then tightest.
        best: tuple[tuple[int, int, int], Pattern, int] | None = None
        for start, token in enumerate(tokens):
            for (size, priority), pattern, rest in self._by_first.get(token, ()):
                if best is not None and (size, priority) < best[0][:2]:
                    break  # best-ranked first: no later phrase can win
                skipped = _skipped_at(tokens, start, rest)
                if skipped is not None and (best is None or (size, priority, -skipped) > best[0]):
                    best = ((size, priority, -skipped), pattern, start)
        if best is None:
            return None
        (_, _, minus_skipped), pattern, start = best
        if reading.subject_at is not None and reading.subject_at <= start:
            return None  # "the freezer in the garage hums": another thing is the subject, whatever the words
        last = start + len(pattern.tokens) - 1 - minus_skipped
        spans = word_spans(text)
        first_word, end_word = reading.origins[start][0], reading.origins[last][1]
        span = (spans[first_word][0], spans[end_word - 1][1]) if end_word <= len(spans) else None
        return Match(pattern.symptom, pattern.phrase, len(pattern.tokens), span)

    def suggestions(self) -> list[str]:
        """One phrase per symptom (each symptom's first phrase, the one widgets offer as a chip)."""
        seen: dict[str, str] = {}
        for pattern in self._patterns:
            seen.setdefault(pattern.symptom.key, pattern.phrase)
        return list(seen.values())


#: Canonical words (see canonicalWords) for "when it's", "as it gets" ..., and for how far the door goes:
#: a position right after the first is a moment of travel ("shakes when it's halfway up"), not a stop.
WHILE_WORD = "during"
POSITION_WORD = "partial"
#: The word that names the garage itself (a filler word, like "door"): see `SymptomMatcher._names_the_door`.
GARAGE_WORD = "garage"
#: The canonical directions of travel: a phrase's words never reach across one.
DIRECTIONS = frozenset({"open", "close"})

#: Words that introduce a comparison ("sounds like a car backfiring"), and articles that may follow them.
_COMPARISONS = frozenset({"like"})
_ARTICLES = frozenset({"a", "an", "the", "some"})


#: Words that say where a sound or a leak comes from ("a hum coming from the freezer"), and where a thing is
#: ("left in the cold garage"); either may be a few words before what it introduces.
_SOURCES = frozenset({"from"})
_PLACES = frozenset({"in", "inside", "into"})
_REACH = 3
#: Endings of a word that describes the thing right after it ("a leaking window", "a squeaky gate").
_DESCRIBING = ("ing", "y", "ed", "en")


def _follows(tokens: list[str], start: int, words: frozenset[str]) -> bool:
    """Whether one of `words` is among the few raw words before `start` ("from the old fridge")."""
    return not words.isdisjoint(tokens[max(0, start - _REACH) : start])


def _compared(tokens: list[str], start: int) -> bool:
    """Whether the words at `start` follow a comparison word ("like a ..."), so they name no subject."""
    before = start - 1
    if before >= 0 and tokens[before] in _ARTICLES:
        before -= 1
    return before >= 0 and tokens[before] in _COMPARISONS


def _skipped_at(tokens: list[str], start: int, rest: tuple[str, ...]) -> int | None:
    """How many words are skipped when `rest` follows tokens[start] in order, each within MAX_GAP words of
    the previous and no direction skipped (None when it does not follow)."""
    position = start
    skipped = 0
    for word in rest:
        window = tokens[position + 1 : position + MAX_GAP + 2]
        if word not in window:
            return None
        gap = window.index(word)
        if gap and not DIRECTIONS.isdisjoint(window[:gap]):
            return None  # "won't [go down, stays] open": the negation belongs to the direction skipped
        skipped += gap
        position += 1 + gap
    return skipped
