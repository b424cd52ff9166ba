"""Which `Host` and `Origin` values the service accepts, as one policy.

Two rules read it. MCP refuses an unknown `Host` (DNS rebinding) and any browser `Origin` not
listed, since MCP has no browser challenge. REST is CORS-open, but a browser caller whose
`Origin` is not on the same-origin allowlist must pass the browser challenge.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from garage_tools.settings import Settings

#: Loopback names the service always answers to, with any port.
LOOPBACK_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]")
LOOPBACK_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*")


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
        self._known: dict[str, bool] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> OriginPolicy:
        """The policy a deployment's settings describe: loopback, the public base URL and the hosts and
        origins the operator lists."""
        hosts = list(LOOPBACK_HOSTS)
        mcp_origins = list(LOOPBACK_ORIGINS)
        site_origins = [origin.rstrip("/") for origin in settings.allowed_origins]
        if settings.public_base_url:
            netloc = urlsplit(settings.public_base_url).netloc
            hosts += [netloc, f"{netloc.split(':')[0]}:*"] if ":" in netloc else [netloc, f"{netloc}:*"]
            mcp_origins.append(origin_of(settings.public_base_url))
            site_origins.append(origin_of(settings.public_base_url))
        for host in settings.allowed_hosts:
            hosts += [host] if ":" in host else [host, f"{host}:*"]
        mcp_origins += [origin.rstrip("/") for origin in settings.allowed_origins]
        return cls(
            mcp_hosts=hosts,
            mcp_origins=mcp_origins,
            site_origins=site_origins,
            check_hosts=settings.dns_rebinding_protection,
        )

    #: Hosts remembered as known or not (every MCP call and every base URL asks); bounded, since clients
    #: choose the `Host` they send.
    MEMORY = 64

    def host_known(self, host: str) -> bool:
        """Whether `host` is one of the names the service answers to."""
        known = self._known.get(host)
        if known is None:
            known = _matches(host, self.mcp_hosts)
            if len(self._known) < self.MEMORY:
                self._known[host] = known
        return known

    def mcp_host_allowed(self, host: str | None) -> bool:
        return not self.check_hosts or (host is not None and self.host_known(host))

    def mcp_origin_allowed(self, origin: str | None) -> bool:
        return origin is None or not self.check_hosts or _matches(origin, self.mcp_origins)

    def is_same_site(self, origin: str, own_origin: str) -> bool:
        """Whether a browser `Origin` is the service itself or a site the operator admitted."""
        return origin == own_origin or origin in self.site_origins
