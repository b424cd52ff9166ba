"""MCP resources: every lab's Markdown as `lab://<slug>`, listed and readable on both MCP tiers.

A client that prefers to pull a whole lab into its context (rather than search it with
`retrieveLabContext`) reads it here: the same file the lab page and the retrieval index are
built from, front matter included. The labs are public teaching material, so no key is needed.
"""

from __future__ import annotations

import mcp_types as types
from mcp import MCPError

from garage_tools.knowledge.labs import LabLibrary

SCHEME = "lab://"
MIME_TYPE = "text/markdown"


def lab_uri(slug: str) -> str:
    return f"{SCHEME}{slug}"


def lab_resources(labs: LabLibrary) -> list[types.Resource]:
    """The `resources/list` answer: one resource per lab, in the order of the spec."""
    return [
        types.Resource(
            uri=lab_uri(lab.slug),
            name=lab.slug,
            title=lab.title,
            description=lab.description,
            mime_type=MIME_TYPE,
            size=len(labs.markdown(lab.slug).encode()),
        )
        for lab in labs
    ]


def read_lab(labs: LabLibrary, uri: str) -> types.ReadResourceResult:
    """The `resources/read` answer for `lab://<slug>`; any other URI is a JSON-RPC invalid-params error."""
    slug = uri.removeprefix(SCHEME) if uri.startswith(SCHEME) else None
    if slug is None or labs.get(slug) is None:
        known = ", ".join(lab_uri(s) for s in labs.slugs)
        shown = uri if len(uri) <= 100 else uri[:100] + "…"
        # -32602 is what the MCP specification asks for when a resource does not exist.
        raise MCPError(
            code=types.INVALID_PARAMS, message=f"Unknown resource {shown!r}. Resources: {known}.", data={"uri": shown}
        )
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type=MIME_TYPE, text=labs.markdown(slug))]
    )
