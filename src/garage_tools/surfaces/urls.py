"""The public base URL for links the service returns."""

from __future__ import annotations

from starlette.types import Scope

from garage_tools.access.origins import OriginPolicy
from garage_tools.headers import RequestHeaders
from garage_tools.settings import Settings


class BaseUrl:
    """`public_base_url` when set; otherwise the scheme and `Host` the request arrived with.

    Without a configured base URL, a `Host` header is used only when it is one the service
    answers to (loopback names, `GARAGE_TOOLS_ALLOWED_HOSTS`); any other `Host` would let a
    client write its own domain into the links of `/openapi.json` and `/llms.txt`, so the
    server's own address is used instead.
    """

    def __init__(self, settings: Settings, origins: OriginPolicy) -> None:
        self.fixed = settings.public_base_url
        self.origins = origins

    def __call__(self, scope: Scope, headers: RequestHeaders | None = None, /) -> str:
        """The base URL for the request of `scope`; `headers`: its headers, when the caller has them in hand."""
        if self.fixed:
            return self.fixed
        host = (headers or RequestHeaders.of(scope)).host
        if host is None or not self.origins.host_known(host):
            server = scope.get("server") or ("localhost", None)
            host = server[0] if server[1] in (None, 80, 443) else f"{server[0]}:{server[1]}"
        return f"{scope.get('scheme', 'http')}://{host}{scope.get('root_path', '')}"
