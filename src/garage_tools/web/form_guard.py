"""Guarding the homeowner pages' form posts: from this site only, and carrying the form's own token.

The same two checks the developer portal makes before it reads a POST: the `Origin` a browser names
(and `Sec-Fetch-Site`, which pages cannot set) must be the service's own, and the form must repeat
the random token of a cookie the page set (double submit). A form post there can record a lead for a
partner, so another site must not be able to make a visitor's browser send one.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from garage_tools.access.sessions import new_secret, tokens_match

log = logging.getLogger(__name__)

COOKIE = "gt_help"
FIELD = "csrf"
FORGED = "This form did not come from this site, or it has gone stale. Go back, reload the page and try again."


class FormRefused(Exception):
    """A post the pages will not act on, with the sentence to show and the status to send."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def check_origin(request: Request, own_origin: str) -> None:
    """Refuse a POST another site made a browser send (browsers name the page's origin on POSTs)."""
    origin = request.headers.get("origin")
    fetch_site = request.headers.get("sec-fetch-site")
    if origin == "null" and fetch_site == "same-origin":
        origin = None  # a page with `Referrer-Policy: no-referrer` sends `Origin: null`; the browser vouches for it
    if fetch_site == "cross-site" or (origin is not None and origin != own_origin):
        log.warning("pages: refused a cross-site POST to %s (Origin %r)", request.url.path, (origin or "")[:100])
        raise FormRefused(FORGED)


def origin_of(base_url: str) -> str:
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}"


def check_token(request: Request, sent: str | None) -> None:
    """The form's token must be the one in the browser's cookie (another site can read neither)."""
    if not tokens_match(request.cookies.get(COOKIE), sent):
        raise FormRefused(FORGED)


def form_token(request: Request) -> tuple[str, bool]:
    """The token for the page's forms: the browser's own, or a fresh one (True) to set as its cookie."""
    token = request.cookies.get(COOKIE, "")
    if 32 <= len(token) <= 128:
        return token, False
    return new_secret(), True


def set_token_cookie(response: Response, token: str, *, secure: bool) -> None:
    """A session cookie, HTTP only, not sent with other sites' requests."""
    response.set_cookie(COOKIE, token, path="/", secure=secure, httponly=True, samesite="lax")
