"""The public base URL for links the service returns."""

from __future__ import annotations

from starlette.types import Scope

from garage_tools.settings import Settings


def base_url(settings: Settings, scope: Scope) -> str:
    """`public_base_url` when set; otherwise the scheme and Host the request arrived with."""
    if settings.public_base_url:
        return settings.public_base_url
    host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), None)
    if host is None:
        server = scope.get("server") or ("localhost", None)
        host = server[0] if server[1] in (None, 80, 443) else f"{server[0]}:{server[1]}"
    return f"{scope.get('scheme', 'http')}://{host}{scope.get('root_path', '')}"
