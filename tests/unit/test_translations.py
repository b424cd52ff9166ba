"""The pages' translations: every catalog complete, the template of catalogs current, the language chosen right."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from garage_tools.languages import SUPPORTED, choose, from_accept_language, supported
from garage_tools.web.results import load_words
from garage_tools.web.translations import LOCALES, catalog_path, translate_words, translations

ROOT = Path(__file__).parents[2]
SOURCE_LANGUAGE = "en"


def singular(message_id: str | tuple[str, ...]) -> str:
    """A message's id: a plural message (ngettext) is named by its singular, as the extractor names it."""
    return message_id if isinstance(message_id, str) else message_id[0]


def texts(value: str | tuple[str, ...]) -> str:
    """Every form of a message or its translation, joined, so each placeholder is looked for in all of them."""
    return value if isinstance(value, str) else "\n".join(value)


def template_ids() -> set[str]:
    with (LOCALES / "messages.pot").open("rb") as source:
        return {singular(message.id) for message in read_po(source) if message.id}


@pytest.mark.parametrize("language", [language for language in SUPPORTED if language != SOURCE_LANGUAGE])
def test_every_message_is_translated(language: str) -> None:
    with catalog_path(language).open("rb") as source:
        catalog = read_po(source, locale=language)
    untranslated = [m.id for m in catalog if m.id and (not m.string or m.fuzzy or not all(m.string))]
    assert untranslated == [], f"{language}: translate these in {catalog_path(language)}"
    placeholders = re.compile(r"\{\w+\}")  # results.js and `fill` put values in `{name}`: each must survive
    lost = [
        m.id
        for m in catalog
        if m.id and set(placeholders.findall(texts(m.id))) != set(placeholders.findall(texts(m.string)))
    ]
    assert lost == [], f"{language}: these translations lose or invent a placeholder"
    counts = re.compile(r"%\(\w+\)d")  # a plural's count: each form says the number
    uncounted = [m.id for m in catalog if isinstance(m.id, tuple) and any(not counts.search(form) for form in m.string)]
    assert uncounted == [], f"{language}: a plural form lost its number"
    assert {singular(m.id) for m in catalog if m.id} == template_ids(), "run `make messages`"


def test_the_template_of_catalogs_holds_every_marked_text() -> None:
    with (ROOT / "babel.cfg").open(encoding="utf-8") as config:  # what `make messages` extracts, as it reads it
        method_map, options = parse_mapping_cfg(config)
    found = {singular(message[2]) for message in extract_from_dir(str(ROOT), method_map, options_map=options)}
    assert found == template_ids(), "text was marked or unmarked for translation: run `make messages`"


def test_a_catalog_translates_at_run_time() -> None:
    assert translations("es").gettext("Get help") == "Obtener ayuda"
    assert translations("en").gettext("Get help") == "Get help"


def test_the_cards_words_are_translated_and_their_notes_and_placeholders_kept() -> None:
    english = load_words()
    spanish = translate_words(english, "es")
    assert spanish["about"] == english["about"] and spanish.keys() == english.keys()
    assert spanish["likelyTitle"] == "Lo más probable: {issue}"
    assert spanish["errors"]["describe"] != english["errors"]["describe"]
    assert translate_words(english, "en") is english


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("es-MX,es;q=0.9,en;q=0.8", "es"),
        ("en-US,en;q=0.9,es;q=0.8", "en"),
        ("fr-FR,fr;q=0.9,es;q=0.5", "es"),  # the first language we have
        ("es;q=0.2,en;q=0.9", "en"),  # q-values, not order
        ("de,fr", None),
        ("es;q=0", None),  # "not Spanish"
        ("es;q=abc", None),
        ("", None),
    ],
)
def test_accept_language(header: str, expected: str | None) -> None:
    assert from_accept_language(header) == expected


def test_an_explicit_choice_beats_the_cookie_which_beats_the_browser() -> None:
    assert choose("en", "es", "es") == "en"
    assert choose(None, "es", "en") == "es"
    assert choose("xx", None, "es-419") == "es"
    assert choose(None, "zz", "") == "en"
    assert supported("ES_us") == "es"
