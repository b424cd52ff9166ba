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
#: The headers kept as they come, by the attribute each sets (when repeated, the last).
_SINGLE = {
    b"host": "host", b"content-type": "content_type", b"content-length": "content_length", b"origin": "origin",
    b"idempotency-key": "idempotency_key", b"sec-fetch-site": "sec_fetch_site",
    b"if-modified-since": "if_modified_since",
}  # fmt: skip
#: The headers whose values are joined with commas when repeated (RFC 9110 5.3).
_JOINED = {
    b"accept": "accept", b"if-none-match": "if_none_match", b"accept-encoding": "accept_encoding",
    b"accept-language": "accept_language",
}  # fmt: skip
#: The headers whose values are kept one by one.
_LISTED = {b"authorization": "authorization", b"forwarded": "forwarded", b"x-forwarded-for": "x_forwarded_for"}
#: The headers of which the first is kept.
_FIRST = {b"x-request-id": "request_id"}
#: Every header read below, by how: any other (but `Mcp-*`) is only checked for surrounding white space.
_READ: dict[bytes, tuple[int, str]] = {
    **{name: (0, attribute) for name, attribute in _SINGLE.items()},
    **{name: (1, attribute) for name, attribute in _JOINED.items()},
    **{name: (2, attribute) for name, attribute in _LISTED.items()},
    **{name: (3, attribute) for name, attribute in _FIRST.items()},
    b"access-control-request-method": (4, "preflight"),
    b"cookie": (5, "cookie"),
    # The MCP routing headers every 2026-07-28 call sends, kept by name like any other `Mcp-*` header.
    **{name.encode(): (6, name) for name in ("mcp-protocol-version", "mcp-method", "mcp-name")},
}


@dataclass
class RequestHeaders:
    """Header values as latin-1 text, trimmed of surrounding whitespace (RFC 9110 5.5).

    No `__slots__`: `read` makes each request's copy without `__init__`, so the fields that keep a plain default read
    it from the class until a header sets them. That took about a quarter off reading a tool call's few headers:
    `__init__` assigned all twenty of them.
    """

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
    #: Each `Mcp-*` header by name (mcp-protocol-version, mcp-method, mcp-name, ...): its one value, or None when it
    #: came more than once (a routing header must be single). A look-up, not a call, on every MCP request.
    mcp: dict[str, str | None] = field(default_factory=dict)
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
        headers = cls.__new__(cls)
        # The fields made by a factory, each its own (the others read the class's defaults; see the class).
        headers.authorization, headers.forwarded, headers.x_forwarded_for, headers.mcp = [], [], [], {}
        for raw_name, raw_value in scope["headers"]:
            how = _READ.get(raw_name)
            if how is None:
                if not raw_name.startswith(b"mcp-"):
                    if raw_value and (raw_value[0] in _OWS or raw_value[-1] in _OWS):
                        headers.untrimmed = True
                    continue
                how = (6, raw_name.decode("latin-1"))  # an `Mcp-*` header of no name known here
                if raw_name.startswith(b"mcp-param-"):
                    headers.mcp_param = True
            trimmed = raw_value.strip(_OWS)
            if trimmed is not raw_value:  # `strip` hands back the value itself when there is nothing to strip
                headers.untrimmed = True
            value = trimmed.decode("latin-1")
            kind, attribute = how
            if kind == 0:
                setattr(headers, attribute, value)
            elif kind == 6:
                headers.mcp[attribute] = None if attribute in headers.mcp else value
            elif kind == 1:
                joined = getattr(headers, attribute)
                setattr(headers, attribute, f"{joined},{value}" if joined else value)
            elif kind == 2:
                getattr(headers, attribute).append(value)
            elif kind == 3:
                if getattr(headers, attribute) is None:
                    setattr(headers, attribute, value)
            elif kind == 4:
                headers.preflight = True
            elif not headers.cookie:  # the first that says something, as Starlette reads it
                headers.cookie = value
        return headers

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
