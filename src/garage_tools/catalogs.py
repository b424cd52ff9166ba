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
