"""Words as the matchers read them: folded (case, accents, apostrophes), unstretched and typo-corrected.

Single-word typos are corrected against a vocabulary (one edit for words of five letters or more, a
swapped pair of letters or a letter left out for four-letter words), never changing the first letter:
people rarely mistype it, and a first letter changed turns everyday words into symptom words ("house"
into "mouse", "right" into "light"). A stretched word ("squeeeeals", "rechinaaa") is read as the known
word it shortens to.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

_WORD = re.compile(r"[a-z0-9]+")
_APOSTROPHE_MARKS = "'\u2019\u2018`\u00b4"
_APOSTROPHES = str.maketrans("", "", _APOSTROPHE_MARKS)
#: Accented letters folded to their base letter, one character for one (so offsets stay true): people type
#: "porton" for "portón" as often as not.
_ACCENTS = str.maketrans("áàâäãéèêëíìîïóòôöõúùûüñç", "aaaaaeeeeiiiiooooouuuunc")
#: Both at once, for `words`: one pass over the text instead of two (no apostrophe is an accented letter).
_FOLDED = {**_APOSTROPHES, **_ACCENTS}
#: All `_FOLDED` does to an ASCII text: drop these. `str.translate` with a table looks up every character
#: (1.4 µs for a 25-character text); two `in` tests and a rare `replace` cost a tenth of that.
_ASCII_APOSTROPHES = tuple(mark for mark in _APOSTROPHE_MARKS if mark.isascii())
#: A letter said three times or more: "squeeeeals", "rechinaaa".
_STRETCHED = re.compile(r"([a-z])\1{2,}")
#: How many corrections a speller remembers: the cache must not grow with arbitrary input.
MAX_REMEMBERED = 10_000

Stem = Callable[[str], str]


def words(text: str) -> list[str]:
    """Lower-case words, accents folded, apostrophes removed inside words (won't -> wont)."""
    folded = text.lower()
    if folded.isascii():  # most texts: no accent to fold, only ASCII apostrophes to drop
        for mark in _ASCII_APOSTROPHES:
            if mark in folded:
                folded = folded.replace(mark, "")
    else:
        folded = folded.translate(_FOLDED)
    return _WORD.findall(folded)


#: A word of `words` as it stands in a text lower-cased character for character, accents folded: letters and
#: digits, with any apostrophes between them (they are dropped inside a word, so they join its parts).
_WORD_WITH_APOSTROPHES = re.compile(f"[a-z0-9]+(?:[{_APOSTROPHE_MARKS}]+[a-z0-9]+)*")


def word_spans(text: str) -> list[tuple[int, int]]:
    """Where each of `words(text)` is in `text`: (start, end) character offsets, apostrophes included."""
    lowered = text.lower()
    if len(lowered) == len(text):  # each character lower-cased to one (nearly every text): offsets stay true
        folded = lowered if lowered.isascii() else lowered.translate(_ACCENTS)
        return [found.span() for found in _WORD_WITH_APOSTROPHES.finditer(folded)]
    # A character that lower-cases to two ("İ"): map each kept character back to where it stands. This walks
    # the text a character at a time, four to five times the expression's cost.
    kept = [
        (lowered, index) for index, char in enumerate(text) if char not in _APOSTROPHE_MARKS for lowered in char.lower()
    ]
    folded = "".join(char for char, _ in kept).translate(_ACCENTS)
    return [(kept[found.start()][1], kept[found.end() - 1][1] + 1) for found in _WORD.finditer(folded)]


def unstretched(word: str) -> list[str]:
    """The ways a stretched word may have been spelt ("squeeeeals" -> squeels, squels), else []."""
    if not _STRETCHED.search(word):
        return []
    return [_STRETCHED.sub(r"\1\1", word), _STRETCHED.sub(r"\1", word)]


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


class Speller:
    """Corrects a word to the vocabulary word (mapped to its canonical form) it is one typo away from."""

    def __init__(self, vocabulary: dict[str, str], known: Iterable[str], stem: Stem, *, shortest: int = 4) -> None:
        """`shortest`: the shortest word corrected (stems are short, and four letters of a stem say little)."""
        self._vocabulary = vocabulary
        self._stem = stem
        self._shortest = shortest
        self._deletes: dict[str, set[str]] = {}
        for word in vocabulary:
            if len(word) >= 4:
                for variant in _deletes(word):
                    self._deletes.setdefault(variant, set()).add(word)
        # Every word seen so far and what it corrects to (vocabulary words map to themselves). Known words
        # are never corrected, and no typo is corrected into one either.
        self._corrections: dict[str, str] = {word: word for word in vocabulary}
        for word in known:
            self._corrections.setdefault(word, word)
        #: Every raw word read so far -> what `read` made of it (bounded as `_corrections`). People use few words,
        #: and a new description is mostly words read before: unstretching and stemming one took 1.3 µs.
        self._read: dict[str, str] = {}

    def knows(self, word: str) -> bool:
        return word in self._corrections

    def read(self, raw: str) -> str:
        """The stem of `raw` as the vocabulary spells it: unstretched first ("loooud" -> loud), then corrected."""
        found = self._read.get(raw)
        if found is None:
            found = self._read_afresh(raw)
            if len(self._read) < MAX_REMEMBERED:
                self._read[raw] = found
        return found

    def _read_afresh(self, raw: str) -> str:
        variants = [self._stem(variant) for variant in unstretched(raw)]
        for variant in variants:
            if variant in self._corrections:
                return self._corrections[variant]
        return self.correct(variants[0] if variants else self._stem(raw))

    def correct(self, token: str) -> str:
        fixed = self._corrections.get(token)
        if fixed is not None:
            return fixed
        if token in self._vocabulary or len(token) < self._shortest or token.isdigit():
            return token
        candidates = {c for v in _deletes(token) for c in self._deletes.get(v, ())}
        if len(token) == 4:  # two letters swapped, or one left out ("stuk")
            close = sorted(c for c in candidates if _is_swap(token, c) or (len(c) == 5 and _within_one_edit(token, c)))
        else:
            close = sorted(c for c in candidates if len(c) >= 4 and _within_one_edit(token, c))
        close = [c for c in close if _same_start(token, c)]
        targets = {self._vocabulary[c] for c in close}
        # Only correct when the typo points at one meaning; otherwise leave it alone.
        corrected = targets.pop() if len(targets) == 1 else token
        if len(self._corrections) < MAX_REMEMBERED:
            self._corrections[token] = corrected
        return corrected
