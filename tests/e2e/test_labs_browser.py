"""The labs in a real server and Debian's Chromium: pages, previews, embedding on another site, and framing rules.

Every lab page must load cleanly (no console error, no failed request) and its widget must answer its main
control, as the widgets' contract says: one `data-lab-input` whose change alters the text of one
`data-lab-output`. The calculators' default figures are checked against values worked out here from the
formulas of the reference (domain-facts.md), so a formula broken in a lab's script fails. The getLabEmbed
iframe is pasted into a page served by a second loopback server, so every lab runs cross-origin inside the
sandboxed frame exactly as on a contractor's site.
"""

from __future__ import annotations

import functools
import hashlib
import html
import http.server
import io
import math
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from markupsafe import escape
from PIL import Image, ImageChops, ImageStat
from playwright.sync_api import expect

from garage_tools.knowledge.labs import (
    LAB_SLUGS,
    PREVIEW_DIR,
    PREVIEW_HEIGHT,
    PREVIEW_WIDTH,
    THUMBNAIL_HEIGHT,
    THUMBNAIL_WIDTH,
    Lab,
)
from garage_tools.knowledge.loader import load_knowledge
from garage_tools.web.pages import STATIC
from tests.conftest import LiveServer
from tests.e2e.test_docs_pages import BROWSER_ACCEPT, parse

PHONE = {"width": 360, "height": 740}
#: The labs format numbers in the reader's locale; the expected figures below are written for this one.
LOCALE = "en-US"
FRAME_PAGE_WIDTH = {"width": 1024, "height": 768}
MAX_PREVIEW_BYTES = 100_000
#: A fresh shot may differ from the committed preview in a few pixels (a caret, anti-aliasing); a changed
#: layout, text or colour moves far more than this share.
MAX_PREVIEW_DRIFT = 0.005
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


def headline_figures(scope: Any) -> dict[str, str]:
    """The widget's headline cards (LabKit.stats), label -> the text shown."""
    figures: dict[str, str] = scope.locator("#lab-interactive .lab-stat").evaluate_all(
        """cards => Object.fromEntries(cards.map(card => [
            card.querySelector('.lab-stat-label').textContent,
            card.querySelector('.lab-stat-value').textContent,
        ]))"""
    )
    return figures


def script_version(name: str) -> str:
    """The `?v=` a lab page puts on the script `name`: the first 12 hex digits of the SHA-256 of its bytes."""
    return hashlib.sha256((STATIC / "labs" / name).read_bytes()).hexdigest()[:12]


def embed_on_contractor_site(live_server: LiveServer, folder: Path, slug: str) -> str:
    """Ask getLabEmbed for `slug` and paste its iframe into a page of the contractor's site; the page's name."""
    embed = httpx.post(f"{live_server.url}/api/v1/getLabEmbed", json={"slug": slug}, timeout=10).json()
    (folder / f"{slug}.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Smith Garage Doors</title>"
        f"{NO_FAVICON}</head><body><h1>Learn about your door</h1>"
        f"<div style='max-width:900px'>{embed['iframeHtml']}</div></body></html>",
        encoding="utf-8",
    )
    return f"{slug}.html"


# ---- The calculators' default figures, worked out from the reference formulas ----


def number(value: float, digits: int = 0) -> str:
    """`value` as LabKit.fmt shows it in en-US: thousands separators and a fixed count of decimals."""
    return f"{value:,.{digits}f}"


