"""The request headers the service acts on, read in one pass over the raw ASGI headers.

Every access decision (key, client address, origin, body size, MCP routing) reads this one
object, so no module scans `scope["headers"]` on its own and two modules can never disagree
about which of two duplicated headers counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.types import Scope

_OWS = b" \t"


@dataclass(slots=True)
class RequestHeaders:
    """Header values as latin-1 text, trimmed of surrounding whitespace (RFC 9110 5.5)."""

    authorization: list[str] = field(default_factory=list)
    content_type: str | None = None
    content_length: str | None = None
    origin: str | None = None
    host: str | None = None
    accept: str = ""
    idempotency_key: str | None = None
    forwarded: list[str] = field(default_factory=list)
    x_forwarded_for: list[str] = field(default_factory=list)
    mcp: dict[str, list[str]] = field(default_factory=dict)  # mcp-protocol-version, mcp-method, mcp-name, ...
    mcp_param: bool = False  # any `Mcp-Param-*` header
    untrimmed: bool = False  # some value arrived with white space around it (see `trimmed_scope`)

    @classmethod
    def read(cls, scope: Scope) -> RequestHeaders:
        headers = cls()
        for raw_name, raw_value in scope["headers"]:
            trimmed = raw_value.strip(_OWS)
            if len(trimmed) != len(raw_value):
                headers.untrimmed = True
            value = trimmed.decode("latin-1")
            if raw_name == b"authorization":
                headers.authorization.append(value)
            elif raw_name == b"content-type":
                headers.content_type = value
            elif raw_name == b"content-length":
                headers.content_length = value
            elif raw_name == b"origin":
                headers.origin = value
            elif raw_name == b"host":
                headers.host = value
            elif raw_name == b"accept":
                headers.accept = f"{headers.accept},{value}" if headers.accept else value
            elif raw_name == b"idempotency-key":
                headers.idempotency_key = value
            elif raw_name == b"forwarded":
                headers.forwarded.append(value)
            elif raw_name == b"x-forwarded-for":
                headers.x_forwarded_for.append(value)
            elif raw_name.startswith(b"mcp-"):
                if raw_name.startswith(b"mcp-param-"):
                    headers.mcp_param = True
                headers.mcp.setdefault(raw_name.decode("latin-1"), []).append(value)
        return headers

    def mcp_header(self, name: str) -> str | None:
        """The single value of an `Mcp-*` routing header; None when absent or duplicated."""
        values = self.mcp.get(name)
        return values[0] if values and len(values) == 1 else None


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
