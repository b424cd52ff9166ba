"""`getLab` and `getLabEmbed`: one lab as a preview card, or as HTML a site can paste in.

Both answer from the lab Markdown in the knowledge base and the committed preview images, and
neither fails for want of a preview: until `garage-tools labs render-previews` has drawn one, the
preview URL is still returned (the page serves it once it exists) and the inline image is left out.
The preview comes inline (base64) only on MCP, where clients show image content blocks; REST
callers such as GPT Actions get the URL alone, which keeps their answers near two kilobytes.
"""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path

from pydantic import Field, field_validator
from pydantic.config import JsonDict

from garage_tools.errors import ToolFailed
from garage_tools.knowledge.labs import (
    LAB_SLUGS,
    PREVIEW_DIR,
    PREVIEW_HEIGHT,
    PREVIEW_WIDTH,
    Lab,
    lab_url,
    preview_url,
    section_url,
)
from garage_tools.knowledge.loader import Knowledge
from garage_tools.models import InlineImage, InputModel, OutputModel
from garage_tools.registry import Tool, ToolContext

PREVIEW_MIME_TYPE = "image/png"
#: What the embedded frame may do: run the lab's scripts, and open the full lab in a new tab (the embed bar's
#: "Open full lab" link), which escapes the sandbox so the lab runs there as on our site. Nothing more. No
#: `allow-same-origin`: no lab uses storage, cookies or fetch, and without it the frame runs in an opaque
#: origin, so nothing in it can reach this site's cookies or storage (nor, framed by one of our own pages,
#: remove its own sandbox). No top navigation, so the host page stays put; no forms. And no
#: `allow="fullscreen"`: no lab asks to go full screen.
IFRAME_SANDBOX = "allow-scripts allow-popups allow-popups-to-escape-sandbox"
#: Without the loader (or where a host's CSP refuses inline styles, and the width and height attributes
#: apply): the container's width and a phone-friendly height, never taller than most of the screen. The
#: loader then grows the frame to the lab's full height.
IFRAME_STYLE = "display:block;width:100%;height:640px;max-height:85vh;border:0"
IFRAME_WIDTH = "100%"
IFRAME_HEIGHT = "640"
IFRAME_REFERRER_POLICY = "strict-origin-when-cross-origin"
#: The embed loader (static/labs/embed.js), served by the service at this path.
LOADER_PATH = "/labs/embed.js"


def check_lab_slug(value: str | None, field: str) -> str | None:
    """An input validator: `value` must be one of the eleven lab slugs (None passes: "not given")."""
    if value is not None and value not in LAB_SLUGS:
        raise ValueError(f"unknown {field} {value!r}. Lab slugs: {', '.join(LAB_SLUGS)}")
    return value


def publish_slug_enum(schema: JsonDict) -> None:
    """Publish the slugs in the input schema, so clients can offer them and validate before calling."""
    schema.update(enum=list(LAB_SLUGS))


def publish_optional_slug_enum(schema: JsonDict) -> None:
    """As `publish_slug_enum`, for an optional field (null means "not given")."""
    schema.update(enum=[*LAB_SLUGS, None])


class LabInput(InputModel):
    slug: str = Field(
        max_length=64,
        description="The lab's slug, e.g. `science-of-garage-door-springs`.",
        examples=["science-of-garage-door-springs"],
        json_schema_extra=publish_slug_enum,
    )

    @field_validator("slug")
    @classmethod
    def _known_slug(cls, value: str) -> str:
        check_lab_slug(value, "slug")
        return value


class LabPreview(OutputModel):
    """A 16:9 screenshot of the live lab."""

    url: str = Field(description="The PNG, served by this service.")
    width: int = Field(description="Pixels.")
    height: int = Field(description="Pixels.")
    mime_type: str = Field(description="Always `image/png`.")
    alt: str = Field(description="Alternative text to show with the image.")
    image: InlineImage | None = Field(
        default=None,
        description=(
            "MCP only: the same PNG as base64, which MCP clients also receive as an image content block. "
            "Absent on REST, and while the preview has not been rendered yet."
        ),
    )


class SectionLink(OutputModel):
    title: str
    anchor: str
    url: str = Field(description="The section on the live lab page; cite it.")


class LabOutput(OutputModel):
    slug: str
    title: str
    description: str
    url: str = Field(description="The live, interactive lab page.")
    interactive: str = Field(description="What the lab's interactive part lets the reader do.")
    preview: LabPreview
    sections: list[SectionLink] = Field(description="The lab's sections, in page order.")


class LabEmbedOutput(OutputModel):
    slug: str
    title: str
    url: str = Field(description="The live lab page, for a plain link next to (or instead of) the frame.")
    embed_url: str = Field(description="The page the frame loads: the lab with a slim bar instead of site navigation.")
    iframe_html: str = Field(
        description=(
            "Paste into any HTML page: a lazily loaded, sandboxed iframe that fills the width of its container "
            "(640 px tall, at most 85% of the screen), followed by the service's small loader script, which grows "
            "the frame to the lab's full height. Without the script the frame still works at its first height."
        )
    )
    width: int = Field(description="Suggested width in pixels where a fixed size is needed (16:9).")
    height: int = Field(description="Suggested height in pixels where a fixed size is needed.")


def lab_or_fail(knowledge: Knowledge, slug: str) -> Lab:
    """The lab for a validated slug (the loader guarantees all eleven; this guards a broken deploy)."""
    lab = knowledge.labs.get(slug)
    if lab is None:
        raise ToolFailed(f"The lab {slug!r} is not available on this server.")
    return lab