def springs_defaults() -> dict[str, str]:
    """domain-facts.md 7.1 on the 7.2 worked example: a 160 lb, 7 ft door on 4 in. drums with two springs."""
    weight, drum, height, springs = 160, 4.0, 84, 2
    torque = weight * drum / 2  # T = W x r, in-lb
    turns = 7 * 4 / 4 + 2 / 4  # the quarter-turn rule: height_ft x 4 + 1 to 2 quarter-turns -> 30 for 7 ft
    assert 0.5 <= turns - height / (math.pi * drum) <= 1  # N ~ H / (pi x d) + 0.5 to 1 extra turn
    ippt = torque / turns  # IPPT_total = W x r / N
    energy = math.pi * ippt * turns**2 / 12  # U = pi x IPPT_total x N^2, in ft-lb
    life = 10_000 / (4 * 365)  # rated cycles / (cycles per day x 365), at 10,000 cycles and 4 a day
    assert (round(ippt / springs, 2), turns, round(energy)) == (21.33, 7.5, 628)  # 7.2 as published
    return {
        "IPPT per spring": number(ippt / springs, 2),
        "Turns of wind": number(turns, 2),
        "Stored energy, closed": f"{number(energy)} ft-lb",
        "Spring life": f"{number(life, 1)} years",
    }


def energy_defaults() -> dict[str, str]:
    """Q = A x dT / R (U = 1/R, 4.2): a 16x7 door, 60 F garage, 20 F outside; bare steel (counted R-1) vs R-12.9.

    The season: A x HDD x 24 / R at 5,000 degree days, bought as gas at 100,000 BTU a therm, 90% efficient,
    $1.50 a therm.
    """
    area, difference, bare, better = 16 * 7, 60 - 20, 1.0, 12.9
    season = area * 5000 * 24  # BTU x R
    saving = season * (1 / bare - 1 / better) / (100_000 * 0.9) * 1.50
    return {
        "Heat loss now, per hour": f"{number(area * difference / bare)} BTU/h",
        "With the new door, per hour": f"{number(area * difference / better)} BTU/h",
        "Saving a year, garage at 65 °F": f"${number(saving)}",
    }


def roi_defaults() -> dict[str, str]:
    """7.5: value added = job cost x percent recouped / 100, on typical figures: a $2,500 door (the summary's
    $1,800-$3,200 for an insulated 16x7) and the 2021 report's 93.8%, not the 2024 outlier's 193.9%."""
    cost, recouped = 2500, 93.8
    assert 1800 <= cost <= 3200 and 75 <= recouped <= 100  # the reports from 2012 to 2022 recoup 75-98%
    added = cost * recouped / 100
    return {
        "Value added at resale": f"${number(added)}",
        "Net cost after resale": f"${number(cost - added)}",
        "Recouped": f"{number(recouped, 1)}%",
    }


def rolling_steel_defaults() -> dict[str, str]:
    """7.4: a 10 ft curtain on a 3 in. barrel, each wrap adding 2 in. to the radius, plus a 2 in. allowance.

    The rolled curtain seen end-on is a ring whose area is the curtain's length times one wrap's build, so
    D = sqrt(D0^2 + 4 t L / pi) after (D - D0) / (2 t) wraps.
    """
    length, barrel, build, allowance = 10 * 12, 3.0, 2.0, 2.0
    diameter = math.sqrt(barrel**2 + 4 * build * length / math.pi)
    assert round(diameter, 1) == 17.7  # just under the 18-24 in. the reference quotes
    return {
        "Coil diameter": f"{number(diameter, 1)} in",
        "Wraps on the barrel": number((diameter - barrel) / (2 * build), 2),
        "Headroom needed": f"{number(diameter + allowance, 1)} in",
    }


def spring_fatigue_defaults() -> dict[str, str]:
    """7.1 spring life: rated cycles / (cycles per day x 365), at 10,000 cycles, 4 a day, a 5-year-old spring."""
    rating, per_day, age = 10_000, 4, 5
    return {
        "Expected life": f"{number(rating / (per_day * 365), 1)} years",
        "Cycles a year": number(per_day * 365),
        "Rating used so far": f"{number(age * per_day * 365 / rating * 100)}%",
    }


def catapult_defaults() -> dict[str, str]:
    """E = 1/2 k x^2, v = sqrt(2 E efficiency / m), range = v^2 sin(2 angle) / g: 400 N/m, 20 cm, 50 g, 70%, 45 deg."""
    energy = 0.5 * 400 * 0.20**2
    speed = math.sqrt(2 * energy * 0.70 / 0.050)
    return {
        "Stored energy": f"{number(energy, 2)} J",
        "Launch speed": f"{number(speed, 1)} m/s ({number(speed * 2.23694)} mph)",
        "Range, flat ground": f"{number(speed**2 * math.sin(math.radians(2 * 45)) / 9.81, 1)} m",
    }


