"""Files other sites load from the service (the widget, its stylesheet, the lab embed loader), built in memory.

Each is built once at start-up and answered with validators: a strong ETag (a hash of the bytes, so every
host of a deployment answers the same one) and Last-Modified (when this process built it), and a 304 to a
request that already holds it. They are cached for a day, readable from any origin (the app's CORS) and
loadable into pages that isolate themselves (`Cross-Origin-Resource-Policy: cross-origin`), and vary with
`Origin`, since the CORS header comes only with one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime

from starlette.requests import Request
from starlette.responses import Response

from garage_tools.headers import RequestHeaders

#: A day: long enough that a contractor's visitors rarely ask, short enough that a fix reaches them the next day.
ASSET_CACHE = "public, max-age=86400"


def unchanged(request: Request, etag: str, headers: Mapping[str, str]) -> Response | None:
    """A 304 carrying `headers` when the request's `If-None-Match` names `etag` (or `*`): the client's copy is
    current. None otherwise. The one rule every cached file of the service answers validators by."""
    if RequestHeaders.of(request.scope).has_current(etag):
        return Response(status_code=304, headers=dict(headers))
    return None


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@dataclass(frozen=True)
class BuiltAsset:
    """One file's bytes and media type, with its ETag and the time it was built."""

    body: bytes
    media_type: str
    built_at: datetime = field(default_factory=_now)

    @property
    def etag(self) -> str:
        return f'"{hashlib.sha256(self.body).hexdigest()[:32]}"'

    @property
    def fingerprint(self) -> str:
        """A short hash of the bytes, for a URL that changes when they do (`?v=`)."""
        return hashlib.sha256(self.body).hexdigest()[:12]

    def headers(self) -> dict[str, str]:
        return {
            "ETag": self.etag,
            "Last-Modified": format_datetime(self.built_at, usegmt=True),
            "Cache-Control": ASSET_CACHE,
            "X-Content-Type-Options": "nosniff",
            "Cross-Origin-Resource-Policy": "cross-origin",
            # CORS adds Access-Control-Allow-Origin only to requests that send an Origin: a shared cache must not
            # hand a copy fetched without one to the widget's stylesheet request (crossorigin), which needs it.
            "Vary": "Origin",
        }

    def respond(self, request: Request) -> Response:
        """The file, or 304 when the request's validators show the client already has it."""
        headers = self.headers()
        if self._fresh(request):
            return Response(status_code=304, headers=headers)
        return Response(self.body, media_type=self.media_type, headers=headers)

    def _fresh(self, request: Request) -> bool:
        sent = RequestHeaders.of(request.scope)
        if sent.if_none_match:  # If-None-Match, when sent, decides alone (RFC 9110 13.2.2)
            return sent.has_current(self.etag)
        since = sent.if_modified_since
        if not since:
            return False
        try:
            return parsedate_to_datetime(since) >= self.built_at
        except (TypeError, ValueError):
            return False
