"""The client address a request came from.

uvicorn rewrites `scope["client"]` from `X-Forwarded-For` only for proxies listed in
`--forwarded-allow-ips` (see docs/deployment.md), so the address here can be trusted as far
as that list is right. Headers are never read directly: clients can forge them.
"""

from __future__ import annotations

from starlette.types import Scope


def client_ip(scope: Scope) -> str | None:
    client = scope.get("client")
    return client[0] if client else None
