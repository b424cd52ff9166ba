"""Pages for developers and agents: the interactive API reference, the changelog and its feed, the agent guide.

The tool lists on these pages come from the registry and the limits from the access policy, so a new tool
or a changed limit shows up here with no edit. Swagger UI is served from the `swagger-ui-py` package
installed with the service (no CDN), and only the two files the page loads.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.limits_text import overview
from garage_tools.access.policy import Access
from garage_tools.errors import ALL_ERRORS
from garage_tools.registry import AuthPolicy, Registry, Tool
from garage_tools.surfaces.responses import json_response
from garage_tools.surfaces.tool_docs import arguments_of
from garage_tools.web.assets import unchanged
from garage_tools.web.changelog import FEED_MEDIA_TYPE, KIND_LABELS, Changelog, json_feed, load_changelog
from garage_tools.web.markup import inline_html, text_html
from garage_tools.web.pages import PAGE_HEADERS, render

#: Swagger UI sets `style` attributes from script; only its page allows inline styles (scripts stay 'self').
API_REFERENCE_HEADERS = {
    "Content-Security-Policy": PAGE_HEADERS["Content-Security-Policy"].replace(
        "style-src 'self'", "style-src 'self' 'unsafe-inline'"
    )
}
SWAGGER_ASSETS = frozenset({"swagger-ui-bundle.js", "swagger-ui.css"})
ASSET_MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def swagger_ui_directory() -> Path:
    """The `static/` folder of the installed `swagger-ui-py`, found without importing the package."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed; it serves /developers/api")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


class CompressedFiles:
    """A few named files of a directory, each read once, then served from memory with a strong ETag, 304s and
    a day's caching (they change only with the package).

    The Swagger UI bundle is 1.5 MB and 411 KB gzipped; compressing it on each view of the reference page
    cost about 70 ms of CPU. The compression layer (surfaces/compression.py) compresses an answer with a
    strong ETag once and keeps it.
    """

    CACHE = "public, max-age=86400"

    def __init__(self, directory: Path, names: frozenset[str]) -> None:
        missing = sorted(name for name in names if not (directory / name).is_file())
        if missing:
            raise RuntimeError(f"{directory} lacks {', '.join(missing)}")
        self.directory = directory
        self.names = names
        self._files: dict[str, tuple[bytes, str]] = {}  # name -> (bytes, ETag)

    def _file(self, name: str) -> tuple[bytes, str]:
        found = self._files.get(name)
        if found is None:
            plain = (self.directory / name).read_bytes()
            found = self._files[name] = (plain, f'"{hashlib.sha256(plain).hexdigest()[:32]}"')
        return found

    async def serve(self, request: Request) -> Response:
        """`GET …/{name}`: one of the files (compressed on the way out for clients that take it)."""
        name = request.path_params["name"]
        if name not in self.names:
            raise HTTPException(status_code=404)
        plain, etag = self._file(name)
        headers = {"ETag": etag, "Cache-Control": self.CACHE}
        if (current := unchanged(request, etag, headers)) is not None:
            return current
        return Response(plain, media_type=ASSET_MEDIA_TYPES[Path(name).suffix], headers=headers)


@dataclass(frozen=True)
class ToolArgument:
    name: str
    type: str
    required: bool
    description: Markup


@dataclass(frozen=True)
class ToolGuide:
    """What the agent guide shows of one tool."""

    tool: Tool[Any, Any]
    description: Markup
    arguments: list[ToolArgument]

    @property
    def needs_key(self) -> bool:
        return self.tool.auth is AuthPolicy.BEARER


def tool_guides(registry: Registry) -> list[ToolGuide]:
    return [
        ToolGuide(
            tool,
            text_html(tool.description),
            [ToolArgument(a.name, a.type, a.required, inline_html(a.description)) for a in arguments_of(tool)],
        )
        for tool in registry
    ]


class DocsPages:
    def __init__(self, access: Access, registry: Registry, changelog: Changelog) -> None:
        self.access = access
        self.registry = registry
        self.changelog = changelog

    def _base(self, request: Request) -> str:
        return self.access.base_url(request.scope)

    async def api_reference(self, request: Request) -> Response:
        return render(request, "api_reference.html", {"base": self._base(request)}, headers=API_REFERENCE_HEADERS)

    async def changelog_page(self, request: Request) -> Response:
        entries = [
            {"entry": entry, "label": KIND_LABELS[entry.kind], "body": text_html(entry.body)}
            for entry in self.changelog.newest_first()
        ]
        return render(request, "changelog.html", {"base": self._base(request), "entries": entries})

    async def changelog_feed(self, request: Request) -> Response:
        response = json_response(json_feed(self.changelog, self._base(request)))
        response.headers["content-type"] = FEED_MEDIA_TYPE
        return response

    async def agent_guide(self, request: Request) -> Response:
        context = {
            "base": self._base(request),
            "guides": tool_guides(self.registry),
            "limits": overview(self.access.limits),
            "errors": [(error.code, error.status) for error in ALL_ERRORS],
        }
        return render(request, "ai.html", context)


def docs_routes(access: Access, registry: Registry, changelog: Changelog | None = None) -> list[BaseRoute]:
    """The routes of these pages. Reads and validates the changelog now, so a bad entry stops start-up."""
    pages = DocsPages(access, registry, changelog or load_changelog())
    assets = CompressedFiles(swagger_ui_directory(), SWAGGER_ASSETS)
    return [
        Route("/developers/api", pages.api_reference, methods=["GET"]),
        Route("/developers/api/assets/{name}", assets.serve, methods=["GET"]),
        Route("/developers/changelog", pages.changelog_page, methods=["GET"]),
        Route("/developers/changelog.json", pages.changelog_feed, methods=["GET"]),
        Route("/ai", pages.agent_guide, methods=["GET"]),
        # The path other services give their agent guide.
        Route("/brain", lambda request: RedirectResponse("/ai", status_code=308), methods=["GET"]),
    ]
