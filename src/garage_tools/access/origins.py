"""Which `Host` and `Origin` values the service accepts, as one policy.

Two rules read it. MCP refuses an unknown `Host` (DNS rebinding) and any browser `Origin` not
listed, since MCP has no browser challenge. REST is CORS-open, but a browser caller whose
`Origin` is not on the same-origin allowlist must pass the browser challenge.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit


def origin_of(url: str) -> str:
    """The origin (`scheme://host[:port]`) of a URL: of the service's base URL, its own origin."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _matches(value: str, patterns: Iterable[str]) -> bool:
    """Exact match, or a `base:*` pattern matching `base:<any port>`."""
    for pattern in patterns:
        if value == pattern:
            return True
        if pattern.endswith(":*") and value.startswith(pattern[:-1]) and value[len(pattern) - 1 :].isdigit():
            return True
    return False


class OriginPolicy:
    def __init__(
        self,
        *,
        mcp_hosts: Iterable[str],
        mcp_origins: Iterable[str],
        site_origins: Iterable[str],
        check_hosts: bool = True,
    ) -> None:
        self.mcp_hosts = list(mcp_hosts)
        self.mcp_origins = list(mcp_origins)
        self.site_origins = {origin.rstrip("/") for origin in site_origins}
        self.check_hosts = check_hosts

    def host_known(self, host: str) -> bool:
        """Whether `host` is one of the names the service answers to."""
        return _matches(host, self.mcp_hosts)

    def mcp_host_allowed(self, host: str | None) -> bool:
        return not self.check_hosts or (host is not None and self.host_known(host))

    def mcp_origin_allowed(self, origin: str | None) -> bool:
        return origin is None or not self.check_hosts or _matches(origin, self.mcp_origins)

    def is_same_site(self, origin: str, own_origin: str) -> bool:
        """Whether a browser `Origin` is the service itself or a site the operator admitted."""
        return origin == own_origin or origin in self.site_origins
