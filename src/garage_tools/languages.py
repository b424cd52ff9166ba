"""Which language a person reads: their explicit choice, else what their browser asks for, else English.

One rule for every surface: the pages (`?lang=es`, remembered in a cookie), and later the widget
(`data-lang`) and the tools (an optional `lang` argument and the language detected in a description).
The tags are the primary subtags of BCP 47; the first is the default.
"""

from __future__ import annotations

from collections.abc import Callable

SUPPORTED = ("en", "es")
DEFAULT = SUPPORTED[0]
#: The cookie that remembers a person's explicit choice, and the query parameter that makes it.
COOKIE = "lang"
PARAMETER = "lang"


def N_(text: str) -> str:
    """Mark `text` for the gettext catalog where it is defined; it is translated where it is shown.

    Here, at the bottom of the layers, so data-minded modules (imaging, knowledge) can mark words too."""
    return text


class Phrase(str):
    """English words with values in `{name}` slots, said in the reader's language where they are shown.

    It reads as its English (logs, tests, a `str` anywhere), and keeps its message id (marked with `N_` where it
    is written) and values, so a page, an e-mail or a tool answer says it in another language: `said(gettext)`,
    or in a template `_(phrase.message).format(**phrase.values)`. One type for every layer's such sentences: a
    photo check's advice, a console form's refusal, a refused webhook address."""

    message: str
    values: dict[str, object]

    def __new__(cls, message: str, **values: object) -> Phrase:
        phrase = super().__new__(cls, message.format(**values))
        phrase.message, phrase.values = message, values
        return phrase

    def said(self, gettext: Callable[[str], str] | None = None) -> str:
        """The phrase in the language `gettext` translates into (English without one)."""
        return gettext(self.message).format(**self.values) if gettext is not None else str(self)


def supported(tag: str | None) -> str | None:
    """The supported language a tag names (`es-MX` → `es`), or None."""
    if not tag:
        return None
    primary = tag.strip().split("-", 1)[0].split("_", 1)[0].lower()
    return primary if primary in SUPPORTED else None


def from_accept_language(header: str) -> str | None:
    """The supported language the browser prefers most (RFC 9110 §12.5.4: q-values, then order), or None."""
    if not header:  # most API calls send none: every tool call asks (`Services.tool_context`)
        return None
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        language = supported(tag)
        if language is not None and quality > 0:
            ranked.append((-quality, position, language))
    return min(ranked)[2] if ranked else None


def choose(explicit: str | None, remembered: str | None, accept_language: str) -> str:
    """The language to answer in: an explicit choice, a remembered one, the browser's, else the default."""
    return supported(explicit) or supported(remembered) or from_accept_language(accept_language) or DEFAULT
