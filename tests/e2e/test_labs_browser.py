"""The labs in a real server and Debian's Chromium: pages, previews, embedding on another site, and framing rules.

Every lab page must load cleanly (no console error, no failed request) and its widget must answer its main
control, as the widgets' contract says: one `data-lab-input` whose change alters the text of one
`data-lab-output`. The getLabEmbed iframe is pasted into a page served by a second loopback server, so
the lab runs cross-origin inside the frame exactly as on a contractor's site.
"""

from __future__ import annotations

import functools
import html
import http.server
import io
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from markupsafe import escape
from PIL import Image
from playwright.sync_api import expect

from garage_tools.knowledge.labs import LAB_SLUGS, PREVIEW_HEIGHT, PREVIEW_WIDTH, Lab
from garage_tools.knowledge.loader import load_knowledge
from tests.conftest import LiveServer
from tests.e2e.test_docs_pages import BROWSER_ACCEPT, parse

PHONE = {"width": 360, "height": 740}
FRAME_PAGE_WIDTH = {"width": 1024, "height": 768}
MAX_PREVIEW_BYTES = 100_000
#: The contractor's pages name an empty icon, so the browser's /favicon.ico request cannot 404 into the log.
NO_FAVICON = "<link rel='icon' href='data:,'>"
LABS: dict[str, Lab] = {lab.slug: lab for lab in load_knowledge().labs}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def contractor_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Another origin (a second loopback port) and the folder its pages are served from."""
    folder = tmp_path_factory.mktemp("contractor-site")
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()
    server.server_close()


def watch(page: Any) -> list[str]:
    """Every console error, script error, failed request and 4xx/5xx answer `page` (and its frames) sees."""
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("requestfailed", lambda request: problems.append(f"failed: {request.url} {request.failure}"))
    page.on("response", lambda r: problems.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
    return problems


def drive_main_control(scope: Any) -> tuple[str, str]:
    """Change the widget's `data-lab-input` as the contract says; the output's text before and after."""
    control = scope.locator("[data-lab-input]")
    output = scope.locator("[data-lab-output]")
    assert control.count() == 1 and output.count() == 1
    before = output.text_content()
    kind = control.evaluate("element => element.tagName.toLowerCase() + ':' + (element.type || '')")
    if kind.startswith("select"):
        other = control.evaluate("s => [...s.options].find(o => !o.selected && !o.disabled).value")
        control.select_option(other)
    elif kind.startswith("button"):
        control.click()
    else:
        control.evaluate(
            """input => {
                input.value = input.value === input.max ? input.min : input.max;
                input.dispatchEvent(new Event('input', {bubbles: true}));
                input.dispatchEvent(new Event('change', {bubbles: true}));
            }"""
        )
    expect(output).not_to_have_text(before or "", timeout=5_000)
    return before or "", output.text_content() or ""


# ---- Plain HTTP: headers, content, previews, not found ----


@pytest.mark.parametrize("path", ["/labs", "/labs/animated", "/labs/animated?embed=1"])
def test_lab_pages_may_be_framed_by_any_site_and_keep_the_strict_policy(api: httpx.Client, path: str) -> None:
    response = api.get(path, headers={"Accept": BROWSER_ACCEPT})
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors *" in policy and "'none'" not in policy
    assert "x-frame-options" not in response.headers
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert all(script.get("src") for script in parse(response.text).scripts), "no inline scripts"


@pytest.mark.parametrize("path", ["/developers", "/ai", "/inspection", "/labs/no-such-lab"])
def test_other_pages_still_refuse_framing(api: httpx.Client, path: str) -> None:
    response = api.get(path, headers={"Accept": BROWSER_ACCEPT})
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("slug", LAB_SLUGS)
def test_a_lab_page_has_its_text_sections_with_anchors_and_its_widget(api: httpx.Client, slug: str) -> None:
    lab = LABS[slug]
    body = api.get(f"/labs/{slug}").text
    page = parse(body)
    assert f"<h1>{lab.title}</h1>" in html.unescape(body)
    assert str(escape(lab.description)) in body
    for section in lab.sections:
        assert section.anchor in page.ids, section.anchor
        assert f'href="#{section.anchor}"' in body  # the visible link to the section
    assert f'id="lab-interactive" data-slug="{slug}"' in body
    assert [s["src"] for s in page.scripts] == ["/static/labs/lab-kit.js", f"/static/labs/{slug}.js"]
    assert all("defer" in script for script in page.scripts)
    assert "/static/labs/labs.css" in body and '<header class="site">' in body  # the site navigation


def test_embed_mode_swaps_the_site_navigation_for_a_slim_bar(api: httpx.Client, live_server: LiveServer) -> None:
    body = api.get("/labs/garage-door-anatomy?embed=1").text
    assert '<header class="site lab-bar">' in body and '<footer class="site">' not in body
    assert 'href="/developers"' not in body
    assert f'href="{live_server.url}/labs/garage-door-anatomy" target="_blank" rel="noopener"' in body


def test_the_index_links_every_lab_in_order_with_its_preview(api: httpx.Client) -> None:
    body = api.get("/labs", headers={"Accept": BROWSER_ACCEPT}).text
    positions = [body.index(f'href="/labs/{slug}"') for slug in LAB_SLUGS]
    assert positions == sorted(positions)
    for slug in LAB_SLUGS:
        assert f'src="/labs/{slug}/preview.png"' in body, slug
        assert str(escape(LABS[slug].description)) in body


@pytest.mark.parametrize("slug", LAB_SLUGS)
def test_each_preview_is_a_small_960x540_png_with_cache_headers(api: httpx.Client, slug: str) -> None:
    response = api.get(f"/labs/{slug}/preview.png")
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    assert "max-age=" in response.headers["cache-control"] and "public" in response.headers["cache-control"]
    assert len(response.content) < MAX_PREVIEW_BYTES
    with Image.open(io.BytesIO(response.content)) as image:
        assert image.format == "PNG" and image.size == (PREVIEW_WIDTH, PREVIEW_HEIGHT)
        darkest = image.convert("L").getextrema()[0]
        assert isinstance(darkest, int) and darkest < 100, "a real screenshot has dark text on it"
    etag = response.headers["etag"]
    again = api.get(f"/labs/{slug}/preview.png", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag


def test_unknown_labs_are_the_site_not_found_page_or_envelope(api: httpx.Client) -> None:
    page = api.get("/labs/no-such-lab", headers={"Accept": BROWSER_ACCEPT})
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "Page not found" in page.text and "/labs/no-such-lab" in page.text
    for path in ("/labs/no-such-lab", "/labs/no-such-lab/preview.png", "/labs/animated/nothing.png"):
        response = api.get(path, headers={"Accept": "application/json"})
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found", path


# ---- In Chromium ----


@pytest.mark.parametrize("slug", LAB_SLUGS)
def test_each_lab_loads_cleanly_on_a_phone_and_its_widget_responds(
    browser: Any, live_server: LiveServer, slug: str
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems = watch(page)
    page.goto(f"{live_server.url}/labs/{slug}", wait_until="networkidle")
    page.locator("#lab-interactive [data-lab-output]").wait_for(state="attached")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "no sideways scrolling"
    before, after = drive_main_control(page)
    assert after != before, f"{slug}: the output did not change"
    assert problems == []
    context.close()


def test_the_index_shows_every_preview(browser: Any, live_server: LiveServer) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = watch(page)
    page.goto(f"{live_server.url}/labs")
    cards = page.locator(".lab-card")
    assert cards.count() == len(LAB_SLUGS)
    for index in range(cards.count()):
        image = cards.nth(index).locator("img")
        image.scroll_into_view_if_needed()
        page.wait_for_function("image => image.complete && image.naturalWidth > 0", arg=image.element_handle())
        assert image.evaluate("image => image.naturalWidth") == PREVIEW_WIDTH
    assert problems == []
    page.close()


@pytest.mark.parametrize("slug", ["safety-systems-lab", "science-of-garage-door-springs"])
def test_the_embed_html_runs_the_lab_on_another_sites_page(
    browser: Any, live_server: LiveServer, contractor_site: tuple[str, Path], slug: str
) -> None:
    embed = httpx.post(f"{live_server.url}/api/v1/getLabEmbed", json={"slug": slug}, timeout=10).json()
    origin, folder = contractor_site
    (folder / f"{slug}.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Smith Garage Doors</title>"
        f"{NO_FAVICON}</head><body><h1>Learn about your door</h1>"
        f"<div style='max-width:900px'>{embed['iframeHtml']}</div></body></html>",
        encoding="utf-8",
    )
    page = browser.new_page(viewport=FRAME_PAGE_WIDTH)
    page.set_default_timeout(15_000)
    problems = watch(page)
    page.goto(f"{origin}/{slug}.html")
    frame = page.frame_locator("iframe")
    frame.locator("#lab-interactive [data-lab-output]").wait_for(state="attached")
    assert frame.locator("h1").inner_text() == LABS[slug].title
    assert frame.locator("header.lab-bar").is_visible()
    box = page.locator("iframe").bounding_box()
    assert box is not None and abs(box["width"] / box["height"] - 16 / 9) < 0.02  # responsive 16:9
    before, after = drive_main_control(frame)
    assert after != before
    assert problems == []
    page.close()


def test_a_page_that_is_not_a_lab_refuses_to_be_framed(
    browser: Any, live_server: LiveServer, contractor_site: tuple[str, Path]
) -> None:
    origin, folder = contractor_site
    (folder / "framing.html").write_text(
        f"<!doctype html><title>framing</title>{NO_FAVICON}<iframe src='{live_server.url}/developers'></iframe>"
        f"<iframe src='{live_server.url}/labs/animated?embed=1'></iframe>",
        encoding="utf-8",
    )
    page = browser.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    page.goto(f"{origin}/framing.html", wait_until="networkidle")
    assert any("frame-ancestors 'none'" in text for text in messages), messages
    urls = [frame.url for frame in page.frames]
    assert f"{live_server.url}/labs/animated?embed=1" in urls  # the lab beside it is allowed
    developers = [frame for frame in page.frames[1:] if "/labs/" not in frame.url]
    assert developers and developers[0].locator("header.site").count() == 0  # blocked: nothing rendered
    page.close()


def test_render_previews_draws_a_real_screenshot(live_server: LiveServer, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "garage_tools", "labs", "render-previews", "--only", "animated",
         "--base-url", live_server.url, "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    written = tmp_path / "animated.png"
    assert f"wrote {written}" in result.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == ["animated.png"]
    with Image.open(written) as image:
        assert image.size == (PREVIEW_WIDTH, PREVIEW_HEIGHT)
        colours = image.convert("RGB").getcolors(maxcolors=100_000)
        assert colours is not None and len(colours) > 20, "a screenshot, not a blank canvas"
    assert written.stat().st_size < MAX_PREVIEW_BYTES


def test_render_previews_refuses_an_unknown_slug(live_server: LiveServer, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "garage_tools", "labs", "render-previews", "--only", "nope", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "nope" in result.stderr
    assert list(tmp_path.iterdir()) == []
