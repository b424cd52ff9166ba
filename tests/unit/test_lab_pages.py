"""The pieces of the lab pages that need no server: Markdown to HTML, the framing policy, preview images."""

from __future__ import annotations

import io
import random

from PIL import Image, ImageDraw

from garage_tools.headers import RequestHeaders
from garage_tools.knowledge.labs import PREVIEW_HEIGHT, PREVIEW_WIDTH
from garage_tools.knowledge.loader import load_knowledge
from garage_tools.web.labs import LAB_CSP, RenderedLab, markdown_html
from garage_tools.web.pages import PAGE_HEADERS
from garage_tools.web.previews import SHOT_HEIGHT, SHOT_WIDTH, optimised_png


def test_raw_html_and_script_links_in_lab_markdown_stay_text() -> None:
    html = markdown_html('Hi <script>alert(1)</script> <b onclick="x()">b</b> [x](javascript:alert(1)) **ok**')
    assert "<script>" not in html and "<b " not in html
    assert "&lt;script&gt;" in html
    assert 'href="javascript:' not in html
    assert "<strong>ok</strong>" in html


def test_tables_in_lab_markdown_become_tables() -> None:
    assert "<table>" in markdown_html("| a | b |\n|---|---|\n| 1 | 2 |\n")


def test_only_frame_ancestors_differs_from_the_page_policy() -> None:
    page = PAGE_HEADERS["Content-Security-Policy"].split("; ")
    lab = LAB_CSP.split("; ")
    assert [d for d in lab if d not in page] == ["frame-ancestors *"]
    assert [d for d in page if d not in lab] == ["frame-ancestors 'none'"]


def test_every_lab_renders_its_sections_in_order() -> None:
    for lab in load_knowledge().labs:
        rendered = RenderedLab.of(lab)
        assert [s.anchor for s in rendered.sections] == [s.anchor for s in lab.sections]
        assert all(s.html.strip() for s in rendered.sections), lab.slug
        assert rendered.intro.startswith("<p>"), lab.slug


def test_if_none_match_lists_are_read_like_rfc_9110_says() -> None:
    def sent(value: str) -> RequestHeaders:
        return RequestHeaders(if_none_match=value)

    assert sent('"a", W/"b" ,"c"').has_current('"b"') and sent('"a", W/"b" ,"c"').has_current('"c"')
    assert not sent('"a", "c"').has_current('"b"')
    assert not sent("").has_current('"a"')
    assert sent("*").has_current('"anything"')


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def test_a_flat_ui_shot_becomes_a_small_palette_png_at_preview_size() -> None:
    shot = Image.new("RGB", (SHOT_WIDTH, SHOT_HEIGHT), "#f6f8fb")
    draw = ImageDraw.Draw(shot)
    draw.rectangle((100, 100, 700, 500), fill="#0b5cad")
    draw.text((120, 560), "The Science of Garage Doors", fill="#1d2430")
    body, palette = optimised_png(_png(shot))
    with Image.open(io.BytesIO(body)) as image:
        assert image.size == (PREVIEW_WIDTH, PREVIEW_HEIGHT) and image.mode == "P"
    assert palette and len(body) < 20_000


def test_a_shot_a_palette_would_spoil_stays_in_full_colour() -> None:
    noise = random.Random(9)
    shot = Image.frombytes("RGB", (SHOT_WIDTH, SHOT_HEIGHT), noise.randbytes(SHOT_WIDTH * SHOT_HEIGHT * 3))
    body, palette = optimised_png(_png(shot))
    with Image.open(io.BytesIO(body)) as image:
        assert image.mode == "RGB" and image.size == (PREVIEW_WIDTH, PREVIEW_HEIGHT)
    assert not palette
