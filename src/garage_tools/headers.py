"""The request headers the service acts on, read once per request in one pass over the raw ASGI headers.

The first layer that needs a header (the request id, CORS, an access gate, a page) asks for
`RequestHeaders.of(scope)`, which reads them and keeps the result in the scope; every later layer gets
the same object. So no module scans `scope["headers"]` on its own, two layers can never disagree about
which of two duplicated headers counts, and a tool call pays for one pass, not one per layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import cookie_parser
from starlette.types import Scope

#: Where the parsed headers are kept in an HTTP request's scope.
SCOPE_KEY = "garage_tools.headers"
_OWS = b" \t"
#: The headers read below; any other is only checked for surrounding white space.
_READ = frozenset({
    b"host", b"content-type", b"content-length", b"accept", b"authorization", b"origin", b"x-request-id",
    b"idempotency-key", b"access-control-request-method", b"forwarded", b"x-forwarded-for", b"sec-fetch-site",
    b"if-none-match", b"if-modified-since", b"cookie", b"accept-encoding", b"accept-language",
})  # fmt: skip


@dataclass(slots=True)
class RequestHeaders:
    """Header values as latin-1 text, trimmed of surrounding whitespace (RFC 9110 5.5)."""

    authorization: list[str] = field(default_factory=list)
    content_type: str | None = None
    content_length: str | None = None
    origin: str | None = None
    host: str | None = None
    accept: str = ""
    request_id: str | None = None  # the first `X-Request-Id`, as sent (observability checks it)
    idempotency_key: str | None = None
    preflight: bool = False  # an `Access-Control-Request-Method` is present (a CORS preflight, with OPTIONS)
    forwarded: list[str] = field(default_factory=list)
    x_forwarded_for: list[str] = field(default_factory=list)
    sec_fetch_site: str | None = None
    if_none_match: str = ""
    if_modified_since: str | None = None
    cookie: str = ""
    accept_encoding: str = ""
    accept_language: str = ""  # every `Accept-Language` value, joined (languages.py reads it)
    mcp: dict[str, list[str]] = field(default_factory=dict)  # mcp-protocol-version, mcp-method, mcp-name, ...
    mcp_param: bool = False  # any `Mcp-Param-*` header
    untrimmed: bool = False  # some value arrived with white space around it (see `trimmed_scope`)

    @classmethod
    def of(cls, scope: Scope) -> RequestHeaders:
        """The headers of the request `scope` describes: read on first use, then kept in the scope."""
        headers: RequestHeaders | None = scope.get(SCOPE_KEY)
        if headers is None:
            headers = scope[SCOPE_KEY] = cls.read(scope)
        return headers

    @classmethod
    def read(cls, scope: Scope) -> RequestHeaders:
        """Read the headers of `scope` afresh (`of` reads them once per request)."""
        headers = cls()
        for raw_name, raw_value in scope["headers"]:
            if raw_name not in _READ and not raw_name.startswith(b"mcp-"):
                if raw_value and (raw_value[0] in _OWS or raw_value[-1] in _OWS):
                    headers.untrimmed = True
                continue
            trimmed = raw_value.strip(_OWS)
            if len(trimmed) != len(raw_value):
                headers.untrimmed = True
            value = trimmed.decode("latin-1")
            if raw_name == b"host":
                headers.host = value
            elif raw_name == b"content-type":
                headers.content_type = value
            elif raw_name == b"content-length":
                headers.content_length = value
            elif raw_name == b"accept":
                headers.accept = f"{headers.accept},{value}" if headers.accept else value
            elif raw_name == b"authorization":
                headers.authorization.append(value)
            elif raw_name == b"origin":
                headers.origin = value
            elif raw_name == b"x-request-id":
                if headers.request_id is None:
                    headers.request_id = value
            elif raw_name == b"idempotency-key":
                headers.idempotency_key = value
            elif raw_name == b"access-control-request-method":
                headers.preflight = True
            elif raw_name == b"forwarded":
                headers.forwarded.append(value)
            elif raw_name == b"x-forwarded-for":
                headers.x_forwarded_for.append(value)
            elif raw_name == b"sec-fetch-site":
                headers.sec_fetch_site = value
            elif raw_name == b"if-none-match":
                headers.if_none_match = f"{headers.if_none_match},{value}" if headers.if_none_match else value
            elif raw_name == b"if-modified-since":
                headers.if_modified_since = value
            elif raw_name == b"accept-encoding":
                headers.accept_encoding = f"{headers.accept_encoding},{value}" if headers.accept_encoding else value
            elif raw_name == b"accept-language":
                headers.accept_language = f"{headers.accept_language},{value}" if headers.accept_language else value
            elif raw_name == b"cookie":
                if not headers.cookie:  # the first, as Starlette reads it
                    headers.cookie = value
            else:
                if raw_name.startswith(b"mcp-param-"):
                    headers.mcp_param = True
                headers.mcp.setdefault(raw_name.decode("latin-1"), []).append(value)
        return headers

    def mcp_header(self, name: str) -> str | None:
        """The single value of an `Mcp-*` routing header; None when absent or duplicated."""
        values = self.mcp.get(name)
        return values[0] if values and len(values) == 1 else None

    def has_current(self, etag: str) -> bool:
        """`If-None-Match` names `etag` or `*`: the client's copy is current (a weak tag compares equal, as
        RFC 9110 says for GET)."""
        listed = {tag.strip().removeprefix("W/") for tag in self.if_none_match.split(",") if tag.strip()}
        return etag in listed or "*" in listed

    def cookies(self) -> dict[str, str]:
        """The request's cookies, parsed as Starlette parses them."""
        return cookie_parser(self.cookie) if self.cookie else {}


def trimmed_scope(scope: Scope, headers: RequestHeaders) -> Scope:
    """`scope` with header values trimmed, for apps downstream that compare them verbatim.

    uvicorn's httptools parser keeps trailing spaces, and the MCP SDK compares `Mcp-Name`,
    `Mcp-Method` and `MCP-Protocol-Version` with the body verbatim, so `Mcp-Name: diagnose `
    would be refused. The conformance suite's http-header-validation scenario checks this.
    `headers`, read from the same scope, says whether there is anything to trim.
    """
    if not headers.untrimmed:
        return scope
    return {**scope, "headers": [(key, value.strip(_OWS)) for key, value in scope["headers"]]}
