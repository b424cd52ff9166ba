"""How agents and registries find the MCP server before connecting: `server.json` and the Server Card.

- `/server.json`: the document the official MCP Registry publishes (schema 2025-12-11), with both
  endpoints as remotes; the pro endpoint takes the API key as a secret `Authorization` header (or
  OAuth, which needs no header). An operator publishes it with `mcp-publisher publish`.
- The Server Card (SEP-2127, draft): identity, both remotes and the protocol versions each speaks,
  at the location SEP-2127 reserves (`<endpoint>/server-card`, so `/mcp/server-card` and
  `/mcp-pro/server-card`) and at `/.well-known/mcp/server-card.json`, where current implementations
  look; `/.well-known/mcp/catalog.json` lists it for domain-level discovery.

All of it is generated from the request's base URL, so each deployment describes itself; the name
is the host in reverse-DNS form (the registry's DNS or HTTP namespace check then applies).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Scope

from garage_tools import __version__
from garage_tools.key_format import EXAMPLE
from garage_tools.surfaces.mcp import SERVER_NAME, SERVER_TITLE
from garage_tools.surfaces.responses import json_response

SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json"
CARD_MEDIA_TYPE = "application/mcp-server-card+json"
CATALOG_MEDIA_TYPE = "application/json"
#: At most 100 characters (both schemas' limit).
DESCRIPTION = "Diagnose garage door problems, price the repair, and find a local pro: for homeowners and agents."
SERVER_JSON_PATH = "/server.json"
CARD_PATHS = ("/.well-known/mcp/server-card.json", "/mcp/server-card", "/mcp-pro/server-card")
CATALOG_PATH = "/.well-known/mcp/catalog.json"
_CACHE = {"Cache-Control": "public, max-age=3600"}


def registry_name(base: str) -> str:
    """The server's name in reverse-DNS form from the host it is reached on: `com.example.doors/garage-door-tools`."""
    host = urlsplit(base).hostname or "localhost"
    return ".".join(reversed(host.split("."))) + "/" + SERVER_NAME


def _remotes(base: str, *, card: bool) -> list[dict[str, Any]]:
    key = {
        "name": "Authorization",
        "description": f"Your API key (free during the beta: {base}/developers). Leave it out to connect with OAuth.",
        "isRequired": False,
        "isSecret": True,
        "value": "Bearer {api_key}",
        "variables": {
            "api_key": {"description": f"An API key, {EXAMPLE}", "isRequired": True, "isSecret": True},
        },
    }
    remotes: list[dict[str, Any]] = [
        {"type": "streamable-http", "url": f"{base}/mcp"},
        {"type": "streamable-http", "url": f"{base}/mcp-pro", "headers": [key]},
    ]
    if card:
        versions = [*MODERN_PROTOCOL_VERSIONS, *reversed(HANDSHAKE_PROTOCOL_VERSIONS)]
        for remote in remotes:
            remote["supportedProtocolVersions"] = versions
    return remotes


def _identity(base: str, schema: str) -> dict[str, Any]:
    return {
        "$schema": schema,
        "name": registry_name(base),
        "title": SERVER_TITLE,
        "description": DESCRIPTION,
        "version": __version__,
        "websiteUrl": f"{base}/ai",
        "icons": [{"src": f"{base}/static/favicon.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}],
    }


def server_json(base: str) -> dict[str, Any]:
    """The MCP Registry's `server.json` for this deployment."""
    return {**_identity(base, SERVER_JSON_SCHEMA), "remotes": _remotes(base, card=False)}


def server_card(base: str) -> dict[str, Any]:
    """The SEP-2127 Server Card for this deployment."""
    return {**_identity(base, SERVER_CARD_SCHEMA), "remotes": _remotes(base, card=True)}


def catalog(base: str) -> dict[str, Any]:
    """The MCP Catalog (`/.well-known/mcp/catalog.json`): one entry, pointing at the Server Card."""
    host = urlsplit(base).hostname or "localhost"
    return {
        "specVersion": "draft",
        "entries": [
            {
                "identifier": f"urn:air:{host}:{SERVER_NAME}",
                "displayName": SERVER_TITLE,
                "type": CARD_MEDIA_TYPE,
                "url": f"{base}{CARD_PATHS[0]}",
            }
        ],
    }


def discovery_routes(base_url: Callable[[Scope], str]) -> list[Route]:
    """The routes of the three documents, each built for the base URL the request came in on."""

    def serve(build: Callable[[str], dict[str, Any]], media_type: str) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            response = json_response(build(base_url(request.scope)), headers=_CACHE)
            response.headers["content-type"] = media_type
            return response

        return endpoint

    routes = [Route(SERVER_JSON_PATH, serve(server_json, "application/json"), methods=["GET"])]
    routes += [Route(path, serve(server_card, CARD_MEDIA_TYPE), methods=["GET"]) for path in CARD_PATHS]
    routes.append(Route(CATALOG_PATH, serve(catalog, CATALOG_MEDIA_TYPE), methods=["GET"]))
    return routes
