"""The console's words with values in them, said in the language of the page that shows them.

A constant is marked with `N_` where it is defined and its template says `{{ _(words) }}`. A sentence that
names a value (a limit, a year) is a `garage_tools.languages.Phrase`, which a page says in its language with
`{{ say(words) }}` (`partners/_say.html`). Nothing here picks a language: the page does, so the console's words
follow the page however it is chosen.
"""

from __future__ import annotations

from garage_tools.web.translations import translations


def refresh_words(seconds: float, language: str) -> str:
    """How soon a change in the console reaches homeowners, in `language`: "5 minutes", "30 seconds"."""
    _ = translations(language).gettext
    if seconds >= 120:
        return _("{count} minutes").format(count=f"{seconds / 60:g}")
    return _("a second") if seconds <= 1 else _("{count} seconds").format(count=f"{seconds:g}")