def preview_image(knowledge: Knowledge, slug: str, previews: Path = PREVIEW_DIR) -> InlineImage | None:
    """The lab's preview PNG in `previews` as an InlineImage, read on first use and kept; None until rendered.

    A missing file is not remembered, so a preview rendered while the service runs is picked up.
    """
    path = previews / f"{slug}.png"
    cache: dict[Path, InlineImage] = knowledge.derived("lab_preview_images", dict)
    image = cache.get(path)
    if image is None:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        image = cache[path] = InlineImage(data=base64.b64encode(data).decode("ascii"), mime_type=PREVIEW_MIME_TYPE)
    return image


def describe_lab(
    knowledge: Knowledge, slug: str, base_url: str, *, inline_preview: bool, previews: Path = PREVIEW_DIR
) -> LabOutput:
    """The getLab answer; the preview image itself is included only when `inline_preview` is set."""
    lab = lab_or_fail(knowledge, slug)
    preview = LabPreview(
        url=preview_url(base_url, slug),
        width=PREVIEW_WIDTH,
        height=PREVIEW_HEIGHT,
        mime_type=PREVIEW_MIME_TYPE,
        alt=f"Screenshot of the interactive lab “{lab.title}”. {lab.interactive}",
        image=preview_image(knowledge, slug, previews) if inline_preview else None,
    )
    return LabOutput(
        slug=slug,
        title=lab.title,
        description=lab.description,
        url=lab_url(base_url, slug),
        interactive=lab.interactive,
        preview=preview,
        sections=[
            SectionLink(title=s.title, anchor=s.anchor, url=section_url(base_url, slug, s.anchor)) for s in lab.sections
        ],
    )


def iframe_html(src: str, title: str, loader: str | None = None) -> str:
    """A full-width iframe, then the `loader` script that fits it to the lab; every attribute value HTML-escaped."""
    attributes = {
        "src": src,
        "title": title,
        "loading": "lazy",
        "sandbox": IFRAME_SANDBOX,
        "referrerpolicy": IFRAME_REFERRER_POLICY,
        "width": IFRAME_WIDTH,
        "height": IFRAME_HEIGHT,
        "style": IFRAME_STYLE,
        "data-garage-lab": None,
    }
    rendered = " ".join(
        name if value is None else f'{name}="{escape(value, quote=True)}"' for name, value in attributes.items()
    )
    frame = f"<iframe {rendered}></iframe>"
    if loader is None:
        return frame
    return f'{frame}\n<script src="{escape(loader, quote=True)}" async></script>'


def embed_lab(knowledge: Knowledge, slug: str, base_url: str) -> LabEmbedOutput:
    return lab_embed(lab_or_fail(knowledge, slug), base_url)


def lab_embed(lab: Lab, base_url: str) -> LabEmbedOutput:
    """The getLabEmbed answer for `lab`; the lab pages' "Embed this lab" shows the same HTML."""
    slug = lab.slug
    page = lab_url(base_url, slug)
    embed = f"{page}?embed=1"
    return LabEmbedOutput(
        slug=slug,
        title=lab.title,
        url=page,
        embed_url=embed,
        iframe_html=iframe_html(embed, f"{lab.title} (interactive lab)", f"{base_url}{LOADER_PATH}"),
        width=PREVIEW_WIDTH,
        height=PREVIEW_HEIGHT,
    )


async def get_lab(args: LabInput, ctx: ToolContext) -> LabOutput:
    inline = ctx.caller.takes_image_blocks
    return describe_lab(ctx.knowledge, args.slug, ctx.base_url, inline_preview=inline)


async def get_lab_embed(args: LabInput, ctx: ToolContext) -> LabEmbedOutput:
    return embed_lab(ctx.knowledge, args.slug, ctx.base_url)


_SLUGS_SENTENCE = f"The eleven slugs: {', '.join(LAB_SLUGS)}."

GET_LAB = Tool(
    name="getLab",
    view="lab",
    icon="lab",
    title="An interactive lab, as a preview card",
    summary="One interactive garage-door lab: title, description, live URL and a 16:9 preview image.",
    description=(
        "Returns a lab's title, description, the URL of its live interactive page, its sections (with citable "
        "URLs) and a 960x540 preview image (URL, size and alt text; over MCP the image itself also arrives as an "
        "image content block). Use it when you cannot render iframes or HTML, e.g. in a chat: show the preview "
        "and link to the live lab. To put the working lab inside a web page, use getLabEmbed instead. "
        + _SLUGS_SENTENCE
    ),
    input_model=LabInput,
    output_model=LabOutput,
    handler=get_lab,
)

GET_LAB_EMBED = Tool(
    name="getLabEmbed",
    icon="embed",
    title="An interactive lab, as embeddable HTML",
    summary="Iframe HTML (full width, grows to the lab's height, lazy, sandboxed) and the lab's direct URL.",
    description=(
        "Returns ready-to-paste HTML for a lab: a sandboxed, lazily loaded iframe that fills the width of the page "
        "and a small loader script that grows it to the lab's height, so it reads well on a phone (the lab's "
        "scripts run and its 'Open full lab' link opens the lab in a new tab, but the frame cannot navigate "
        "the host page, submit forms or use cookies or storage) plus the direct URL. Use it when the result "
        "will be shown as HTML, e.g. on a contractor's website or in a client that renders embeds. Callers "
        "that cannot render iframes should use getLab, which returns a static preview image. " + _SLUGS_SENTENCE
    ),
    input_model=LabInput,
    output_model=LabEmbedOutput,
    handler=get_lab_embed,
)