CALCULATORS: dict[str, Callable[[], dict[str, str]]] = {
    "science-of-garage-door-springs": springs_defaults,
    "energy-efficiency-lab": energy_defaults,
    "garage-door-roi": roi_defaults,
    "rolling-steel-lab": rolling_steel_defaults,
    "spring-fatigue-cold-weather": spring_fatigue_defaults,
    "spring-powered-catapult": catapult_defaults,
}


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
    assert [s["src"] for s in page.scripts] == [
        f"/static/labs/lab-kit.js?v={script_version('lab-kit.js')}",
        f"/static/labs/{slug}.js?v={script_version(f'{slug}.js')}",
        "/static/snippet.js",
    ]
    assert all("defer" in script for script in page.scripts)
    assert "/static/labs/labs.css" in body and '<header class="site">' in body  # the site navigation


def test_embed_mode_swaps_the_site_navigation_for_a_slim_bar(api: httpx.Client, live_server: LiveServer) -> None:
    body = api.get("/labs/garage-door-anatomy?embed=1").text
    assert '<header class="site lab-bar">' in body and '<footer class="site">' not in body
    assert 'href="/developers"' not in body
    assert f'href="{live_server.url}/labs/garage-door-anatomy" target="_blank" rel="noopener"' in body
    assert '<script src="/static/labs/frame-height.js" defer>' in body  # it reports its height to the embed loader
    assert "frame-height.js" not in api.get("/labs/garage-door-anatomy").text


def test_the_index_links_every_lab_in_order_with_its_preview(api: httpx.Client) -> None:
    body = api.get("/labs", headers={"Accept": BROWSER_ACCEPT}).text
    positions = [body.index(f'href="/labs/{slug}"') for slug in LAB_SLUGS]
    assert positions == sorted(positions)
    for slug in LAB_SLUGS:
        image = re.search(rf'<img src="/labs/{slug}/thumbnail\.webp"([^>]*)>', body)
        assert image is not None, slug
        for attribute in ('width="640"', 'height="360"', 'loading="lazy"', 'alt=""'):
            assert attribute in image.group(1), (slug, attribute)  # the title beside it names the link
        assert str(escape(LABS[slug].description)) in body
    assert "Screenshot of the" not in body and " lab lab" not in body.lower()


@pytest.mark.parametrize("slug", LAB_SLUGS)
def test_each_thumbnail_is_a_light_webp_of_its_preview(api: httpx.Client, slug: str) -> None:
    response = api.get(f"/labs/{slug}/thumbnail.webp")
    assert response.status_code == 200 and response.headers["content-type"] == "image/webp"
    assert "max-age=" in response.headers["cache-control"]
    preview = api.get(f"/labs/{slug}/preview.png").content
    assert len(response.content) < 0.6 * len(preview), "a thumbnail must weigh well under its preview"
    with Image.open(io.BytesIO(response.content)) as thumb, Image.open(io.BytesIO(preview)) as full:
        assert thumb.format == "WEBP" and thumb.size == (THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT)
        shrunk = full.convert("RGB").resize(thumb.size, Image.Resampling.LANCZOS)
        difference = ImageStat.Stat(ImageChops.difference(thumb.convert("RGB"), shrunk)).mean
        assert sum(difference) / 3 < 6, "the thumbnail is drawn from the committed preview"
    etag = response.headers["etag"]
    assert api.get(f"/labs/{slug}/thumbnail.webp", headers={"If-None-Match": etag}).status_code == 304


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
        assert image.evaluate("image => image.naturalWidth") == THUMBNAIL_WIDTH
    assert problems == []
    page.close()


