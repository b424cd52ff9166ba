"""The consent page of an app asking to connect (OAuth), in words a person reads before pressing Allow.

It names the app as the app named itself (we cannot vouch for that; the name is cleaned of controls and
direction-changing characters when stored and read), with where the answer goes (the redirect's host) beside
it, and what the app gets. The page's `form-action` admits that host too: browsers hold a form's
redirect to it, and Allow and Deny both end there.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from garage_tools.access.oauth import ACCESS_LIFETIME, REFRESH_LIFETIME
from garage_tools.access.oauth_requests import is_loopback
from garage_tools.access.oauth_resources import resource_path
from garage_tools.errors import ServiceError
from garage_tools.store.oauth import GrantRecord
from garage_tools.web.pages import PAGE_HEADERS, render
from garage_tools.web.signin import Session

GONE = "This request to connect an app has expired or was already answered. Go back to the app and connect it again."
DISCONNECTED = "The app is disconnected: it can no longer use your pro access."
_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.\-:\[\]]+$")
CSP = "Content-Security-Policy"


def redirect_origin(uri: str) -> str:
    """`scheme://host[:port]` of where the app receives its answer."""
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}"


def destination_host(uri: str) -> str:
    """The host the answer goes to, for beside the app's name: the one part of the app a person can check."""
    host = urlsplit(uri).hostname or ""
    return "this computer" if is_loopback(host) else host


def describe_destination(uri: str) -> str:
    """Where the answer goes, as a person would recognise it."""
    parts = urlsplit(uri)
    if is_loopback(parts.hostname or ""):
        return f"a program on this computer ({parts.netloc})"
    return parts.hostname or parts.netloc


def problem_page(request: Request, problem: str) -> Response:
    """What a person sees when an app sent them to connect with a request that cannot go on."""
    message = (
        f"The app that sent you here made a request we cannot accept ({problem}). Go back to the app and connect "
        "it again; if this keeps happening, remove the connection in the app and add it anew."
    )
    context = {"title": "This app could not be connected", "message": message}
    return render(request, "portal/message.html", context, status=400, headers={"Cache-Control": "no-store"})


def refusal_page(request: Request, error: ServiceError) -> Response:
    """What a person sees when the service refuses to start a connection for now (too many from their address)."""
    context = {"title": "Too many connection attempts", "message": error.message}
    headers = {"Cache-Control": "no-store", **error.headers}
    return render(request, "portal/message.html", context, status=error.status, headers=headers)


def consent_page(request: Request, grant: GrantRecord, developer: Session) -> Response:
    origin = redirect_origin(grant.redirect_uri)
    headers = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    if _ORIGIN.match(origin):
        headers[CSP] = PAGE_HEADERS[CSP].replace("form-action 'self'", f"form-action 'self' {origin}")
    context = {
        "grant": grant,
        "developer": developer,
        "destination": describe_destination(grant.redirect_uri),
        "host": destination_host(grant.redirect_uri),
        "access_minutes": int(ACCESS_LIFETIME.total_seconds() // 60),
        "refresh_days": REFRESH_LIFETIME.days,
        "answers_only": resource_path(grant.resource or "") == "/v1",  # a chat product: answers, not the tools
    }
    return render(request, "portal/authorize.html", context, headers=headers)
