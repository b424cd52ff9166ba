"""The pages' words in each language, over the gettext catalogs (`garage_tools.catalogs`): the JSON words files
the pages and their scripts share, their Babel extractor, and days named per language."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

from garage_tools.catalogs import LOCALES, catalog_path, short_day, translations
from garage_tools.languages import DEFAULT, N_

__all__ = ["LOCALES", "N_", "catalog_path", "extract_words", "short_day", "translate_words", "translations"]


#: A JSON words file's keys that are notes for people, not words a page shows.
_NOT_SHOWN = frozenset({"about", "$schema"})


def translate_words(words: Any, language: str) -> Any:
    """A JSON words file (such as the result cards' `results-words.json`) in `language`: every string it
    shows looked up in the gettext catalog (its English is the message id), keys and notes left as they are.
    The browser's copy of the cards (results.js) receives these same words, so both renderings agree."""
    if language == DEFAULT:
        return words
    gettext = translations(language).gettext

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return gettext(value) if value else value
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, dict):
            return {key: item if key in _NOT_SHOWN else walk(item) for key, item in value.items()}
        return value

    return walk(words)


def extract_words(
    fileobj: IO[bytes], keywords: object, comment_tags: object, options: object
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """A Babel extraction method for JSON words files (babel.cfg): each string a page shows, with its line.

    With the option `keys` (names separated by spaces), only the strings under those keys are words: a data
    file such as the photo manifest also holds ids and file names."""
    text = fileobj.read().decode("utf-8")
    lines = text.splitlines()
    chosen = options.get("keys", "").split() if isinstance(options, dict) else []

    def strings(value: Any, shown: bool) -> Iterator[str]:
        if isinstance(value, str):
            if shown:
                yield value
        elif isinstance(value, list):
            for item in value:
                yield from strings(item, shown)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in _NOT_SHOWN:
                    yield from strings(item, key in chosen if chosen else shown)

    for message in strings(json.loads(text), not chosen):
        if not message:
            continue
        quoted = json.dumps(message, ensure_ascii=False)
        line = next((number for number, row in enumerate(lines, 1) if quoted in row), 1)
        yield line, None, message, []