@pytest.mark.parametrize("slug", CALCULATORS)
def test_each_calculator_opens_on_the_figures_the_reference_formulas_give(
    browser: Any, live_server: LiveServer, slug: str
) -> None:
    context = browser.new_context(locale=LOCALE)
    page = context.new_page()
    page.goto(f"{live_server.url}/labs/{slug}")
    page.locator("#lab-interactive .lab-stat").first.wait_for()
    expected = CALCULATORS[slug]()
    shown = headline_figures(page)
    assert {label: shown.get(label) for label in expected} == expected
    context.close()


def test_the_energy_labs_garage_temperature_sets_the_hourly_loss_and_the_season_says_65_f(
    browser: Any, live_server: LiveServer
) -> None:
    context = browser.new_context(locale=LOCALE)
    page = context.new_page()
    page.goto(f"{live_server.url}/labs/energy-efficiency-lab")
    before = headline_figures(page)
    page.get_by_role("slider", name="Garage temperature (°F)").fill("45")
    after = headline_figures(page)
    assert after["Heat loss now, per hour"] == f"{number(16 * 7 * (45 - 20))} BTU/h"
    # Degree days count from 65 F: the season is for a garage heated to 65 F, and the page says so.
    assert after["Saving a year, garage at 65 °F"] == before["Saving a year, garage at 65 °F"]
    expect(page.locator("#lab-interactive h3", has_text="Over a heating season")).to_have_text(
        "Over a heating season, garage heated to 65 °F"
    )
    context.close()


@pytest.mark.parametrize(
    ("slug", "card"),
    [("science-of-garage-door-springs", "Spring life"), ("spring-fatigue-cold-weather", "Expected life")],
)
def test_the_cycles_per_day_box_moves_the_slider_and_keeps_to_its_bounds(
    browser: Any, live_server: LiveServer, slug: str, card: str
) -> None:
    """Both labs use LabKit's one cycles-per-day slider and its exact-value box: a typed value moves the slider and
    the headline; one out of bounds is clamped, and shown clamped once the reader tabs out of the box."""
    context = browser.new_context(locale=LOCALE)
    page = context.new_page()
    page.goto(f"{live_server.url}/labs/{slug}")
    slider = page.get_by_role("slider", name="Cycles per day (open + close)")
    box = page.get_by_role("spinbutton", name="Cycles per day (open + close), exact value")
    expect(slider).to_have_value("4")  # the typical use both labs open on
    box.fill("8")
    expect(slider).to_have_value("8")
    assert headline_figures(page)[card] == f"{number(10_000 / (8 * 365), 1)} years"
    box.fill("99")
    box.press("Tab")
    expect(box).to_have_value("20")
    expect(slider).to_have_value("20")
    assert headline_figures(page)[card] == f"{number(10_000 / (20 * 365), 1)} years"
    context.close()


def test_a_number_field_is_clamped_to_its_bounds_and_its_result_row_follows(
    browser: Any, live_server: LiveServer
) -> None:
    """The ROI lab's home value is a number box alone (LabKit.numberField), settled as the sliders' boxes are."""
    context = browser.new_context(locale=LOCALE)
    page = context.new_page()
    page.goto(f"{live_server.url}/labs/garage-door-roi")
    home = page.get_by_role("spinbutton", name="Home value ($)")
    afterwards = page.locator("#lab-interactive dt:has-text('Home value afterwards') + dd")
    added = 2500 * 93.8 / 100  # the lab's opening figures, as in roi_defaults
    expect(afterwards).to_have_text(f"${number(400_000 + added)}")
    home.fill("250000")
    expect(afterwards).to_have_text(f"${number(250_000 + added)}")
    home.fill("5")
    home.press("Tab")
    expect(home).to_have_value("10000")  # the lowest home value the lab takes
    expect(afterwards).to_have_text(f"${number(10_000 + added)}")
    context.close()


