"""The MCP `tools/list` answer, generated from the registry for both MCP paths (SDK and fast path).

Each tool carries its title, all four annotation hints, an icon the service serves itself
(`/static/icons/<icon>.svg`) and, when it has one, its MCP Apps view (`_meta.ui.resourceUri`).
Icon addresses are absolute (clients fetch them outside the MCP connection), so a listing depends on
the base URL the request came in on; the few base URLs a deployment answers on each get their
listing built once.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from garage_tools.key_format import EXAMPLE
from garage_tools.registry import AuthPolicy, Registry, Tool
from garage_tools.surfaces.mcp_apps import tool_meta

ICON_PATH = "/static/icons"
#: How many base URLs keep a built listing; a deployment answers on one or two.
_BASES_KEPT = 16


def icon_url(base: str, icon: str) -> str:
    return f"{base}{ICON_PATH}/{icon}.svg"


def mcp_tool(tool: Tool[Any, Any], base: str = "") -> types.Tool:
    """The MCP listing of a registry tool, with icon addresses under `base`."""
    description = tool.description
    if tool.auth is AuthPolicy.BEARER:
        description += f" Requires an API key: use /mcp-pro, or send 'Authorization: Bearer {EXAMPLE}'."
    hints = tool.annotations
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=description,
        input_schema=tool.input_model.model_json_schema(by_alias=True),
        output_schema=tool.output_model.model_json_schema(by_alias=True, mode="serialization"),
        icons=[types.Icon(src=icon_url(base, tool.icon), mime_type="image/svg+xml", sizes=["any"])],
        meta=tool_meta(tool),
        annotations=types.ToolAnnotations(
            title=tool.title,
            read_only_hint=hints.read_only,
            destructive_hint=hints.destructive,
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        ),
    )


class ToolListing:
    """The `tools/list` answer for a base URL: every registry tool, in registry order, built once per base."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._built: dict[str, list[types.Tool]] = {}
        self.input_schemas = {tool.name: tool.input_model.model_json_schema(by_alias=True) for tool in registry}

    def __call__(self, base: str) -> list[types.Tool]:
        listing = self._built.get(base)
        if listing is None:
            if len(self._built) >= _BASES_KEPT:
                self._built.clear()
            listing = self._built[base] = [mcp_tool(tool, base) for tool in self.registry]
        return listing
