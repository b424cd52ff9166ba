"""The portal's forms: read within bounds, and refused unless this site sent them.

Every POST is checked the same way before it is read further: its `Origin` (when the browser sends one)
must be the service's own, and its form must then carry the right token (see `sessions.py`). A refusal is
a page of its own, with its status, never a JSON envelope.
"""

from __future__ import annotations

import logging
import unicodedata
from urllib.parse import parse_qsl

from starlette.requests import Request

from garage_tools.access.origins import origin_of
from garage_tools.access.policy import Access
from garage_tools.errors import PayloadTooLarge, RequestTimeout
from garage_tools.headers import RequestHeaders

log = logging.getLogger(__name__)

MAX_FORM_BYTES = 4096
MAX_KEY_NAME = 100
FORGED = "This form did not come from this site, or it has gone stale. Go back, reload the page and try again."


class Refused(Exception):
    """A POST the portal will not act on: from another site, with a forged or stale form, or signed out."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


async def read_form(request: Request, access: Access, *, limit: int = MAX_FORM_BYTES) -> dict[str, str]:
    """The URL-encoded form of a POST, bounded in size and time as every request body is (pages post small forms)."""
    headers = RequestHeaders.of(request.scope)
    media = (headers.content_type or "").split(";", 1)[0].strip().lower()
    if media != "application/x-www-form-urlencoded":
        raise Refused("Send this form from the page.", status=415)
    try:
        body = await access.read_body(request.receive, headers, limit)
    except PayloadTooLarge:
        raise Refused("The form is too large.", status=413) from None
    except RequestTimeout:
        raise Refused("The form took too long to arrive.", status=408) from None
    try:
        return dict(parse_qsl(body.decode(), keep_blank_values=True, max_num_fields=10))
    except (UnicodeDecodeError, ValueError):
        raise Refused("The form could not be read.", status=400) from None


def check_origin(request: Request, base_url: str, shown_path: str) -> None:
    """Refuse a POST another site made a browser send (a browser names the page's origin on POSTs).

    `shown_path` is the path as it may be logged (without a sign-in link's secret).
    """
    headers = RequestHeaders.of(request.scope)
    origin, fetch_site = headers.origin, headers.sec_fetch_site
    if origin == "null" and fetch_site == "same-origin":
        # The sign-in page's `Referrer-Policy: no-referrer` makes browsers send `Origin: null` from it;
        # their own `Sec-Fetch-Site` (which pages cannot set) still says the form is ours.
        origin = None
    if fetch_site == "cross-site" or (origin is not None and origin != origin_of(base_url)):
        log.warning("portal: refused a cross-site POST to %s (Origin %r)", shown_path, (origin or "")[:100])
        raise Refused(FORGED)


def clean_key_name(text: str) -> str | None:
    """A key name as shown in the dashboard: whitespace runs collapsed, 1 to 100 printable characters."""
    name = " ".join(text.split())
    if not 1 <= len(name) <= MAX_KEY_NAME or any(unicodedata.category(c).startswith("C") for c in name):
        return None
    return name
