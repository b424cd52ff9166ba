"""The widget with the browser challenge on: it asks `GET /challenge`, loads the challenge script, and sends a
fresh token with every call (a new one, once, when a token is refused); a bare call without one is still refused.

The service verifies tokens with the stand-in siteverify (tests/fakes/siteverify.py); the contractor's site
(tests/fakes/host_site.py) also serves the stand-in Turnstile script the service names in
GARAGE_TOOLS_CHALLENGE_SCRIPT_URL. Its CSP is the strict one plus the challenge script's origin, as a site
using the real Turnstile adds https://challenges.cloudflare.com.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.e2e.page_checks import DESKTOP, PHONE, sideways
from tests.e2e.test_widget_browser import Widget, host_page
from tests.fakes.host_site import HostSite, Page
from tests.fakes.siteverify import PASS_SECRET, FakeSiteverify

SITE_KEY = "1x00000000000000000000AA"
CONTRACTOR = "dixie-door-and-spring"
LAB = "safety-systems-lab"
ADMITTED = "https://doors.example.com"


@pytest.fixture(scope="module")
def site() -> Iterator[HostSite]:
    host = HostSite()
    host.start()
    yield host
    host.stop()


@pytest.fixture(scope="module")
def guarded(
    tmp_path_factory: pytest.TempPathFactory, siteverify_server: FakeSiteverify, site: HostSite
) -> Iterator[LiveServer]:
    server = start_server(
        tmp_path_factory.mktemp("widget-challenge"),
        {
            "GARAGE_TOOLS_CHALLENGE_SECRET": PASS_SECRET,
            "GARAGE_TOOLS_CHALLENGE_VERIFY_URL": siteverify_server.url,
            "GARAGE_TOOLS_CHALLENGE_SITE_KEY": SITE_KEY,
            "GARAGE_TOOLS_CHALLENGE_SCRIPT_URL": f"{site.url}/turnstile.js",
            "GARAGE_TOOLS_CHALLENGE_ACTION": "widget",
            "GARAGE_TOOLS_ALLOWED_ORIGINS": ADMITTED,
        },
    )
    service = server.url
    csp = (
        f"default-src 'none'; script-src {service} {site.url}; connect-src {service}; style-src {service}; "
        f"img-src {service} data:; frame-src {site.url}"
    )
    site.pages["/guarded.html"] = Page(host_page(service), {"Content-Security-Policy": csp})
    lab = httpx.post(f"{service}/api/v1/getLabEmbed", json={"slug": LAB}, timeout=10).json()["iframeHtml"]
    site.pages["/contractor.html"] = Page(
        host_page(service, f'data-partner-id="{CONTRACTOR}"', after=f"<section><h2>Learn</h2>{lab}</section>"),
        {"Content-Security-Policy": csp.replace(f"frame-src {site.url}", f"frame-src {site.url} {service}")},
    )
    yield server
    stop_server(server)


@pytest.fixture
def widget(browser: Any, site: HostSite, guarded: LiveServer, siteverify: FakeSiteverify) -> Iterator[Widget]:
    siteverify.action = "widget"
    page = browser.new_page(viewport=DESKTOP)
    opened = Widget(page, guarded.url)
    yield opened
    page.close()
    assert opened.problems == []


def open_page(widget: Widget, site: HostSite) -> None:
    widget.page.goto(f"{site.url}/guarded.html")
    widget.page.get_by_role("heading", name="What is your garage door doing?").wait_for()


def test_the_advice_follows_the_origin(guarded: LiveServer) -> None:
    def advice(origin: str | None) -> dict[str, Any]:
        headers = {"Origin": origin} if origin else {}
        answer: dict[str, Any] = httpx.get(f"{guarded.url}/challenge", headers=headers, timeout=10).json()
        return answer

    foreign = advice("https://acme-doors.example")
    assert foreign["required"] is True
    assert (foreign["siteKey"], foreign["action"], foreign["tokenField"]) == (SITE_KEY, "widget", "challengeToken")
    assert foreign["scriptUrl"].endswith("/turnstile.js")
    for exempt in (ADMITTED, guarded.url, None):  # admitted, the service itself, a server
        assert advice(exempt)["required"] is False


def test_every_call_carries_a_fresh_token(widget: Widget, site: HostSite, siteverify: FakeSiteverify) -> None:
    open_page(widget, site)
    widget.chip("loud bang")
    widget.find_pro("84770")
    tokens = [body.get("challengeToken") for _, body in widget.sent]
    assert [tool for tool, _ in widget.sent] == ["homeownerAnswer", "homeownerAnswer"]
    assert all(tokens) and len(set(tokens)) == 2
    assert [sent.response for sent in siteverify.requests] == tokens
    assert widget.page.evaluate("window.standInRenders") == [SITE_KEY]
    assert "Stand-in challenge" in widget.page.locator("[data-garage-doors]").inner_text()  # shown via the slot


def test_a_spent_token_is_replaced_once(
    widget: Widget, site: HostSite, guarded: LiveServer, siteverify: FakeSiteverify
) -> None:
    spent = "standin-spent-elsewhere"
    first = httpx.post(
        f"{guarded.url}/api/v1/diagnose",
        json={"description": "loud bang", "challengeToken": spent},
        headers={"Origin": site.url},
        timeout=10,
    )
    assert first.status_code == 200
    site.first_tokens = [spent]  # the stand-in hands the spent token out first
    open_page(widget, site)
    widget.chip("won't open")
    diagnose_tokens = [body["challengeToken"] for tool, body in widget.sent if tool == "homeownerAnswer"]
    assert diagnose_tokens[0] == spent and len(diagnose_tokens) == 2 and diagnose_tokens[1] != spent
    widget.problems.clear()  # Chromium logs the refused (403) first attempt


def test_a_bare_cross_origin_call_is_still_refused(widget: Widget, site: HostSite, guarded: LiveServer) -> None:
    open_page(widget, site)
    answer = widget.page.evaluate(
        """async (service) => {
             const response = await fetch(service + "/api/v1/diagnose", {method: "POST",
               headers: {"Content-Type": "application/json"}, body: JSON.stringify({description: "loud bang"})});
             return [response.status, (await response.json()).error.code];
           }""",
        guarded.url,
    )
    assert answer == [403, "challenge_required"]
    widget.problems.clear()  # Chromium logs the 403


def test_done_when_a_phone_gets_the_contractor_and_a_usable_lab_with_the_challenge_on(
    browser: Any, site: HostSite, guarded: LiveServer, siteverify: FakeSiteverify
) -> None:
    """The issue's "done when", on one contractor page: two lines for the widget and the lab embed."""
    siteverify.action = "widget"
    widget = Widget(browser.new_page(viewport=PHONE), guarded.url)
    widget.page.goto(f"{site.url}/contractor.html")
    widget.chip("loud bang")
    pro = widget.find_pro("St. George, UT")
    assert "Dixie Door & Spring" in pro.inner_text()  # the contractor's own, who serves the place
    assert pro.locator("a.gdr-book").is_visible() and pro.locator("a.gdr-call").first.is_visible()
    assert all(body.get("challengeToken") for _, body in widget.sent)
    widget.page.wait_for_function("() => document.querySelector('iframe').getBoundingClientRect().height > 1500")
    assert sideways(widget.page) == []
    widget.page.screenshot(path="/tmp/widget-shots/contractor-page-390.png", full_page=True)
    widget.page.close()
    # The lab snippet's style attribute is refused by this policy (its width and height attributes stand in).
    assert all("inline style" in problem for problem in widget.problems), widget.problems
