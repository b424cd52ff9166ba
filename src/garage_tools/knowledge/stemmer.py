"""Snowball stemmers (PyStemmer), for lab retrieval and for diagnose in languages that need one.

Homeowners ask "why do springs break in winter?" and the labs say "a spring breaking in cold weather":
retrieval matches word stems, not word forms. `stem` is Snowball's "porter", the published 1980 Porter
algorithm, which measured equal to the hand-written one it replaced and a little better than Porter2
("english") on the held-out lab questions (bench/stemmers.py, docs/benchmarks.md). Spanish diagnosis
stems with Snowball's "spanish" (`stemmer`, named in diagnostic_words.es.json).

A PyStemmer object is not safe to share between threads, so each thread gets its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import lru_cache

import Stemmer

#: The algorithm lab retrieval stems with.
LAB_ALGORITHM = "porter"

_local = threading.local()


def _stem_word(algorithm: str, word: str) -> str:
    stemmers: dict[str, Stemmer.Stemmer] = _local.__dict__.setdefault("stemmers", {})
    found = stemmers.get(algorithm)
    if found is None:
        found = stemmers[algorithm] = Stemmer.Stemmer(algorithm)
    result: str = found.stemWord(word)
    return result


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """The Porter stem of a lower-case word (lab retrieval)."""
    return _stem_word(LAB_ALGORITHM, word)


@lru_cache(maxsize=8)
def stemmer(algorithm: str | None) -> Callable[[str], str] | None:
    """A stem function for a Snowball `algorithm` ("spanish"), cached per word; None for no stemming."""
    if algorithm is None:
        return None
    Stemmer.Stemmer(algorithm)  # an unknown algorithm fails here, at start-up, not on the first description

    @lru_cache(maxsize=16384)
    def stem_word(word: str) -> str:
        return _stem_word(algorithm, word)

    return stem_word
