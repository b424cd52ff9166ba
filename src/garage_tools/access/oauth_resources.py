"""The resources OAuth tokens are issued for (RFC 8707), by path, and their URLs: `/mcp-pro` (MCP connectors, the
default) and `/v1` (the OpenAI-compatible answers). A token works only on its own resource.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from mcp.shared.auth_utils import resource_url_from_server_url

#: The protected resources, by path: what a person connects an app to. The first is the default.
RESOURCE_NAMES = {
    "/mcp-pro": "Garage Door Tools, pro tier (MCP)",
    "/v1": "Garage Door Tools, answers (OpenAI-compatible chat completions)",
}
RESOURCE_PATH = "/mcp-pro"
#: The resource a caller's surface (`Caller.surface`) belongs to: where a token of that resource works.
RESOURCE_OF_SURFACE = {"mcp-pro": "/mcp-pro", "chat": "/v1"}


def resource_url(base_url: str, path: str = RESOURCE_PATH) -> str:
    """The public URL of a protected resource (`/mcp-pro` unless named) under the service's base URL."""
    return f"{base_url}{path}"


def resource_metadata_url(base_url: str, path: str = RESOURCE_PATH) -> str:
    """Where its RFC 9728 metadata lives (the well-known prefix inserted before the resource's path)."""
    return f"{base_url}/.well-known/oauth-protected-resource{path}"


def resource_path(resource: str) -> str:
    """The path of a grant's resource URL (`https://host/v1` -> `/v1`); the default for none."""
    return urlsplit(resource).path.rstrip("/") or RESOURCE_PATH


def same_resource(given: str, expected: str) -> bool:
    """Whether a client's resource indicator names `expected` (scheme and host case and a final `/` aside)."""
    return resource_url_from_server_url(given).rstrip("/") == resource_url_from_server_url(expected).rstrip("/")
