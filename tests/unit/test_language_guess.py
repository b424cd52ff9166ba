"""Which language a description is in: the most words only that language uses, a hint on a tie, else English.

`LanguageGuesser.ranked` answers the two common cases (one language's words, or none) without ranking every
language; these tests hold every case to the rule as written, including a third language the real data lacks.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from garage_tools.knowledge.languages import ENGLISH, LanguageGuesser
from garage_tools.knowledge.loader import Knowledge
from garage_tools.knowledge.spelling import words

SIGNATURES = {
    "en": frozenset({"door", "loud", "bang", "stuck", "the", "spring"}),
    "es": frozenset({"puerta", "ruido", "fuerte", "atascada", "la", "resorte"}),
    "fr": frozenset({"porte", "bruit", "fort", "coincee", "la", "ressort"}),  # "la" is no one's own word
}


def by_the_rule(signatures: dict[str, frozenset[str]], text: str, hints: Sequence[str]) -> list[str]:
    """The rule, spelled out: each language's own words counted, most first, then the hints' order, then English."""
    own = {
        lang: sig - frozenset().union(*(other for code, other in signatures.items() if code != lang))
        for lang, sig in signatures.items()
    }
    scores = {lang: sum(word in words_ for word in words(text)) for lang, words_ in own.items()}
    order = sorted(
        scores,
        key=lambda lang: (-scores[lang], hints.index(lang) if lang in hints else len(hints), lang != ENGLISH),
    )
    return [order[0], *(lang for lang in order[1:] if scores[lang])]


TEXTS = [
    "my door makes a loud bang",  # one language
    "la puerta hace un ruido fuerte",
    "la porte fait un bruit fort",
    "the door está atascada",  # two, English ahead
    "la puerta de la door",  # a tie between two
    "door puerta porte",  # a tie between three
    "la la la",  # no language's own words
    "",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("hints", [(), ("es",), ("fr", "es"), ("de",), ("de", "fr")])
def test_every_case_follows_the_rule(text: str, hints: tuple[str, ...]) -> None:
    guesser = LanguageGuesser(SIGNATURES)
    assert guesser.ranked(text, hints) == by_the_rule(SIGNATURES, text, hints)


def test_the_common_cases_name_one_language(knowledge: Knowledge) -> None:
    guesser = knowledge.guesser
    assert guesser.ranked("my door makes a loud bang", ["es"]) == ["en"]
    assert guesser.ranked("la puerta hace un ruido muy fuerte", ["en"]) == ["es"]
    assert guesser.ranked("123 456", ["es"]) == ["es"]  # no words of either: the hint
    assert guesser.ranked("123 456") == ["en"]


WORD_TEXTS = [
    "My door won't close",
    "door`s spring",  # a backtick typed as an apostrophe
    "La puerta no cierra, ¡hace un ruido FUERTE!",
    "el portón está atascado",
    "it\u2019s stuck \u2018halfway\u2019",  # curly apostrophes: not ASCII
    "KELVIN \u212a",  # lower-cases to an ASCII "k"
    "",
]


@pytest.mark.parametrize("text", WORD_TEXTS)
def test_words_fold_case_accents_and_apostrophes_one_way(text: str) -> None:
    from garage_tools.knowledge import spelling

    assert words(text) == spelling._WORD.findall(text.lower().translate(spelling._FOLDED))


def test_an_ascii_text_is_read_without_the_folding_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path: an ASCII text never reaches `str.translate` (a table that would garble it shows it)."""
    from garage_tools.knowledge import spelling

    monkeypatch.setattr(spelling, "_FOLDED", {ord(c): "x" for c in "abcdefghijklmnopqrstuvwxyz'ó"})
    assert words("My door won't close") == ["my", "door", "wont", "close"]
    assert words("el portón") == ["xx", "xxxxxx"]  # not ASCII: the table is used


def test_a_repeated_text_is_ranked_from_its_remembered_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path: a text read once is not read again (a `words` that fails shows it), and the hints still
    settle its ties call by call, since only the counted words are remembered."""
    from garage_tools.knowledge import languages

    guesser = LanguageGuesser(SIGNATURES)
    first = {hints: guesser.ranked("la puerta de la door", hints) for hints in [(), ("es",), ("fr", "es")]}

    def unread(text: str) -> list[str]:
        raise AssertionError(f"{text!r} was read again")

    monkeypatch.setattr(languages, "words", unread)
    for hints, ranked in first.items():
        assert (
            guesser.ranked("la puerta de la door", hints)
            == ranked
            == by_the_rule(SIGNATURES, "la puerta de la door", hints)
        )
    with pytest.raises(AssertionError, match="read again"):
        guesser.ranked("a text not seen before")


def test_the_remembered_texts_are_bounded() -> None:
    from garage_tools.knowledge.languages import RECENT_TEXTS

    guesser = LanguageGuesser(SIGNATURES)
    for n in range(RECENT_TEXTS + 10):
        assert guesser.ranked(f"door {n}") == ["en"]
    assert len(guesser._recent) <= RECENT_TEXTS
