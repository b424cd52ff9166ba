"""The service's words in each language: gettext catalogs (`locales/<lang>/LC_MESSAGES/messages.po`) via Babel,
for the pages (web/translations.py) and the e-mails people read.

The `.po` files are the source, edited by translators and kept in the repository; they are compiled in
memory when first needed (a few milliseconds), so no generated `.mo` file is ever committed or forgotten.
`make messages` extracts new text from the templates and the web modules and merges it into every catalog.
"""

from __future__ import annotations

import gettext
from datetime import date
from functools import lru_cache
from io import BytesIO
from pathlib import Path
from typing import Any

from babel.dates import format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from garage_tools.languages import DEFAULT, SUPPORTED

LOCALES = Path(__file__).parent / "locales"
DOMAIN = "messages"


def catalog_path(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@lru_cache(maxsize=len(SUPPORTED))
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalog of `language`; the source language (English) needs none."""
    if language == DEFAULT:
        return gettext.NullTranslations()
    with catalog_path(language).open("rb") as source:
        catalog = read_po(source, locale=language, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)  # an unreviewed (fuzzy) translation shows the English
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def short_day(day: date, language: str) -> str:
    """A day as a short label in `language`: "Tue 1 Dec", "mar 1 dic" (Babel's CLDR names)."""
    return format_date(day, "EEE d MMM", locale=language)


#: A JSON words file's keys that are notes for people, not words a page shows.
NOT_SHOWN = frozenset({"about", "$schema"})


def translate_words(words: Any, language: str) -> Any:
    """A JSON words file (such as the result cards' `results-words.json`) in `language`: every string it
    shows looked up in the gettext catalog (its English is the message id), keys and notes left as they are.
    The browser's copy of the cards (results.js, the widget, the MCP App views) receives these same words, so
    every rendering agrees."""
    if language == DEFAULT:
        return words
    gettext = translations(language).gettext

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return gettext(value) if value else value
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, dict):
            return {key: item if key in NOT_SHOWN else walk(item) for key, item in value.items()}
        return value

    return walk(words)