@pytest.mark.parametrize("slug", LAB_SLUGS)
def test_the_embed_html_runs_the_lab_on_another_sites_page(
    browser: Any, live_server: LiveServer, contractor_site: tuple[str, Path], slug: str
) -> None:
    origin, folder = contractor_site
    name = embed_on_contractor_site(live_server, folder, slug)
    page = browser.new_page(viewport=FRAME_PAGE_WIDTH)
    page.set_default_timeout(15_000)
    problems = watch(page)
    page.goto(f"{origin}/{name}")
    frame = page.frame_locator("iframe")
    frame.locator("#lab-interactive [data-lab-output]").wait_for(state="attached")
    assert frame.locator("h1").inner_text() == LABS[slug].title
    assert frame.locator("header.lab-bar").is_visible()
    # The loader in the embed HTML grows the frame to the lab's height (it starts at 640 px).
    page.wait_for_function("() => document.querySelector('iframe').getBoundingClientRect().height > 800")
    (lab_frame,) = [f for f in page.frames if f.url.startswith(f"{live_server.url}/labs/{slug}")]
    assert lab_frame.evaluate("self.origin") == "null", "sandboxed without allow-same-origin"
    before, after = drive_main_control(frame)
    assert after != before
    assert problems == []
    page.close()


def test_open_full_lab_leaves_the_frame_for_an_unsandboxed_tab(
    browser: Any, live_server: LiveServer, contractor_site: tuple[str, Path]
) -> None:
    slug = "garage-door-roi"
    origin, folder = contractor_site
    name = embed_on_contractor_site(live_server, folder, slug)
    page = browser.new_page(viewport=FRAME_PAGE_WIDTH)
    page.set_default_timeout(15_000)
    problems = watch(page)
    page.goto(f"{origin}/{name}")
    link = page.frame_locator("iframe").locator("header.lab-bar a", has_text="Open full lab")
    with page.expect_popup() as opened:
        link.click()
    tab = opened.value
    tab.locator("#lab-interactive [data-lab-output]").wait_for(state="attached")
    assert tab.url == f"{live_server.url}/labs/{slug}"
    assert tab.evaluate("self.origin") == live_server.url, "the new tab is out of the sandbox"
    assert page.url == f"{origin}/{name}", "the contractor's page stays put"
    assert problems == []
    tab.close()
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


def test_render_previews_draws_every_lab_as_its_committed_preview(live_server: LiveServer, tmp_path: Path) -> None:
    """Real screenshots, and the committed ones still show the pages: a lab changed without a re-render fails."""
    result = subprocess.run(
        [sys.executable, "-m", "garage_tools", "labs", "render-previews", "--base-url", live_server.url,
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    written_files = sorted(path.name for path in tmp_path.iterdir())
    assert written_files == sorted(f"{slug}.{suffix}" for slug in LAB_SLUGS for suffix in ("png", "webp"))
    for slug in LAB_SLUGS:
        written = tmp_path / f"{slug}.png"
        assert f"wrote {written}" in result.stdout
        assert written.stat().st_size < MAX_PREVIEW_BYTES
        with Image.open(written) as fresh, Image.open(PREVIEW_DIR / f"{slug}.png") as committed:
            assert fresh.size == committed.size == (PREVIEW_WIDTH, PREVIEW_HEIGHT)
            colours = fresh.convert("RGB").getcolors(maxcolors=100_000)
            assert colours is not None and len(colours) > 20, "a screenshot, not a blank canvas"
            changed = changed_share(fresh, committed)
        assert changed < MAX_PREVIEW_DRIFT, (
            f"{slug}: {changed:.1%} of the committed preview differs from the page as it is now; "
            "run `garage-tools labs render-previews` and commit the images"
        )


def changed_share(a: Image.Image, b: Image.Image) -> float:
    """The share of pixels that visibly differ (by more than 40 of 255 in grey) between two images."""
    difference = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).convert("L")
    visible = difference.point(lambda level: 255 if level > 40 else 0).histogram()[255]
    return visible / (a.width * a.height)


def test_render_previews_refuses_an_unknown_slug(live_server: LiveServer, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "garage_tools", "labs", "render-previews", "--only", "nope", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "nope" in result.stderr
    assert list(tmp_path.iterdir()) == []
