"""MCP Apps (`io.modelcontextprotocol/ui`): views of the answers people look at, for hosts that render them.

A tool that names a view (`Tool.view`) is listed with `_meta.ui.resourceUri` (and the ChatGPT alias
`openai/outputTemplate`) pointing at `ui://garage-door-tools/<view>.html`; `resources/list` and
`resources/read` serve each view as `text/html;profile=mcp-app`, with its CSP declared (no outside origin:
the page carries its script, styles and words). A view is the front door's own result cards
(components/results.js and .css, components/results-words.json) plus a small bootstrap that speaks the
extension's postMessage protocol (apps/view.js). Every tool still returns its full text and structured
content, which is what the views draw; clients without apps read those as before.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

from garage_tools import __version__
from garage_tools.catalogs import translate_words
from garage_tools.languages import SUPPORTED
from garage_tools.registry import Registry, Tool

STATIC = Path(__file__).resolve().parents[1] / "web" / "static"
SCHEME = "ui://garage-door-tools/"
#: The extension's settings advertised in the server's capabilities.
SETTINGS = {"mimeTypes": [APP_MIME_TYPE]}


@dataclass(frozen=True, slots=True)
class View:
    name: str
    title: str
    description: str


VIEWS = {
    view.name: view
    for view in (
        View(
            "diagnosis",
            "Diagnosis card",
            "What the door's symptom most likely means, how urgent it is and typical costs.",
        ),
        View("pro", "Local pro card", "The local pro for a place, with call and booking links and their offers."),
        View("cost", "Cost card", "The typical cost of a repair, and how it was priced."),
        View(
            "inspection", "Inspection report", "A 24-point inspection's score, what needs attention and the next step."
        ),
        View("lab", "Lab viewer", "An interactive lab's summary, its sections and a link to open it."),
    )
}


def view_uri(name: str) -> str:
    return f"{SCHEME}{name}.html"


def tool_meta(tool: Tool[Any, Any]) -> dict[str, Any] | None:
    """The `_meta` of a tool's listing: its view, under the extension's key and ChatGPT's alias."""
    if tool.view is None:
        return None
    uri = view_uri(tool.view)
    return {"ui": {"resourceUri": uri}, "openai/outputTemplate": uri}


class Views:
    """The views' HTML, built once, and their `resources/list` entries."""

    def __init__(self, registry: Registry) -> None:
        unknown = {tool.view for tool in registry if tool.view is not None} - set(VIEWS)
        if unknown:
            raise ValueError(f"tools name views that do not exist: {sorted(unknown)}")
        self.pages = {name: _page(name) for name in VIEWS}
        self.meta = {"ui": {"csp": {}, "prefersBorder": True}}
        self.resources = [
            types.Resource(
                uri=view_uri(view.name),
                name=view.name,
                title=view.title,
                description=view.description,
                mime_type=APP_MIME_TYPE,
                size=len(self.pages[view.name].encode()),
                meta=self.meta,
            )
            for view in VIEWS.values()
        ]

    def read(self, uri: str) -> types.ReadResourceResult | None:
        """The view at `uri`, or None when `uri` is no view."""
        name = uri.removeprefix(SCHEME).removesuffix(".html") if uri.startswith(SCHEME) else None
        page = self.pages.get(name) if name is not None else None
        if page is None:
            return None
        content = types.TextResourceContents(uri=uri, mime_type=APP_MIME_TYPE, text=page, meta=self.meta)
        return types.ReadResourceResult(contents=[content])


def _page(name: str) -> str:
    """One view's page: everything inline, so the host's default CSP (no outside origin) is all it needs."""

    def read(path: str) -> str:
        return (STATIC / path).read_text(encoding="utf-8")

    def data(text: str) -> str:
        return text.replace("</", "<\\/")  # JSON inside <script> must not close it

    def in_every_language(path: str) -> str:
        """A words file in each language the service speaks: the view picks the answer's (view.js `speak`)."""
        words = json.loads(read(path))
        return data(json.dumps({code: translate_words(words, code) for code in SUPPORTED}, ensure_ascii=False))

    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(VIEWS[name].title)}</title>"
        f"<style>{read('components/results.css')}\n{read('apps/view.css')}</style></head>"
        f'<body data-view="{name}" data-version="{__version__}">'
        '<main id="view" aria-live="polite"></main>'
        f'<script type="application/json" id="card-words">{in_every_language("components/results-words.json")}'
        "</script>"
        f'<script type="application/json" id="view-words">{in_every_language("apps/words.json")}</script>'
        f"<script>{read('components/results.js')}</script>"
        f"<script>{read('apps/view.js')}</script>"
        "</body></html>"
    )


__all__ = ["APP_MIME_TYPE", "EXTENSION_ID", "SETTINGS", "VIEWS", "Views", "tool_meta", "view_uri"]
