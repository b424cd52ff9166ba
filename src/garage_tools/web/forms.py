"""Forms posted to the service's pages: read within bounds, and acted on only when this site sent them.

Every page that takes a POST (the homeowner's pages, the portal) checks it the same way before reading
further: the `Origin` a browser names (and `Sec-Fetch-Site`, which pages cannot set) must be the
service's own, and the form must repeat a token another site cannot read (a double-submit cookie before
sign-in, the session's own token after). Bodies are read through the access policy's one body reader,
so a form has the same size and time bounds as an API call. A refusal is a page of its own with its
status, never a JSON envelope.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import Response

from garage_tools.access.origins import origin_of
from garage_tools.access.policy import Access
from garage_tools.access.tokens import new_secret, tokens_match
from garage_tools.errors import InvalidText, PayloadTooLarge, RequestTimeout
from garage_tools.headers import RequestHeaders
from garage_tools.inputs import holdable
from garage_tools.languages import N_

log = logging.getLogger(__name__)

MAX_FORM_BYTES = 4096
MAX_FORM_FIELDS = 10  # enough for any sign-in or key form; a page with more says so
FORGED = N_("This form did not come from this site, or it has gone stale. Go back, reload the page and try again.")
SEND_FROM_PAGE = "Send this form from the page."
UNREADABLE = "The form could not be read."
UNHOLDABLE = "The form holds a character we cannot keep (such as a control character). Remove it and send it again."


class Refused(Exception):
    """A POST a page will not act on: from another site, forged or stale, too large, too slow, or signed out."""

    def __init__(self, message: str, status: int = 403) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def check_origin(request: Request, base_url: str, shown_path: str | None = None) -> None:
    """Refuse a POST another site made a browser send (a browser names the page's origin on POSTs).

    `shown_path` is the path as it may be logged (without a sign-in link's secret); the request's by default.
    """
    headers = RequestHeaders.of(request.scope)
    origin, fetch_site = headers.origin, headers.sec_fetch_site
    if origin == "null" and fetch_site == "same-origin":
        # A page sent with `Referrer-Policy: no-referrer` makes browsers send `Origin: null`; their own
        # `Sec-Fetch-Site` (which pages cannot set) still says the form is ours.
        origin = None
    if fetch_site == "cross-site" or (origin is not None and origin != origin_of(base_url)):
        path = shown_path or request.url.path
        log.warning("pages: refused a cross-site POST to %s (Origin %r)", path, (origin or "")[:100])
        raise Refused(FORGED)


async def _read_body(request: Request, access: Access, media: str, limit: int) -> bytes:
    headers = RequestHeaders.of(request.scope)
    if (headers.content_type or "").split(";", 1)[0].strip().lower() != media:
        raise Refused(SEND_FROM_PAGE, status=415)
    try:
        return await access.read_body(request.receive, headers, limit)
    except PayloadTooLarge:
        raise Refused("The form is too large.", status=413) from None
    except RequestTimeout:
        raise Refused("The form took too long to arrive.", status=408) from None
    except InvalidText:
        raise Refused(UNHOLDABLE, status=400) from None


async def read_form(
    request: Request, access: Access, *, limit: int = MAX_FORM_BYTES, max_fields: int = MAX_FORM_FIELDS
) -> dict[str, str]:
    """A URL-encoded form's fields (the last value of a repeated one), bounded in size, time and fields."""
    body = await _read_body(request, access, "application/x-www-form-urlencoded", limit)
    try:
        return dict(parse_qsl(body.decode(), keep_blank_values=True, max_num_fields=max_fields))
    except (UnicodeDecodeError, ValueError):
        raise Refused(UNREADABLE, status=400) from None


@dataclass(frozen=True, slots=True)
class PhotoForm:
    """The photo form's text fields, and the photo's bytes and media type as the browser named it."""

    fields: dict[str, str] = field(default_factory=dict)
    photo: bytes = b""
    media_type: str = ""

    def get(self, name: str, default: str = "") -> str:
        return self.fields.get(name, default)


async def read_photo_form(request: Request, access: Access, *, limit: int) -> PhotoForm:
    """A multipart form with at most one file (field `photo`) and a few short text fields.

    The body is read to its limit first, so an oversized upload is refused without being spooled
    anywhere, then handed to the multipart parser from memory.
    """
    body = await _read_body(request, access, "multipart/form-data", limit)

    async def chunks() -> AsyncGenerator[bytes, None]:
        yield body

    parser = MultiPartParser(request.headers, chunks(), max_files=1, max_fields=8, max_part_size=16 * 1024)
    try:
        form = await parser.parse()
    except MultiPartException:
        raise Refused(UNREADABLE, status=400) from None
    fields: dict[str, str] = {}
    photo, media_type = b"", ""
    try:
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                if name == "photo" and value.filename:
                    photo, media_type = await value.read(), value.content_type or ""
            elif holdable(value):
                fields[name] = value
            else:
                raise Refused(UNHOLDABLE, status=400)
    finally:
        await form.close()
    return PhotoForm(fields, photo, media_type)


@dataclass(frozen=True, slots=True)
class DoubleSubmit:
    """The form token of a visitor with no session: a random cookie the form must repeat.

    Another site can make a browser send the cookie but can read neither it nor the page, so it cannot
    put the token in the form. `path` scopes the cookie to the pages that use it.
    """

    cookie: str
    path: str

    def token(self, request: Request) -> tuple[str, bool]:
        """The browser's token, or a fresh one (True: set it with `set_cookie`)."""
        token = RequestHeaders.of(request.scope).cookies().get(self.cookie, "")
        if 32 <= len(token) <= 128:
            return token, False
        return new_secret(), True

    def check(self, request: Request, sent: str | None) -> None:
        if not tokens_match(RequestHeaders.of(request.scope).cookies().get(self.cookie), sent):
            raise Refused(FORGED)

    def set_cookie(self, response: Response, token: str, *, secure: bool) -> None:
        """A browser-session cookie, HTTP only, not sent along with other sites' requests."""
        response.set_cookie(self.cookie, token, path=self.path, secure=secure, httponly=True, samesite="lax")

    def delete_cookie(self, response: Response, *, secure: bool) -> None:
        response.delete_cookie(self.cookie, path=self.path, secure=secure, httponly=True, samesite="lax")
