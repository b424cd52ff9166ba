"""A lab embedded on a contractor's page with getLabEmbed's HTML, on a 390 px phone: the loader grows the frame
to the lab's full height, under the strict host CSP, and takes heights only from the frame it owns."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer
from tests.e2e.page_checks import PHONE, sideways
from tests.fakes.host_site import HostSite, Page

SLUG = "science-of-garage-door-springs"
SHOTS = Path("/tmp/widget-shots")
FRAME_HEIGHT = "document.querySelector('iframe').getBoundingClientRect().height"


@pytest.fixture(scope="module")
def site(live_server: LiveServer) -> Iterator[HostSite]:
    service = live_server.url
    embed = httpx.post(f"{service}/api/v1/getLabEmbed", json={"slug": SLUG}, timeout=10).json()["iframeHtml"]
    frame_only = embed.split("\n<script", 1)[0]
    csp = (
        f"default-src 'none'; script-src {service}; connect-src {service}; style-src {service}; "
        f"img-src {service} data:; frame-src {service}"
    )

    def page(body: str) -> str:
        return (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
            f"<title>Smith Garage Doors</title></head><body><h1>How springs work</h1>{body}</body></html>"
        )

    host = HostSite()
    host.pages = {
        "/lab.html": Page(page(embed)),
        "/strict.html": Page(page(embed), {"Content-Security-Policy": csp}),
        "/bare.html": Page(page(frame_only)),
    }
    host.start()
    yield host
    host.stop()


def open_phone(browser: Any, site: HostSite, path: str) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport=PHONE)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(f"{site.url}{path}")
    page.frame_locator("iframe").locator("h1").wait_for()
    return page, problems


def lab_height(page: Any) -> float:
    (lab,) = [frame for frame in page.frames if "/labs/" in frame.url]
    height: float = lab.evaluate("document.body.getBoundingClientRect().height")
    return height


def test_the_lab_grows_to_its_content_on_a_phone(browser: Any, site: HostSite) -> None:
    page, problems = open_phone(browser, site, "/lab.html")
    page.wait_for_function(f"{FRAME_HEIGHT} > 1500")
    frame = page.evaluate(FRAME_HEIGHT)
    assert abs(frame - lab_height(page)) < 40  # the whole lab, no scrolling inside a small window
    assert sideways(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "lab-embed-390.png"))
    # A message from anything but the lab's own frame changes nothing, whatever it claims.
    page.evaluate("window.postMessage({type: 'garage-lab:height', height: 99}, '*')")
    page.wait_for_timeout(300)  # a sleep on purpose: nothing is to change, and an absence cannot be awaited
    assert page.evaluate(FRAME_HEIGHT) == frame
    assert problems == []
    page.close()


def test_under_a_strict_host_csp_the_loader_still_fits_the_frame(browser: Any, site: HostSite) -> None:
    page, problems = open_phone(browser, site, "/strict.html")
    page.wait_for_function(f"{FRAME_HEIGHT} > 1500")
    # The snippet's style attribute is refused by this policy (its width and height attributes stand in).
    assert all("inline style" in problem for problem in problems), problems
    page.close()


def test_without_the_loader_the_frame_is_phone_sized(browser: Any, site: HostSite) -> None:
    page, problems = open_phone(browser, site, "/bare.html")
    page.wait_for_timeout(500)  # a sleep on purpose: nothing may resize the frame, and an absence cannot be awaited
    box = page.locator("iframe").bounding_box()
    assert box is not None and box["width"] > 300 and 600 <= box["height"] <= 0.85 * PHONE["height"] + 1
    assert problems == []
    page.close()


@pytest.mark.parametrize("path", [f"/labs/{SLUG}", "/labs"])
def test_embed_this_lab_shows_the_code_and_copies_it(browser: Any, live_server: LiveServer, path: str) -> None:
    context = browser.new_context(viewport=PHONE)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.goto(f"{live_server.url}{path}")
    disclosure = page.locator("details.snippet").first
    disclosure.locator("summary", has_text="Embed this lab").click()
    code = disclosure.locator("textarea").input_value()
    expected = httpx.post(f"{live_server.url}/api/v1/getLabEmbed", json={"slug": SLUG}, timeout=10).json()
    if path != "/labs":
        assert code == expected["iframeHtml"]  # the page offers exactly what getLabEmbed gives
    assert code.startswith("<iframe ") and "data-garage-lab" in code and "/labs/embed.js" in code
    disclosure.get_by_role("button", name="Copy the code").click()
    disclosure.get_by_role("status").filter(has_text="Copied.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == code
    assert sideways(page) == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"embed-this-lab{path.replace('/', '-')}.png"))
    context.close()


def test_the_loader_is_cached_with_validators(api: httpx.Client) -> None:
    first = api.get("/labs/embed.js", headers={"Origin": "https://doors.example.net"})
    assert first.status_code == 200 and first.headers["content-type"].startswith("text/javascript")
    assert first.headers["access-control-allow-origin"] == "*" and "max-age=86400" in first.headers["cache-control"]
    assert api.get("/labs/embed.js", headers={"If-None-Match": first.headers["etag"]}).status_code == 304
