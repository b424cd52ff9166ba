"""Rendering pages: one Jinja2 environment, one base layout, and the headers every page carries."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from garage_tools import __version__
from garage_tools.headers import RequestHeaders
from garage_tools.languages import COOKIE, PARAMETER, SUPPORTED, choose, supported
from garage_tools.web.results import FILTERS
from garage_tools.web.translations import short_day, translations

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"

#: Pages of the service (not the labs, which are made to be embedded) may not be framed, and load
#: nothing from other origins.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}

#: How long the switcher's choice of language is remembered.
LANGUAGE_COOKIE_SECONDS = 365 * 24 * 3600


def _site_contact(request: Request | None) -> Any:
    """The operator's contact (web/about.py `Contact`) of the app serving `request`, for every page's footer."""
    app = request.scope.get("app") if request is not None else None
    return getattr(getattr(app, "state", None), "contact", None)


def _environment(language: str) -> Environment:
    """The templates in one language: Jinja2's i18n extension over that language's gettext catalog."""
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html", "xml"]),
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    environment.globals.update(version=__version__, lang=language, site_contact=_site_contact)
    environment.filters.update(FILTERS)  # the shared result cards format as results.js does
    environment.filters["short_day"] = functools.partial(short_day, language=language)
    environment.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    return environment


_environments = {language: _environment(language) for language in SUPPORTED}


def reads_in(request: Request, language: str) -> None:
    """Note the language a signed-in reader chose in their own settings (a partner's profile): this request's
    pages use it unless `?lang=` asks for another."""
    request.state.reader_language = language


def page_language(request: Request) -> str:
    """The language of this page view: `?lang=`, else the reader's own setting (`reads_in`) or remembered
    choice, else the browser's, else English."""
    headers = RequestHeaders.of(request.scope)
    remembered = getattr(request.state, "reader_language", None) or headers.cookies().get(COOKIE)
    return choose(request.query_params.get(PARAMETER), remembered, headers.accept_language)


def render(
    request: Request,
    template: str,
    context: dict[str, Any] | None = None,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    language: str | None = None,
) -> HTMLResponse:
    """The page `template` rendered in the base layout, in the reader's language (or in `language`, for a page
    whose words were written in one, such as an inspection report), with the service's page headers.

    A `?lang=` choice is remembered in a cookie, so the next page is in the same language."""
    language = language if language and language in _environments else page_language(request)
    html = _environments[language].get_template(template).render(request=request, **(context or {}))
    response = HTMLResponse(html, status_code=status, headers={**PAGE_HEADERS, **(headers or {})})
    response.headers.append("Vary", "Accept-Language, Cookie")
    if supported(request.query_params.get(PARAMETER)) == language:
        response.set_cookie(COOKIE, language, max_age=LANGUAGE_COOKIE_SECONDS, samesite="lax", secure=False)
    return response


def wants_html(request: Request) -> bool:
    """A browser navigating (Accept lists text/html first-class), not an API client."""
    accept = RequestHeaders.of(request.scope).accept
    return "text/html" in accept and "application/json" not in accept.split(",", 1)[0]
