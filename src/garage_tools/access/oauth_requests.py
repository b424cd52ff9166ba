"""What an OAuth request from outside may hold before anything of it is stored or followed.

An authorization request (`GET /authorize`) is read here in full, every parameter bounded, before the
service stores a pending grant or sends the browser anywhere. Registration is open to anyone (dynamic
registration is how connectors work), so a registered redirect URI proves nothing about who owns it: an
error in the request is never sent to that URI (that would make `/authorize` an open redirect, RFC 9700
§4.11.2) but shown on the service's own page. The app hears back only from the person's own decision on
the consent page, which names where the answer goes.

Loopback redirect URIs (`http://127.0.0.1:PORT/…`) match a registered one on scheme, host and path with
any port (RFC 8252 §7.3): a native app listens on whatever port is free each time.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, parse_qsl, urlsplit

from mcp.server.auth.provider import AuthorizationParams
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import AnyUrl, ValidationError

MAX_ID = 64  # longer than any id or token we make: refused before it reaches the store
MAX_STATE = 500
MAX_URI = 2000  # the redirect URI's column
MAX_RESOURCE = 500  # the resource's column
MAX_SCOPE = 100
MAX_FIELD = 2000  # any other string a registration holds
MAX_LIST = 10  # redirect URIs, contacts, grant types: more than any app needs
MAX_PARAMETERS = 20
#: RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is 43 characters; the grammar allows 43 to 128 unreserved ones.
_CHALLENGE = re.compile(r"[A-Za-z0-9._~-]{43,128}")


class AuthorizationProblem(Exception):
    """A request `/authorize` will not go on with: shown to the person (or, to a program, OAuth's JSON)."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error
        self.description = description


@dataclass(frozen=True, slots=True)
class AuthorizationRequest:
    """A request that passed every check: its client and what to hold for the person's decision."""

    client: OAuthClientInformationFull
    params: AuthorizationParams


def parameters(query: bytes) -> dict[str, str]:
    """The query's parameters, each at most once (RFC 6749 §3.1), at most `MAX_PARAMETERS` of them."""
    try:
        pairs = parse_qsl(query.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_PARAMETERS)
    except (UnicodeDecodeError, ValueError):
        raise AuthorizationProblem("invalid_request", "the request's parameters could not be read") from None
    found: dict[str, str] = {}
    for name, value in pairs:
        if name in found:
            raise AuthorizationProblem("invalid_request", f"{name[:40]} is given more than once")
        found[name] = value
    return found


def _bounded(query: Mapping[str, str], name: str, limit: int) -> str | None:
    value = query.get(name)
    if value is not None and len(value) > limit:
        raise AuthorizationProblem("invalid_request", f"{name} is longer than {limit} characters")
    return value


def client_id_of(query: Mapping[str, str]) -> str:
    """The `client_id`, present and no longer than any we issue."""
    client_id = _bounded(query, "client_id", MAX_ID)
    if not client_id:
        raise AuthorizationProblem("invalid_request", "the request does not name its app (client_id)")
    return client_id


def matching_redirect(client: OAuthClientInformationFull, given: str | None) -> str:
    """The redirect URI to answer on: `given` when the client registered it (a loopback one with any port),
    or the client's only one when none is given."""
    registered = [str(uri) for uri in client.redirect_uris or []]
    if given is None:
        if len(registered) != 1:
            raise AuthorizationProblem("invalid_request", "the request does not say where to answer (redirect_uri)")
        return registered[0]
    if len(given) > MAX_URI:
        raise AuthorizationProblem("invalid_request", f"redirect_uri is longer than {MAX_URI} characters")
    if given in registered or any(same_loopback_redirect(given, uri) for uri in registered):
        return given
    raise AuthorizationProblem("invalid_request", "redirect_uri is not one the app registered")


def same_loopback_redirect(given: str, registered: str) -> bool:
    """Whether both are `http` loopback URIs with the same host, path and query, whatever their ports."""
    one, other = _split(given), _split(registered)
    if one is None or other is None or one.username is not None or one.fragment:
        return False
    return (
        one.scheme == other.scheme == "http"
        and is_loopback(one.hostname or "")
        and (one.hostname, one.path, one.query) == (other.hostname, other.path, other.query)
    )


def _split(uri: str) -> SplitResult | None:
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 (a malformed port raises only when read)
    except ValueError:
        return None
    return parts


def redirect_uri_problem(uri: str) -> str | None:
    """Why `uri` cannot be a redirect URI here, or None: https anywhere, or http on this machine only (native
    apps listen on loopback, RFC 8252); never a fragment; at most `MAX_URI` characters."""
    if len(uri) > MAX_URI:
        return f"A redirect URI may have at most {MAX_URI} characters."
    parts = _split(uri)
    if parts is None:
        return f"{uri!r} is not a URL."
    host = parts.hostname or ""
    if parts.fragment or "#" in uri:
        return f"{uri} has a fragment; redirect URIs may not."
    if parts.scheme == "https" and host:
        return None
    if parts.scheme == "http" and is_loopback(host):
        return None
    return f"{uri} is neither https nor http on a loopback address (127.0.0.1, [::1] or localhost)."


def is_loopback(host: str) -> bool:
    """`localhost` or a loopback address: where a native app listens for its redirect."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def authorization_request(
    query: Mapping[str, str], client: OAuthClientInformationFull, scope: str
) -> AuthorizationRequest:
    """Check everything but the client (known already) and the resource (the service's own rule)."""
    redirect_uri = matching_redirect(client, query.get("redirect_uri"))
    response_type = _bounded(query, "response_type", MAX_SCOPE)
    if response_type != "code":
        raise AuthorizationProblem("unsupported_response_type", "the only response_type offered is code")
    challenge = query.get("code_challenge") or ""
    if not _CHALLENGE.fullmatch(challenge):
        raise AuthorizationProblem("invalid_request", "code_challenge must be 43 to 128 letters, digits or -._~")
    if query.get("code_challenge_method", "S256") != "S256":
        raise AuthorizationProblem("invalid_request", "the only code_challenge_method offered is S256")
    state = _bounded(query, "state", MAX_STATE)
    requested = _bounded(query, "scope", MAX_SCOPE)
    if requested is not None and set(requested.split()) - {scope}:
        raise AuthorizationProblem("invalid_scope", f"the one scope offered is {scope}")
    resource = _bounded(query, "resource", MAX_RESOURCE)
    try:
        params = AuthorizationParams(
            state=state,
            scopes=[scope],
            code_challenge=challenge,
            redirect_uri=AnyUrl(redirect_uri),
            redirect_uri_provided_explicitly="redirect_uri" in query,
            resource=resource,
        )
    except ValidationError:
        raise AuthorizationProblem("invalid_request", "redirect_uri is not a URL") from None
    return AuthorizationRequest(client, params)


def registration_problem(document: Mapping[str, Any]) -> str | None:
    """Why a registration's fields are too long or too many to keep, or None."""
    for name, value in document.items():
        values = value if isinstance(value, list) else [value]
        if len(values) > MAX_LIST:
            return f"{name}: at most {MAX_LIST} values"
        for item in values:
            if isinstance(item, str) and len(item) > MAX_FIELD:
                return f"{name}: at most {MAX_FIELD} characters"
    return None
