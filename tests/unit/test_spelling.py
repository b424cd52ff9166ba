"""How the matchers read a description's words: where each word stands, and each word read once.

`word_spans` finds the words with one expression when lower-casing keeps every character one character (nearly
every text), and walks the text a character at a time only when it does not ("İ" lower-cases to two). These
tests hold both ways to the rule as written, and show which way a text takes.
"""

from __future__ import annotations

import random

import pytest

from garage_tools.knowledge import spelling
from garage_tools.knowledge.spelling import MAX_REMEMBERED, Speller, word_spans, words


def spans_by_the_rule(text: str) -> list[tuple[int, int]]:
    """The rule, spelled out: drop apostrophes, lower-case, fold accents, find the words, and give each the
    offsets of its first and last character in `text`."""
    kept = [
        (lowered, index)
        for index, char in enumerate(text)
        if char not in spelling._APOSTROPHE_MARKS
        for lowered in char.lower()
    ]
    folded = "".join(char for char, _ in kept).translate(spelling._ACCENTS)
    return [(kept[found.start()][1], kept[found.end() - 1][1] + 1) for found in spelling._WORD.finditer(folded)]


TEXTS = [
    "My door won't close",
    "'quoted' words, and door's spring''s",
    "it\u2019s stuck \u2018halfway\u2019 and \u00b4odd` marks",
    "La puerta no cierra, ¡hace un ruido FUERTE!",
    "el portón está atascado",
    "KELVIN \u212a and STRAẞE",  # lower-case to one character each
    "İstanbul door won't open",  # "İ" lower-cases to two characters
    "x ' y '' z'",
    "",
]


@pytest.mark.parametrize("text", TEXTS)
def test_each_word_is_found_where_it_stands(text: str) -> None:
    spans = word_spans(text)
    assert spans == spans_by_the_rule(text)
    assert len(spans) == len(words(text))


def test_any_mix_of_letters_marks_and_accents_follows_the_rule() -> None:
    generator = random.Random(25)
    alphabet = "ab Z9'`\u2019\u2018\u00b4éÑüİßẞ-.,\tK\u212a"
    for _ in range(5000):
        text = "".join(generator.choice(alphabet) for _ in range(generator.randint(0, 12)))
        assert word_spans(text) == spans_by_the_rule(text), text


class _NoWalk:
    def finditer(self, text: str) -> None:
        raise AssertionError("the text was walked a character at a time")


def test_a_text_that_lower_cases_one_for_one_is_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path: the character walk's expression is gone, and these texts never miss it."""
    monkeypatch.setattr(spelling, "_WORD", _NoWalk())
    assert word_spans("My door won't close") == [(0, 2), (3, 7), (8, 13), (14, 19)]
    assert word_spans("el portón está atascado") == [(0, 2), (3, 9), (10, 14), (15, 23)]
    with pytest.raises(AssertionError, match="walked"):
        word_spans("İstanbul")


def _speller(stem: spelling.Stem) -> Speller:
    return Speller({"close": "close", "spring": "spring"}, [], stem)


def test_a_word_read_once_is_not_stemmed_again() -> None:
    stemmed: list[str] = []

    def stem(word: str) -> str:
        stemmed.append(word)
        return word.removesuffix("s")

    speller = _speller(stem)
    assert [speller.read(word) for word in ["springs", "closes", "springs", "cloooses", "closes"]] == [
        "spring",
        "close",
        "spring",
        "close",
        "close",
    ]
    assert stemmed == ["springs", "closes", "clooses", "closes"]  # a stretched word: each way it may be spelt


def test_the_words_remembered_are_bounded() -> None:
    speller = _speller(lambda word: word)
    for n in range(MAX_REMEMBERED + 10):
        speller.read(f"word{n}")
    assert len(speller._read) <= MAX_REMEMBERED
    assert speller.read("springs") == "spring"  # corrected (one letter more) though the memory is full
