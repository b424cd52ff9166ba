"""The labs: an index at `/labs`, a page per lab at `/labs/<slug>` and its preview at `/labs/<slug>/preview.png`.

Pages render from the lab Markdown in the running service's knowledge (`knowledge/labs.py`), the same text
`retrieveLabContext` cites, so the anchor of a retrieved chunk is an `id` on the page. Labs are made to be
embedded by other sites (`getLabEmbed`): their pages alone allow any frame ancestor, and `?embed=1` swaps
the site navigation for a one-line bar fit for a small frame. Everything else about their headers stays
as strict as any page's: scripts and styles from this origin only, no inline script.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from garage_tools.access.policy import Access
from garage_tools.knowledge.labs import (
    PREVIEW_DIR,
    PREVIEW_HEIGHT,
    PREVIEW_WIDTH,
    Lab,
    LabLibrary,
    lab_url,
    preview_url,
)
from garage_tools.services import Services
from garage_tools.tools.labs import LOADER_PATH, lab_embed
from garage_tools.web.assets import BuiltAsset, unchanged
from garage_tools.web.pages import PAGE_HEADERS, STATIC, render

_CSP = "Content-Security-Policy"
#: Any site may frame a lab; nothing else about the policy changes.
LAB_CSP = PAGE_HEADERS[_CSP].replace("frame-ancestors 'none'", "frame-ancestors *")
#: The same page for everyone; a few minutes of caching spares the server a page per embed view.
LAB_PAGE_CACHE = "public, max-age=300"
#: Previews change only when a lab is redrawn and redeployed; clients revalidate with the ETag after a week.
PREVIEW_CACHE = "public, max-age=604800"

#: CommonMark with tables; raw HTML in the Markdown is shown as text, and markdown-it refuses
#: `javascript:` and similar link targets.
_markdown = MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown_html(text: str) -> Markup:
    """Lab Markdown as HTML. Safe to mark up: with `html` off every character of the source is escaped."""
    return Markup(_markdown.render(text))  # noqa: S704


@dataclass(frozen=True, slots=True)
class RenderedSection:
    anchor: str
    title: str
    html: Markup


@dataclass(frozen=True, slots=True)
class RenderedLab:
    """A lab with its Markdown turned into HTML once, at start-up (the text never changes while running)."""

    lab: Lab
    intro: Markup
    sections: tuple[RenderedSection, ...]

    @classmethod
    def of(cls, lab: Lab) -> RenderedLab:
        sections = tuple(RenderedSection(s.anchor, s.title, markdown_html(s.markdown)) for s in lab.sections)
        return cls(lab, markdown_html(lab.intro_markdown), sections)


@dataclass(frozen=True, slots=True)
class Preview:
    """One preview image as read from disk, with its content hash as the ETag."""

    stamp: tuple[int, int]  # (mtime_ns, size): re-read when `render-previews` replaces the file
    body: bytes
    etag: str


#: The committed images of a lab, by file suffix: the preview (`getLab`, link cards) and its thumbnail (`/labs`).
IMAGE_TYPES = {"png": "image/png", "webp": "image/webp"}


class PreviewFiles:
    """The committed previews (`<slug>.png`) and thumbnails (`<slug>.webp`), read on first request and
    again whenever a file changes.

    The ETag is a hash of the bytes, not of the file's mtime, so every host of a deployment (each with
    its own checkout time) answers the same ETag for the same image.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._cache: dict[str, Preview] = {}

    def exists(self, slug: str, suffix: str = "png") -> bool:
        return (self.directory / f"{slug}.{suffix}").is_file()

    def get(self, slug: str, suffix: str = "png") -> Preview | None:
        name = f"{slug}.{suffix}"
        path = self.directory / name
        try:
            stat = path.stat()
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._cache.get(name)
        if cached is None or cached.stamp != stamp:
            body = path.read_bytes()
            cached = self._cache[name] = Preview(stamp, body, f'"{hashlib.sha256(body).hexdigest()[:32]}"')
        return cached


def versioned(url: str) -> str:
    """A script's `/static/...` URL with the hash of its bytes as `?v=`, as the built assets carry.

    The lab scripts call helpers of lab-kit.js, and /static sends no Cache-Control, so a browser may reuse a cached
    copy without asking: a new lab script beside the kit it cached before a deploy would find a helper missing and
    leave the widget empty. A changed file gets a new URL, so the pair a page names is always fetched together.
    """
    body = (STATIC / url.removeprefix("/static/")).read_bytes()
    return f"{url}?v={BuiltAsset(body, 'text/javascript; charset=utf-8').fingerprint}"


