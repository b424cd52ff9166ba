"""The pages' words in each language, over the gettext catalogs (`garage_tools.catalogs`): the JSON words files
the pages and their scripts share, their Babel extractor, and days named per language."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

from garage_tools.catalogs import LOCALES, NOT_SHOWN, catalog_path, short_day, translate_words, translations
from garage_tools.languages import N_

__all__ = ["LOCALES", "N_", "catalog_path", "extract_words", "short_day", "translate_words", "translations"]


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
                if key not in NOT_SHOWN:
                    yield from strings(item, key in chosen if chosen else shown)

    for message in strings(json.loads(text), not chosen):
        if not message:
            continue
        quoted = json.dumps(message, ensure_ascii=False)
        line = next((number for number, row in enumerate(lines, 1) if quoted in row), 1)
        yield line, None, message, []
