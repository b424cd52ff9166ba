"""Deterministic symptom matching: free text in, the best canonical symptom out.

Both the user's words and every phrase in the diagnostic tree go through the same
normalisation (case, punctuation and apostrophes folded; word forms and negations mapped
to canonical words from the tree; the tree's filler words dropped), so "Door WON'T shut!!",
"door wont shut" and "the door will not close" all become `wont close`. Typos and stretched
words are read as the tree's words (spelling.py), never as its `knownWords` ("steel" is not
"seal"); a language with a stemmer (Spanish) reads every word, its own and the data's, as its stem,
and the tree's `grammar` gives the small words sentences are read by. A phrase matches when its words appear
in order with at most `MAX_GAP` other words between them, none of them a direction (in "won't
come down, stays open" the negation belongs to "down": no "won't open" there); the longest match
wins, a symptom's `priority` breaks ties, and then the tightest match. The other symptoms a story
names come after it (`matches`). Words that tell a symptom only in a story about the door
(`doorContextWords`: rain, mice) need the door named, and in an enquiry only a phrase that says what
is wrong (`faultWords`) is a symptom ("how do I program a new remote" is none).

A description whose subject is something else (the tree's `otherSubjects`: an appliance, a window,
another door, a gate, a car) matches nothing: the garage door itself is not named, and the other
thing comes before the symptom's words (a sentence's subject precedes its verb, so "it lifts three
feet, not enough for the car" is still about the door). The parts the other thing has are its own
(the window's seal, the gate's opener, the dryer's drum), as is a door right after it ("the oven
door") or with the thing named after it ("la puerta de la cocina", "the lock on the door"), or a bare
"door" once another door was named ("the shed door hinge broke, the door hangs").
Bystanders are the exception (`bystanders`: the car, the dog): they stand by in the door's stories,
so a door part named anywhere brings the door back ("the car is stuck inside, the opener won't
lift"), and a car carries the door's remote ("my truck's remote"). Everything is precomputed, so a
match costs microseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from garage_tools.knowledge.schemas import DiagnosticTree, Symptom
from garage_tools.knowledge.spelling import Speller, Stem, word_spans, words

__all__ = ["Match", "Reading", "SymptomMatcher", "word_spans", "words"]

MAX_GAP = 3
#: How many recent descriptions `match` remembers (the cache is cleared when full).
RECENT_MATCHES = 4096


@dataclass(frozen=True, slots=True)
class Pattern:
    symptom: Symptom
    phrase: str
    tokens: tuple[str, ...]

    @property
    def rank(self) -> tuple[int, int]:
        return (len(self.tokens), self.symptom.priority)


#: A phrase as the matcher tries it: (rank, pattern, the words after its first, whether it needs the door named,
#: whether it names no fault).
_Entry = tuple[tuple[int, int], Pattern, tuple[str, ...], bool, bool]


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
    #: The garage door or one of its parts is named ("door", "garage", "opener", "seal" ...).
    door_named: bool = False

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


class SymptomMatcher:
    """Matches descriptions against a diagnostic tree. Build once; `match` is read-only."""

    def __init__(self, tree: DiagnosticTree, stem: Stem | None = None) -> None:
        self._stem: Stem = stem or _same
        grammar = tree.grammar
        self._garage_words = frozenset(self._words(" ".join(grammar.garage_words)))
        self._comparisons = frozenset(self._words(" ".join(grammar.comparison_words)))
        self._articles = frozenset(self._words(" ".join(grammar.articles)))
        self._sources = frozenset(self._words(" ".join(grammar.source_words)))
        self._places = frozenset(self._words(" ".join(grammar.place_words)))
        self._owners = frozenset(self._words(" ".join(grammar.owner_words)))
        self._describing = tuple(grammar.describing_endings)
        self._filler = frozenset(tokens[0] for tokens in map(self._words, tree.filler_words) if len(tokens) == 1)
        self._single: dict[str, str] = {}
        # Multi-word forms -> canonical word; "" for a multi-word filler ("at all"), which is dropped.
        self._multi: dict[tuple[str, ...], str] = {}
        for filler in tree.filler_words:
            if len(tokens := tuple(self._words(filler))) > 1:
                self._multi[tokens] = ""
        for canonical, forms in tree.canonical_words.items():
            for form in [canonical, *forms]:
                tokens = tuple(self._words(form))
                if len(tokens) == 1:
                    self._single.setdefault(tokens[0], canonical)
                elif tokens:
                    self._multi.setdefault(tokens, canonical)
        self._door_words = self._markers(tree.door_words)
        self._other_subjects = self._markers(tree.other_subjects)
        self._enquiry_words = self._markers(tree.enquiry_words)
        self._bystanders = self._markers(tree.bystanders)
        self._carried_parts = self._markers(tree.carried_parts)
        self._door_context = frozenset(tree.door_context_words)
        self._faults = frozenset(tree.fault_words)
        # Other doors (the patio door, a car door): a bare "door" after one of them is that door.
        door_names = {word for word in self._words(" ".join(tree.door_words)) if word in self._filler}
        self._other_doors = self._markers([e for e in tree.other_subjects if door_names.intersection(self._words(e))])
        # First word -> the lengths of the multi-word forms it starts, longest first (most words start none).
        self._multi_sizes: dict[str, tuple[int, ...]] = {}
        for key in self._multi:
            self._multi_sizes[key[0]] = tuple(sorted({*self._multi_sizes.get(key[0], ()), len(key)}, reverse=True))

        self._phrase_words: frozenset[str] = frozenset()  # filled below, once the phrases are read
        patterns: list[Pattern] = []
        for symptom in tree.symptoms:
            for phrase in symptom.phrases:
                tokens = tuple(self._normalise(self._words(phrase), correct=False))
                if not tokens:
                    raise ValueError(f"phrase {phrase!r} of {symptom.key} has only filler words")
                patterns.append(Pattern(symptom, phrase, tokens))
        self._patterns = patterns
        self._phrase_words = frozenset(token for pattern in patterns for token in pattern.tokens)
        # First word -> (rank, pattern, remaining words, its two tests below worked out once), best-ranked first.
        self._by_first: dict[str, list[_Entry]] = {}
        for pattern in sorted(patterns, key=lambda p: p.rank, reverse=True):
            tokens = pattern.tokens
            # A one-word phrase of a word that tells a symptom only in a story about the door (`doorContextWords`).
            needs_door = len(tokens) == 1 and tokens[0] in self._door_context
            # A phrase that says nothing is wrong (no `faultWords`): no symptom of an enquiry.
            no_fault = bool(self._faults) and self._faults.isdisjoint(tokens)
            entry = (pattern.rank, pattern, tokens[1:], needs_door, no_fault)
            self._by_first.setdefault(tokens[0], []).append(entry)

        # Typo correction: every word the tree knows, mapped to its canonical form. Words of other subjects
        # and enquiries are known words, never corrected, but no typo is corrected into one either: "changes"
        # is not "charges", and "washers" (door hardware) is not a "washer".
        vocabulary = {token for p in patterns for token in p.tokens} | set(self._single)
        known = self._other_subjects | self._enquiry_words | self._door_words | self._filler
        known |= {word for entry in tree.known_words for word in self._words(entry)}
        spellings = {word: self._single.get(word, word) for word in vocabulary}
        self._speller = Speller(spellings, known, self._stem, shortest=4 if stem is None else 5)
        # Recent descriptions and their match: agents and widgets send the same few phrases again and again.
        self._recent: dict[str, list[Match]] = {}

    def _words(self, text: str) -> list[str]:
        """`words(text)`, each as its stem (the language's stemmer; English uses none)."""
        return [self._stem(word) for word in words(text)]

    def _markers(self, entries: list[str]) -> frozenset[str]:
        """The canonical tokens that `entries` become (a multi-word entry no form covers becomes one token)."""
        markers = set()
        for entry in entries:
            tokens = tuple(self._words(entry))
            if len(tokens) == 1:
                markers.add(self._single.get(tokens[0], tokens[0]))
            elif tokens:
                markers.add(self._multi.setdefault(tokens, " ".join(tokens)))
        return frozenset(markers)

    @property
    def patterns(self) -> Sequence[Pattern]:
        return self._patterns

    def _normalise(self, tokens: list[str], *, correct: bool) -> list[str]:
        return self._read(tokens, correct=correct).tokens

    def _read(self, tokens: list[str], *, correct: bool) -> Reading:
        if correct:
            tokens = [self._speller.read(t) for t in tokens]
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
                    if canonical and not (canonical in self._other_subjects and self._compared(tokens, i)):
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
                    if self._compared(tokens, i - 1):
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
            door_named=named or self._names_a_loose_door_word(out),
        )

    def _names_the_door(self, name: str, out: list[str], tokens: list[str], after: int, owned: bool) -> bool:
        """Whether "garage" or "door", just read (the raw words continue at `after`), names the garage door.

        Not "garage" right before another thing or after "in" or "of" (where it is: "the garage fridge", "a night in
        the freezing garage"; "the garage won't open" names the door), nor "door" right after
        another thing (`owned`, its door: "the freezer door") or after another door was named ("the shed
        door hinge broke and the door hangs crooked")."""
        if name in self._garage_words:
            if after < len(tokens) and self._single.get(tokens[after], tokens[after]) in self._door_words:
                return True  # "garage door", "garage remote"
            where = self._places | self._owners  # "in the garage", "el piso de la cochera"
            return not (self._subject_starts(tokens, after) or _follows(tokens, after - 1, where))
        return not (owned or self._part_of_another(tokens, after - 1) or self._owned_after(tokens, after)) and (
            self._other_doors.isdisjoint(out)
        )

    def _part_of_another(self, tokens: list[str], at: int) -> bool:
        """Whether the door word at raw word `at` only says whose another thing is ("the lock on the door",
        "la chapa de la puerta"): an owner word, then another thing, stand right before it."""
        before = at - 1
        while before >= 0 and tokens[before] in self._articles:
            before -= 1
        if before < 1 or tokens[before] not in self._owners:
            return False
        return self._single.get(tokens[before - 1], tokens[before - 1]) in self._other_subjects

    def _owned_after(self, tokens: list[str], after: int) -> bool:
        """Whether the door word before raw word `after` is another thing's, named after it ("la puerta de la
        cocina", "the door of the shed")."""
        if after >= len(tokens) or tokens[after] not in self._owners:
            return False
        after += 1
        while after < len(tokens) and tokens[after] in self._articles:
            after += 1
        return self._subject_starts(tokens, after)

    def _governs(self, tokens: list[str], start: int, out: list[str]) -> bool:
        """Whether another thing named at raw word `start` is the subject from the start: a sound or a leak
        comes from it ("heard a bang from the old fridge"), or the description opens with it and one symptom
        word describing it ("a leaking window", "noisy fridge in the garage")."""
        if _follows(tokens, start, self._sources):
            return True
        describing = len(out) == 1 and start > 0 and tokens[start - 1].endswith(self._describing)
        return describing and out[0] in self._phrase_words

    def _compared(self, tokens: list[str], start: int) -> bool:
        """Whether the words at `start` follow a comparison word ("like a ..."), so they name no subject."""
        before = start - 1
        if before >= 0 and tokens[before] in self._articles:
            before -= 1
        return before >= 0 and tokens[before] in self._comparisons

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
                if self._names_a_loose_door_word(tokens):
                    return None
            return 0 if at in governing else at
        return None

    def _names_a_loose_door_word(self, tokens: list[str]) -> bool:
        """Whether some door part among `tokens` belongs to no other thing (`_loose_door_word` at any place)."""
        if self._door_words.isdisjoint(tokens):  # most texts name none, or "door" once: no call for each word
            return False
        return any(self._loose_door_word(tokens, at) for at, token in enumerate(tokens) if token in self._door_words)

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
        found = self.matches(text)
        return found[0] if found else None

    def matches(self, text: str) -> list[Match]:
        """Every symptom `text` names, the best match first (see `_matches`); empty when none matches."""
        try:
            return self._recent[text]
        except KeyError:
            pass
        found = self._matches(text)
        if len(self._recent) >= RECENT_MATCHES:
            self._recent.clear()  # bounded, and cheap: a cleared cache refills with what is asked now
        self._recent[text] = found
        return found

    def _matches(self, text: str) -> list[Match]:
        """Every symptom the story names, each at its best match, ranked as the best is chosen: the longest
        phrase, then the priority, then the tightest ("it squeaks, and now it won't close": won't close, then the
        noise). A symptom whose words lie inside another's match is none of its own ("loud" in "loud bang")."""
        reading = self.read(text)
        tokens = reading.tokens
        door_named, enquiry = reading.door_named, reading.enquiry
        # Where each word stands: most phrases that start with a word of the text fail at their second word, which
        # the text does not hold; this tells them without a look through the words after the first.
        places: dict[str, list[int]] = {}
        for at, token in enumerate(tokens):
            places.setdefault(token, []).append(at)
        # Per symptom: ((words matched, priority, minus words skipped), pattern, first, last token).
        best: dict[str, tuple[tuple[int, int, int], Pattern, int, int]] = {}
        for start, token in enumerate(tokens):
            for (size, priority), pattern, rest, needs_door, no_fault in self._by_first.get(token, ()):
                if needs_door and not door_named:
                    continue  # "will it rain tomorrow": rain is the seal's only in a story about the door
                if enquiry and no_fault:
                    continue  # "how do I program a new remote" asks about a part, and reports nothing wrong
                if not rest:
                    skipped: int | None = 0  # a one-word phrase skips nothing
                elif rest[0] not in places:
                    continue
                else:
                    skipped = _skipped_at(tokens, places, start, rest)
                if skipped is None:
                    continue
                rank = (size, priority, -skipped)
                current = best.get(pattern.symptom.key)
                if current is None or rank > current[0]:
                    best[pattern.symptom.key] = (rank, pattern, start, start + size - 1 + skipped)
        ranked = sorted(best.values(), key=lambda found: found[0], reverse=True)
        if not ranked or (reading.subject_at is not None and reading.subject_at <= ranked[0][2]):
            return []  # "the freezer in the garage hums": another thing is the subject, whatever the words
        spans = word_spans(text)
        chosen: list[Match] = []
        taken: list[tuple[int, int]] = []
        for (size, _, _), pattern, first, last in ranked:
            if any(first <= end and start <= last for start, end in taken):
                continue  # its words are another symptom's ("loud" inside "loud bang")
            if reading.subject_at is not None and reading.subject_at <= first:
                continue
            taken.append((first, last))
            first_word, end_word = reading.origins[first][0], reading.origins[last][1]
            span = (spans[first_word][0], spans[end_word - 1][1]) if end_word <= len(spans) else None
            chosen.append(Match(pattern.symptom, pattern.phrase, size, span))
        return chosen

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
#: The canonical directions of travel: a phrase's words never reach across one.
DIRECTIONS = frozenset({"open", "close"})

#: How many raw words before a thing a source ("from") or a place ("in") word may stand.
_REACH = 3


def _follows(tokens: list[str], start: int, words: frozenset[str]) -> bool:
    """Whether one of `words` is among the few raw words before `start` ("from the old fridge")."""
    return not words.isdisjoint(tokens[max(0, start - _REACH) : start])


def _skipped_at(tokens: list[str], places: dict[str, list[int]], start: int, rest: tuple[str, ...]) -> int | None:
    """How many words are skipped when `rest` follows tokens[start] in order, each within MAX_GAP words of
    the previous and no direction skipped (None when it does not follow). `places`: where each word of `tokens`
    stands, in order."""
    position = start
    skipped = 0
    for word in rest:
        after = -1  # the word's first place after `position`, if it is near enough
        for at in places.get(word, ()):
            if at > position:
                after = at if at <= position + MAX_GAP + 1 else -1
                break
        if after < 0:
            return None
        gap = after - position - 1
        if gap and not DIRECTIONS.isdisjoint(tokens[position + 1 : after]):
            return None  # "won't [go down, stays] open": the negation belongs to the direction skipped
        skipped += gap
        position = after
    return skipped


def _same(word: str) -> str:
    return word