def frameable(response: Response) -> Response:
    """`response` with the lab pages' headers: any site may frame it."""
    del response.headers["X-Frame-Options"]
    response.headers[_CSP] = LAB_CSP
    response.headers["Cache-Control"] = LAB_PAGE_CACHE
    return response


class LabPages:
    def __init__(self, labs: LabLibrary, access: Access, previews: PreviewFiles) -> None:
        self.labs = labs
        self.rendered = {lab.slug: RenderedLab.of(lab) for lab in labs}
        self.access = access
        self.previews = previews
        # read once at start-up, as the files change only with a deploy
        self.kit = versioned("/static/labs/lab-kit.js")
        self.scripts = {lab.slug: versioned(f"/static/labs/{lab.slug}.js") for lab in labs}

    def _base(self, request: Request) -> str:
        return self.access.base_url(request.scope)

    def _snippets(self, base: str) -> dict[str, str]:
        """Each lab's embed HTML, as getLabEmbed gives it, for the "Embed this lab" disclosures."""
        return {lab.slug: lab_embed(lab, base).iframe_html for lab in self.labs}

    async def index(self, request: Request) -> Response:
        base = self._base(request)
        cards = [(lab, self.previews.exists(lab.slug, "webp")) for lab in self.labs]
        context = {"cards": cards, "canonical": f"{base}/labs", "embed": False}
        context["snippets"] = self._snippets(base)  # each lab's "Embed this lab" code
        return frameable(render(request, "labs/index.html", context))

    async def lab_page(self, request: Request) -> Response:
        rendered = self.rendered.get(request.path_params["slug"])
        if rendered is None:
            raise HTTPException(status_code=404)  # the site's not-found page (or envelope), as for any path
        base = self._base(request)
        slug = rendered.lab.slug
        context = {
            "lab": rendered.lab,
            "intro": rendered.intro,
            "sections": rendered.sections,
            "embed": request.query_params.get("embed") == "1",
            "canonical": lab_url(base, slug),
            "preview": preview_url(base, slug) if self.previews.exists(slug) else None,
            "preview_width": PREVIEW_WIDTH,
            "preview_height": PREVIEW_HEIGHT,
            "kit": self.kit,
            "script": self.scripts[slug],
            "snippet": lab_embed(rendered.lab, base).iframe_html,
        }
        return frameable(render(request, "labs/lab.html", context))

    async def preview(self, request: Request) -> Response:
        return self._image(request, "png")

    async def thumbnail(self, request: Request) -> Response:
        return self._image(request, "webp")

    def _image(self, request: Request, suffix: str) -> Response:
        slug = request.path_params["slug"]
        found = self.previews.get(slug, suffix) if self.labs.get(slug) is not None else None
        if found is None:
            raise HTTPException(status_code=404)
        headers = {"ETag": found.etag, "Cache-Control": PREVIEW_CACHE, "X-Content-Type-Options": "nosniff"}
        if (current := unchanged(request, found.etag, headers)) is not None:
            return current
        return Response(found.body, media_type=IMAGE_TYPES[suffix], headers=headers)


def lab_routes(services: Services, access: Access) -> list[BaseRoute]:
    """The routes of the lab pages and previews, and the embed loader, for `create_app`'s route list."""
    pages = LabPages(services.knowledge.labs, access, PreviewFiles(PREVIEW_DIR))
    loader = BuiltAsset((STATIC / "labs" / "embed.js").read_bytes(), "text/javascript; charset=utf-8")

    async def embed_loader(request: Request) -> Response:
        return loader.respond(request)

    return [
        Route(LOADER_PATH, embed_loader, methods=["GET"]),  # before /labs/{slug}, which would take it for a slug
        Route("/labs", pages.index, methods=["GET"]),
        Route("/labs/{slug}", pages.lab_page, methods=["GET"]),
        Route("/labs/{slug}/preview.png", pages.preview, methods=["GET"]),
        Route("/labs/{slug}/thumbnail.webp", pages.thumbnail, methods=["GET"]),
    ]
