"""Rendering pages: one Jinja2 environment, one base layout, and the headers every page carries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from garage_tools import __version__
from garage_tools.headers import RequestHeaders
from garage_tools.web.results import FILTERS

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

_environment = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html", "xml"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
_environment.globals["version"] = __version__


def _site_contact(request: Request | None) -> Any:
    """The operator's contact (web/about.py `Contact`) of the app serving `request`, for every page's footer."""
    app = request.scope.get("app") if request is not None else None
    return getattr(getattr(app, "state", None), "contact", None)


_environment.globals["site_contact"] = _site_contact
_environment.filters.update(FILTERS)  # the shared result cards format as results.js does


def render(
    request: Request,
    template: str,
    context: dict[str, Any] | None = None,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    """The page `template` rendered in the base layout, with the service's page headers."""
    html = _environment.get_template(template).render(request=request, **(context or {}))
    return HTMLResponse(html, status_code=status, headers={**PAGE_HEADERS, **(headers or {})})


def wants_html(request: Request) -> bool:
    """A browser navigating (Accept lists text/html first-class), not an API client."""
    accept = RequestHeaders.of(request.scope).accept
    return "text/html" in accept and "application/json" not in accept.split(",", 1)[0]
