"""Domain tools: one module per tool family, each declaring its `Tool` once.

To add a tool, write its module and list its `TOOL` below: REST, both MCP tiers, OpenAPI,
the `/api/v1` index and llms.txt pick it up from the registry with no other edit.
"""

from __future__ import annotations

from garage_tools.registry import Registry
from garage_tools.tools import (
    ask,
    catalog,
    cost,
    diagnose,
    inspection,
    journey,
    labs,
    opener,
    photos,
    promotions,
    retrieval,
    routing,
    service_request,
    vision,
)

TOOLS = (
    diagnose.TOOL,
    routing.TOOL,
    service_request.TOOL,
    cost.TOOL,
    catalog.TOOL,
    promotions.TOOL,
    photos.TOOL,
    inspection.TOOL,
    labs.GET_LAB,
    labs.GET_LAB_EMBED,
    retrieval.TOOL,
    vision.TOOL,
    opener.TOOL,
    ask.TOOL,
    journey.TOOL,
)


def build_registry() -> Registry:
    return Registry(TOOLS)
